// node:http helpers for what runs before (or beside) the Hono apps of the data service and the app's localhost server:
// the error envelope of docs/api.md on a bare response, and JSON request bodies read with a size limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TxdeskError, type ErrorBody } from '../shared/errors.js';

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

/** The envelope of an error. Anything that is not a TxdeskError is a bug: logged, and answered with a plain 500. */
export function envelopeOf(
  e: unknown,
  log: (msg: string) => void = defaultLog,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  let err: TxdeskError;
  if (e instanceof TxdeskError) err = e;
  else {
    log(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    err = new TxdeskError('INTERNAL', 'Something went wrong on our side; try again, and report it if it keeps happening.');
  }
  const headers: Record<string, string> = {};
  if (err.code === 'RATE_LIMITED' && 'retryAfterSeconds' in err) headers['retry-after'] = String(err.retryAfterSeconds);
  return { status: err.status, body: err.toBody(), headers };
}

/** Sends the error envelope on a bare node response (see envelopeOf). */
export function sendError(res: ServerResponse, e: unknown, log: (msg: string) => void = defaultLog): void {
  const { status, body, headers } = envelopeOf(e, log);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, body, headers);
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
