// Loopback HTTP server for the sample tokens' metadata: GET /{collection}/{id}.json and its picture /{collection}/{id}.svg.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { Router, sendError } from '../lib/http-kit.js';
import { ADDRESS_PATTERN } from '../shared/address.js';
import { TxdeskError } from '../shared/errors.js';
import { silentLogger, type Logger } from '../lib/log.js';
import { tokenMetadata, tokenSvg } from './sample-art.js';

export interface MetadataServer {
  url: string;
  /** Serves metadata for a collection from now on; `address` is matched case-insensitively. */
  addCollection(address: string, name: string): void;
  stop(): Promise<void>;
}

const collectionParam = z.string().regex(ADDRESS_PATTERN);
// A decimal id, or the 64 hex digits of the EIP-1155 {id} substitution.
const fileParam = z.string().regex(/^(0|[1-9][0-9]{0,76}|[0-9a-fA-F]{64})\.(json|svg)$/);

export async function startMetadataServer(opts: { port?: number; log?: Logger } = {}): Promise<MetadataServer> {
  const log = opts.log ?? silentLogger;
  const collections = new Map<string, string>();
  let url = '';

  const lookup = (collection: string, file: string) => {
    const address = collectionParam.safeParse(collection);
    const name = address.success ? collections.get(address.data.toLowerCase()) : undefined;
    if (!address.success || name === undefined) throw new TxdeskError('NOT_FOUND', `No sample collection ${collection} is served here.`);
    const f = fileParam.safeParse(file);
    if (!f.success) throw new TxdeskError('NOT_FOUND', `Ask for {id}.json or {id}.svg, with a decimal token id.`);
    const [raw, ext] = f.data.split('.') as [string, 'json' | 'svg'];
    const id = raw.length === 64 ? BigInt('0x' + raw).toString() : raw;
    return { address: address.data.toLowerCase(), name, id, ext };
  };

  const router = new Router()
    .get('/health', () => ({ ok: true }))
    .get('/', () => ({ collections: [...collections].map(([address, name]) => ({ address, name })) }))
    .get('/:collection/:file', ({ params, res }) => {
      const t = lookup(params.collection ?? '', params.file ?? '');
      if (t.ext === 'json') return tokenMetadata(t.address, t.name, t.id, `${url}/${t.address}/${t.id}.svg`);
      const svg = tokenSvg(t.address, t.name, t.id);
      res.writeHead(200, { 'content-type': 'image/svg+xml', 'content-length': Buffer.byteLength(svg), 'cache-control': 'public, max-age=3600' });
      res.end(svg);
      return undefined;
    });

  const server: Server = createServer((req, res) => {
    // Token browsers on other loopback origins fetch these directly.
    res.setHeader('access-control-allow-origin', '*');
    router.handle(req, res, url).then(
      (handled) => { if (!handled) sendError(res, new TxdeskError('NOT_FOUND', `Nothing is served at ${req.url}.`)); },
      (e: unknown) => sendError(res, e, (m) => log.error(m)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    addCollection: (address, name) => { collections.set(address.toLowerCase(), name); },
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
