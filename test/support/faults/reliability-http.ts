// A raw HTTP/1.1 client over a TCP socket for hostile-input tests: any request line, any Host/Origin header, any body
// bytes, no client-side normalisation (fetch and http.request would fix or refuse the very inputs under test).
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

export interface RawRequest {
  method?: string;
  /** Sent as is on the request line. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Leave out the Host header entirely. */
  noHost?: boolean;
  timeoutMs?: number;
}

/** Sends one request on a fresh connection and reads the whole answer; rejects on a timeout (a hang is a failure). */
export function rawRequest(baseUrl: string, r: RawRequest): Promise<RawAnswer> {
  const u = new URL(baseUrl);
  const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
  const headers: Record<string, string> = { connection: 'close', ...r.headers };
  if (!r.noHost && !Object.keys(headers).some((h) => h.toLowerCase() === 'host')) headers.host = u.host;
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
    headers['content-length'] = String(body.length);
  const head = `${r.method ?? 'GET'} ${r.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete answer within ${r.timeoutMs ?? 20_000} ms to ${r.method ?? 'GET'} ${r.path.slice(0, 200)}`));
    }, r.timeoutMs ?? 20_000);
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', () => {
      /* a reset after the answer is fine; a reset before it shows as an unparsable answer below */
    });
    sock.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (e) {
        reject(e);
      }
    });
    sock.write(head);
    if (body !== undefined) sock.write(body);
  });
}

export function parseAnswer(buf: Buffer): RawAnswer {
  const sep = buf.indexOf('\r\n\r\n');
  if (sep < 0) throw new Error(`no HTTP answer (got ${buf.length} bytes: ${JSON.stringify(buf.toString('latin1').slice(0, 200))})`);
  const lines = buf.subarray(0, sep).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!m) throw new Error(`bad status line ${JSON.stringify(lines[0])}`);
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let raw = buf.subarray(sep + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) raw = dechunk(raw);
  const text = raw.toString('utf8');
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: Number(m[1]), headers, text, body };
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** True when an answer is the SPEC 2 error envelope: JSON `{error:{code:UPPER_SNAKE, message:non-empty}}`, no stack trace. */
export function isErrorEnvelope(a: RawAnswer): boolean {
  const e = a.body?.error;
  return (
    /^application\/json/.test(a.headers['content-type'] ?? '') &&
    typeof e?.code === 'string' &&
    /^[A-Z][A-Z0-9_]*$/.test(e.code) &&
    typeof e.message === 'string' &&
    e.message.length > 0 &&
    !/\n\s+at /.test(a.text)
  );
}

/** A clear client error: 4xx with the envelope. */
export function isClientError(a: RawAnswer): boolean {
  return a.status >= 400 && a.status < 500 && isErrorEnvelope(a);
}
