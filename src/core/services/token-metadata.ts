// Resolves token metadata URIs for the renderer (which has no network access of its own): JSON with name,
// description and image; anything unreadable maps to {}. Bounded in time, size and concurrency; cached per run.
// The URIs come from the chain, so from anyone: requests may only reach public addresses, except the origins the
// caller allow-lists (the embedded dev chain's loopback metadata server).
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { TokenMetadata } from '../../shared/desktop-api.js';
import { isPublicAddress } from './public-address.js';

const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 4_000;
const CONCURRENCY = 6;
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface MetadataResolverOptions {
  /** Origins (scheme://host[:port]) that may resolve to local addresses; everything else must be public. */
  allowOrigins?: readonly string[];
}

function pickMetadata(json: unknown): TokenMetadata {
  if (!json || typeof json !== 'object') return {};
  const j = json as Record<string, unknown>;
  const out: TokenMetadata = {};
  if (typeof j.name === 'string') out.name = j.name.slice(0, 200);
  if (typeof j.description === 'string') out.description = j.description.slice(0, 2000);
  if (typeof j.image === 'string' && /^(https?:\/\/|data:image\/)/i.test(j.image) && j.image.length <= 512 * 1024) out.image = j.image;
  return out;
}

function refused(host: string, address: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${host} resolves to ${address}, which is not a public address.`), { code: 'EADDRNOTPUBLIC' });
}

/** dns.lookup that fails unless every answer is public: the socket connects only to what this returns. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...(options as LookupOptions), all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '');
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    const first = addresses[0];
    if (bad || !first) return callback(refused(hostname, bad?.address ?? 'nothing'), '');
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
};

/** One GET without following redirects. Hosts outside the allow-list must be (or resolve to) public addresses. */
function get(url: URL, allowed: boolean, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // Node connects to literal IP hosts without calling `lookup`, so they are checked here.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!allowed && isIP(host) && !isPublicAddress(host)) return reject(refused(host, host));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // No shared agent: a pooled socket must never carry a request its own lookup did not check.
    const req = send(url, { headers: { accept: 'application/json' }, agent: false, signal, ...(allowed ? {} : { lookup: publicOnlyLookup }) }, resolve);
    req.on('error', reject);
    if (!allowed) {
      // Backstop: whatever path led to this socket, stop unless its peer is public.
      req.on('socket', (socket) => {
        const check = () => {
          const peer = socket.remoteAddress ?? '';
          if (!isPublicAddress(peer)) req.destroy(refused(host, peer));
        };
        if (socket.remoteAddress) check();
        else socket.once('connect', check);
      });
    }
    req.end();
  });
}

/** The JSON body at `start`, following at most MAX_REDIRECTS http(s) redirects, each checked afresh; else undefined. */
async function fetchJson(start: URL, allowOrigins: ReadonlySet<string>, signal: AbortSignal): Promise<unknown> {
  let url = start;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    const res = await get(url, allowOrigins.has(url.origin), signal);
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      res.destroy();
      const location = res.headers.location;
      if (!location || hop >= MAX_REDIRECTS) return undefined;
      url = new URL(location, url);
      continue;
    }
    if (status < 200 || status > 299 || Number(res.headers['content-length'] ?? 0) > MAX_BYTES) {
      res.destroy();
      return undefined;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BYTES) {
        res.destroy();
        return undefined;
      }
      chunks.push(chunk);
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }
}

async function readOne(uri: string, allowOrigins: ReadonlySet<string>): Promise<TokenMetadata> {
  try {
    if (/^data:application\/json/i.test(uri)) {
      const comma = uri.indexOf(',');
      const meta = uri.slice(0, comma);
      const payload = uri.slice(comma + 1);
      const text = /;base64/i.test(meta) ? Buffer.from(payload, 'base64').toString('utf8') : decodeURIComponent(payload);
      return pickMetadata(JSON.parse(text));
    }
    if (!/^https?:\/\//i.test(uri)) return {};
    return pickMetadata(await fetchJson(new URL(uri), allowOrigins, AbortSignal.timeout(TIMEOUT_MS)));
  } catch {
    return {};
  }
}

export function createMetadataResolver(opts: MetadataResolverOptions = {}) {
  const allowOrigins = new Set((opts.allowOrigins ?? []).map((o) => new URL(o).origin));
  const cache = new Map<string, Promise<TokenMetadata>>();
  return async (uris: readonly string[]): Promise<Record<string, TokenMetadata>> => {
    const unique = [...new Set(uris)];
    const out: Record<string, TokenMetadata> = {};
    let next = 0;
    const worker = async () => {
      while (next < unique.length) {
        const uri = unique[next++]!;
        let p = cache.get(uri);
        if (!p) {
          p = readOne(uri, allowOrigins);
          cache.set(uri, p);
          // Failures are not cached for good: a metadata server that was down may be up next time.
          void p.then((m) => Object.keys(m).length === 0 && cache.delete(uri));
        }
        out[uri] = await p;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, unique.length) }, worker));
    return out;
  };
}
