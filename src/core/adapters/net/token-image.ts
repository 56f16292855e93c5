// Token images for the renderer, fetched by the core: the page's CSP lets it load images only from the app itself, so
// an `image` URL from (attacker-controlled) token metadata cannot make the window call local ports or other hosts.
// Same guarded fetch as the metadata (public addresses only, except allow-listed origins), image/* only, bounded in
// size and time, successes kept in a count- and byte-bounded LRU.
import { tokenImageUrlSchema } from '../../../shared/desktop-schemas.js';
import { TxdeskError } from '../../../shared/errors.js';
import { LRUCache } from 'lru-cache';
import { GuardedFetchError, guardedGet, originSet } from './guarded-fetch.js';
import { parseInput } from '../../services/desktop-api-validated.js';

import type { TokenImage } from '../../ports.js';

export type { TokenImage };

export interface TokenImageOptions {
  /** Origins that may be local addresses (the embedded dev chain's art, TXDESK_METADATA_ORIGINS). */
  allowOrigins?: readonly string[];
  maxBytes?: number;
  timeoutMs?: number;
  cacheEntries?: number;
  cacheBytes?: number;
  /** Downloads at once (default 6); more requests wait their turn. */
  maxParallel?: number;
}

const MIB = 1024 * 1024;
const IMAGE_TYPE = /^image\/[a-z0-9][a-z0-9.+-]*$/;

/**
 * Headers for every proxied image. SVG is served, not refused: the dev chain's sample art and much on-chain art is
 * SVG. An <img> never runs SVG script, and if someone opens the image URL itself (which, in the browser build, is the
 * app's own origin) this CSP sandboxes it with no script and no loads, and nosniff stops it being read as anything else.
 */
export function tokenImageHeaders(image: TokenImage): Record<string, string> {
  return {
    'content-type': image.contentType,
    'content-length': String(image.body.length),
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'private, max-age=3600',
  };
}

function toTxdeskError(e: unknown, maxBytes: number): TxdeskError {
  if (!(e instanceof GuardedFetchError)) return new TxdeskError('UPSTREAM_UNAVAILABLE', 'The image could not be read; retry later.');
  switch (e.reason) {
    case 'refused':
      return new TxdeskError(
        'FORBIDDEN',
        'The image URL points at a local or private address, which the app does not fetch; add its origin to TXDESK_METADATA_ORIGINS if it is yours.',
      );
    case 'status':
      return e.status === 404 || e.status === 410
        ? new TxdeskError('NOT_FOUND', `The image server has no image at this URL (HTTP ${e.status}).`)
        : new TxdeskError('UPSTREAM_UNAVAILABLE', `The image server answered HTTP ${e.status}; retry later.`);
    case 'type':
      return new TxdeskError('UPSTREAM_UNAVAILABLE', `The URL does not serve an image: ${e.message}`, 502, false);
    case 'too-large':
      return new TxdeskError('UPSTREAM_UNAVAILABLE', `The image is larger than ${maxBytes / MIB} MiB, so it is not shown.`, 502, false);
    case 'not-http':
    case 'redirects':
      return new TxdeskError(
        'UPSTREAM_UNAVAILABLE',
        'The image URL redirects too often or to something other than http(s), so it is not shown.',
        502,
        false,
      );
    case 'network':
      return new TxdeskError('UPSTREAM_UNAVAILABLE', 'The image server could not be reached or did not answer in time; retry later.');
  }
}

/** `(url) => image`; throws a TxdeskError (400 bad URL, 403 local address, 404 no such image, 502 anything else). */
export function createTokenImageProxy(opts: TokenImageOptions = {}) {
  const allowOrigins = originSet(opts.allowOrigins ?? []);
  const maxBytes = opts.maxBytes ?? 5 * MIB;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  // Bounded by count and by bytes; an image larger than the whole budget is not kept. (lru-cache sizes must be >= 1.)
  const cache = new LRUCache<string, TokenImage>({
    max: opts.cacheEntries ?? 256,
    maxSize: opts.cacheBytes ?? 64 * MIB,
    sizeCalculation: (image) => Math.max(1, image.body.length),
  });
  // Requests for the same URL while one is under way share it (a page of cards often repeats an image).
  const inFlight = new Map<string, Promise<TokenImage>>();
  // At most this many downloads at once: each may hold up to maxBytes, and a page of cards asks for dozens together.
  const maxParallel = opts.maxParallel ?? 6;
  let running = 0;
  const queue: (() => void)[] = [];

  async function fetchImage(url: string): Promise<TokenImage> {
    if (running >= maxParallel) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      const r = await guardedGet(new URL(url), {
        allowOrigins,
        signal: AbortSignal.timeout(timeoutMs),
        accept: 'image/*',
        maxBytes,
        acceptType: (t) => IMAGE_TYPE.test(t),
      });
      const image = { contentType: r.contentType, body: r.body };
      cache.set(url, image);
      return image;
    } catch (e) {
      throw toTxdeskError(e, maxBytes);
    } finally {
      running--;
      queue.shift()?.();
    }
  }

  return async (input: unknown): Promise<TokenImage> => {
    const url = new URL(parseInput(tokenImageUrlSchema, input, 'url')).href;
    const hit = cache.get(url);
    if (hit) return hit;
    let p = inFlight.get(url);
    if (!p) {
      p = fetchImage(url).finally(() => inFlight.delete(url));
      inFlight.set(url, p);
    }
    return p;
  };
}
