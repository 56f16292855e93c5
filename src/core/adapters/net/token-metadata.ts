// Resolves token metadata URIs for the renderer (which has no network access of its own): JSON with name,
// description and image; anything unreadable maps to {}. Bounded in time, size and concurrency; cached per run.
// The URIs come from the chain, so from anyone: requests may only reach public addresses, except the origins the
// caller allow-lists (the embedded dev chain's loopback metadata server).
import type { TokenMetadata } from '../../../shared/desktop-api.js';
import { guardedGet, originSet } from './guarded-fetch.js';

const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 4_000;
const CONCURRENCY = 6;

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
    const { body } = await guardedGet(new URL(uri), {
      allowOrigins,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      accept: 'application/json',
      maxBytes: MAX_BYTES,
    });
    return pickMetadata(JSON.parse(body.toString('utf8')));
  } catch {
    return {};
  }
}

export function createMetadataResolver(opts: MetadataResolverOptions = {}) {
  const allowOrigins = originSet(opts.allowOrigins ?? []);
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
