// A small HTTP toolkit over node:http shared by the data service and the app's localhost server:
// a router with path parameters, JSON bodies with a size limit, and the error envelope of SPEC 2.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TxdeskError, type ErrorBody } from '../shared/errors.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Decoded path parameters, e.g. `{ address: '0xab…' }` for `/accounts/:address`. */
  params: Record<string, string>;
  url: URL;
}

/** A handler returns a value to send as JSON (status 200), or sends the response itself and returns undefined. */
export type Handler = (ctx: RequestContext) => unknown | Promise<unknown>;

interface Route {
  method: Method;
  segments: string[];
  handler: Handler;
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: Method, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: splitPath(pattern), handler });
    return this;
  }

  get(pattern: string, handler: Handler): this {
    return this.add('GET', pattern, handler);
  }
  post(pattern: string, handler: Handler): this {
    return this.add('POST', pattern, handler);
  }
  patch(pattern: string, handler: Handler): this {
    return this.add('PATCH', pattern, handler);
  }

  /** Finds the route for a request. Returns null when no path matches; throws 405 when the path matches another method. */
  match(method: string, pathname: string): { handler: Handler; params: Record<string, string> } | null {
    const parts = splitPath(pathname);
    let pathMatched = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { handler: route.handler, params };
      pathMatched = true;
    }
    if (pathMatched) throw new TxdeskError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${pathname}.`);
    return null;
  }

  /**
   * Handles one request: routes it, runs the handler, and turns every thrown error into the envelope.
   * Returns false when no route matched, so callers can fall through (to static files, say).
   */
  async handle(req: IncomingMessage, res: ServerResponse, baseUrl: string): Promise<boolean> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', baseUrl);
    } catch {
      sendError(res, new TxdeskError('BAD_REQUEST', 'The request URL could not be parsed; check its encoding.'));
      return true;
    }
    try {
      const found = this.match(req.method ?? 'GET', url.pathname);
      if (!found) return false;
      const result = await found.handler({ req, res, params: found.params, url });
      if (result !== undefined && !res.headersSent) sendJson(res, 200, result);
    } catch (e) {
      sendError(res, e);
    }
    return true;
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return null;
      }
    } else if (p !== v) return null;
  }
  return params;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** Sends the error envelope. Anything that is not a TxdeskError is a bug: logged, and answered with a plain 500. */
export function sendError(res: ServerResponse, e: unknown, log: (msg: string) => void = defaultLog): void {
  let err: TxdeskError;
  if (e instanceof TxdeskError) err = e;
  else {
    log(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    err = new TxdeskError('INTERNAL', 'Something went wrong on our side; try again, and report it if it keeps happening.');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  if (err.code === 'RATE_LIMITED' && 'retryAfterSeconds' in err) headers['retry-after'] = String(err.retryAfterSeconds);
  const body: ErrorBody = err.toBody();
  sendJson(res, err.status, body, headers);
}

function defaultLog(msg: string): void {
  process.stderr.write(msg + '\n');
}

/** A 429 that carries the `Retry-After` value. */
export class RateLimitedError extends TxdeskError {
  constructor(
    readonly retryAfterSeconds: number,
    message = `Too many requests for this clientId; retry after ${retryAfterSeconds} s.`,
  ) {
    super('RATE_LIMITED', message);
  }
}

/** How much of a too-large body is read and dropped before the connection is cut. */
const DRAIN_BYTES = 8 * 1024 * 1024;

/** Reads and parses a JSON request body of at most `limitBytes`. An empty body is `undefined`. */
export async function readJsonBody(req: IncomingMessage, limitBytes = 64 * 1024): Promise<unknown> {
  const type = req.headers['content-type'];
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Past the limit the body is read on and dropped, so the client, still sending, gets to read the 413 (leaving the
    // loop would destroy the socket under it: a reset instead of an answer). Past the drain bound it is cut off.
    if (size > limitBytes + DRAIN_BYTES) break;
    if (size <= limitBytes) chunks.push(chunk as Buffer);
  }
  if (size > limitBytes) throw new TxdeskError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limitBytes} bytes; send less.`);
  if (size === 0) return undefined;
  if (type && !/^application\/json\b/i.test(type)) {
    throw new TxdeskError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON; send it with Content-Type: application/json.');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new TxdeskError('BAD_REQUEST', 'The request body is not valid JSON; check its syntax.');
  }
}
