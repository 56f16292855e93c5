// The one way the core fetches URLs that come from the chain (token metadata, token images): GET only, bounded in
// time and size, at most MAX_REDIRECTS http(s) redirects, and only public addresses unless the origin is allow-listed.
// The address check runs on the connected socket, on literal IP hosts and again on every redirect hop.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../../../lib/ip-address.js';

const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Why a guarded fetch gave up; `refused` means it never connected to the address. */
export type GuardedFetchFailure = 'refused' | 'not-http' | 'redirects' | 'status' | 'type' | 'too-large' | 'network';

export class GuardedFetchError extends Error {
  constructor(
    readonly reason: GuardedFetchFailure,
    message: string,
    /** The upstream HTTP status, for `status`. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'GuardedFetchError';
  }
}

export interface GuardedGetOptions {
  /** Exact origins (scheme://host[:port]) that may be local addresses. */
  allowOrigins: ReadonlySet<string>;
  signal: AbortSignal;
  accept: string;
  maxBytes: number;
  /** Checked on the final response's content-type before its body is read. */
  acceptType?: (contentType: string) => boolean;
}

export interface GuardedBody {
  /** Lowercase media type without parameters, '' when absent. */
  contentType: string;
  body: Buffer;
}

/** The allow-list in the form guardedGet wants: origins normalised, paths dropped. */
export const originSet = (origins: readonly string[]): ReadonlySet<string> => new Set(origins.map((o) => new URL(o).origin));

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
function get(url: URL, allowed: boolean, accept: string, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // Node connects to literal IP hosts without calling `lookup`, so they are checked here.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!allowed && isIP(host) && !isPublicAddress(host)) return reject(refused(host, host));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // No shared agent: a pooled socket must never carry a request its own lookup did not check.
    const req = send(url, { headers: { accept }, agent: false, signal, ...(allowed ? {} : { lookup: publicOnlyLookup }) }, resolve);
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

async function readBody(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
    res.destroy();
    throw new GuardedFetchError('too-large', `The response is larger than ${maxBytes} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      throw new GuardedFetchError('too-large', `The response is larger than ${maxBytes} bytes.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The 2xx body at `start`, following redirects, each hop checked afresh; throws GuardedFetchError otherwise. */
export async function guardedGet(start: URL, o: GuardedGetOptions): Promise<GuardedBody> {
  let url = start;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new GuardedFetchError('not-http', `${url.protocol} URLs are not fetched.`);
    let res: IncomingMessage;
    try {
      res = await get(url, o.allowOrigins.has(url.origin), o.accept, o.signal);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new GuardedFetchError(code === 'EADDRNOTPUBLIC' ? 'refused' : 'network', (e as Error).message);
    }
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      res.destroy();
      const location = res.headers.location;
      if (!location || hop >= MAX_REDIRECTS)
        throw new GuardedFetchError('redirects', `More than ${MAX_REDIRECTS} redirects, or one without a target.`);
      url = new URL(location, url);
      continue;
    }
    if (status < 200 || status > 299) {
      res.destroy();
      throw new GuardedFetchError('status', `The server answered HTTP ${status}.`, status);
    }
    const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (o.acceptType && !o.acceptType(contentType)) {
      res.destroy();
      throw new GuardedFetchError('type', `the server sent ${contentType || 'no content type'}.`);
    }
    try {
      return { contentType, body: await readBody(res, o.maxBytes) };
    } catch (e) {
      if (e instanceof GuardedFetchError) throw e;
      throw new GuardedFetchError('network', (e as Error).message);
    }
  }
}
