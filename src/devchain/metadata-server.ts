// Loopback HTTP server for the sample tokens' metadata: GET /{collection}/{id}.json and its picture /{collection}/{id}.svg.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { z } from 'zod';
import { errorResponse, json, nodeListener, type NodeEnv } from '../lib/hono-kit.js';
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

  const app = new Hono<NodeEnv>()
    .get('/health', (c) => json(c, 200, { ok: true }))
    .get('/', (c) => json(c, 200, { collections: [...collections].map(([address, name]) => ({ address, name })) }))
    .get('/:collection/:file', (c) => {
      const t = lookup(c.req.param('collection'), c.req.param('file'));
      if (t.ext === 'json') return json(c, 200, tokenMetadata(t.address, t.name, t.id, `${url}/${t.address}/${t.id}.svg`));
      return new Response(tokenSvg(t.address, t.name, t.id), {
        headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600' },
      });
    })
    .notFound((c) => {
      throw new TxdeskError('NOT_FOUND', `Nothing is served at ${new URL(c.req.url).pathname}.`);
    })
    .onError((e, c) => errorResponse(e, c, (m) => log.error(m)));
  const listener = nodeListener(app, (m) => log.error(m));

  const server: Server = createServer((req, res) => {
    // Token browsers on other loopback origins fetch these directly.
    res.setHeader('access-control-allow-origin', '*');
    void listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    addCollection: (address, name) => {
      collections.set(address.toLowerCase(), name);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
