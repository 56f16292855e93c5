// One webhook delivery attempt: a POST to a URL a stranger chose, made safe to send from the service. The host is
// resolved and checked on every call and the socket goes to exactly the checked address; redirects are not followed;
// one deadline covers resolving, connecting and the answer; at most a few KiB of the answer are read. Never throws:
// every outcome is a WebhookAttempt whose error is one short sentence for the webhook's owner.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveWebhookAddress, WebhookAddressError, webhookUrlProblem, type LookupAll } from './webhook-address-guard.js';

export interface WebhookPost {
  url: string;
  /** Sent as is: the exact bytes the signature covers. */
  body: string;
  /** Added to the request; they cannot replace the headers that frame it (content-type, content-length, host, user-agent, connection). */
  headers: Record<string, string>;
  /** Lets the delivery reach loopback, private and link-local addresses (--allow-private-webhooks). */
  allowPrivate: boolean;
  /** For everything: resolving, connecting, the status line and the body (default 10 000). */
  timeoutMs?: number;
  /** The most of the answer's body read before the connection is cut (default 4096); the body is thrown away. */
  maxResponseBytes?: number;
  lookup?: LookupAll;
  /** Cancels the attempt (the service is stopping). */
  signal?: AbortSignal;
}

/** `ok` only for a 2xx answer; `status` is null when no answer came, and `error` says why when not ok. */
export type WebhookAttempt = { ok: boolean; status: number | null; error: string | null; durationMs: number };

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const USER_AGENT = 'txdesk-webhooks';
/** Headers that describe the request itself: always ours, whatever `headers` says. */
const FRAMING = new Set(['content-type', 'content-length', 'host', 'user-agent', 'connection', 'transfer-encoding']);

/** What ended an attempt before an answer came; the sentence is made from it in one place, describeFailure. */
type Failure =
  | { kind: 'refused-address'; message: string }
  | { kind: 'timeout'; resolving: boolean }
  | { kind: 'cancelled' }
  | { kind: 'network'; error: NodeJS.ErrnoException };

class AttemptEnded extends Error {
  constructor(readonly failure: Failure) {
    super(failure.kind);
  }
}

const forHumans = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`);

// Node's codes for a certificate it does not accept, and for a TLS exchange that broke off before that question.
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME_INVALID/;
const TLS_CODE = /^(EPROTO|ERR_SSL_|ERR_TLS_)/;

function describeFailure(f: Failure, where: string, timeoutMs: number): string {
  switch (f.kind) {
    case 'refused-address':
      return f.message;
    case 'timeout':
      return f.resolving
        ? `${where} did not resolve within ${forHumans(timeoutMs)}`
        : `the receiver did not answer within ${forHumans(timeoutMs)}`;
    case 'cancelled':
      return 'the delivery was cancelled before the receiver answered (the service is stopping)';
    case 'network': {
      const code = f.error.code ?? '';
      if (code === 'ECONNREFUSED') return `${where} refused the connection (nothing listens there)`;
      if (code === 'ECONNRESET' || f.error.message === 'socket hang up') return `${where} closed the connection before answering`;
      if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT')
        return `${where} cannot be reached from the service (${code})`;
      if (CERTIFICATE_CODE.test(code)) return `${where} presented a TLS certificate that is not valid for it (${code}: ${f.error.message})`;
      if (TLS_CODE.test(code)) return `the TLS handshake with ${where} failed (${code}); the URL must point at an https server`;
      return `the request to ${where} failed (${code || f.error.message})`;
    }
  }
}

function describeAnswer(status: number): string | null {
  if (status >= 200 && status <= 299) return null;
  if (status >= 300 && status <= 399)
    return `the receiver answered ${status} (a redirect); webhooks do not follow redirects, give the final URL`;
  return `the receiver answered ${status}`;
}

/** A resolver that hands the socket the address already checked, so no second DNS answer can slip in between. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    // With autoSelectFamily (on by default since Node 20) the socket asks for every address at once.
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** `work`, or AttemptEnded as soon as `signal` aborts (DNS lookups cannot be cancelled, only abandoned). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => Failure): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new AttemptEnded(onAbort()));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/**
 * Kept-alive connections, one pool per checked address (and host name and port): a pooled socket only ever carries
 * deliveries whose own check resolved to the address it is connected to, so the rebinding check holds, while a burst
 * to one receiver reuses a few connections instead of opening one per delivery (at hundreds a second those exhaust the
 * ephemeral ports in TIME_WAIT, and each connect costs the main thread). An idle socket is closed after IDLE_SOCKET_MS,
 * below the usual servers' keep-alive (5 s for Node and Apache), so a receiver rarely closes one under a request.
 */
const MAX_POOLS = 256;
const IDLE_SOCKET_MS = 2_000;
const pools = new Map<string, HttpAgent>();

function poolFor(url: URL, address: string): HttpAgent {
  const key = `${url.protocol}//${url.hostname}:${url.port}@${address}`;
  let agent = pools.get(key);
  if (agent) {
    // Most recently used last, so the oldest pool is the one dropped.
    pools.delete(key);
    pools.set(key, agent);
    return agent;
  }
  const options = { keepAlive: true, maxSockets: 16, maxFreeSockets: 8, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
  agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
  pools.set(key, agent);
  if (pools.size > MAX_POOLS) {
    const [oldest, dropped] = pools.entries().next().value!;
    pools.delete(oldest);
    dropped.destroy();
  }
  return agent;
}

/**
 * Sends the POST and resolves with the answer's status once at most `maxBytes` of its body are read (or it ends, or
 * the deadline comes while reading it: the status is the answer). Rejects with AttemptEnded when no answer came.
 */
function exchange(
  url: URL,
  target: { address: string; family: 4 | 6 },
  headers: Record<string, string | number>,
  body: string,
  maxBytes: number,
  signal: AbortSignal,
  onAbort: () => Failure,
  pooled: boolean,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let answered: number | null = null;
    let settled = false;
    /** `whole`: the answer was read to its end, so its socket may serve the next delivery. */
    const end = (outcome: { status: number } | { failure: Failure }, whole = false) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', stop);
      // Anything but a whole answer leaves the socket unusable: destroying it is also how a too-long or endless body is cut off.
      if (!whole) req.destroy();
      if ('status' in outcome) resolve(outcome.status);
      else reject(new AttemptEnded(outcome.failure));
    };
    const stop = () => end(answered !== null ? { status: answered } : { failure: onAbort() });
    const afterError = (error: Error) => {
      // A kept-alive socket the receiver closed just as this request went out: not the receiver's answer, try anew.
      if (answered === null && req.reusedSocket && !settled) return void retryFresh();
      end(answered !== null ? { status: answered } : { failure: { kind: 'network', error } });
    };
    const retryFresh = () => {
      settled = true;
      signal.removeEventListener('abort', stop);
      exchange(url, target, headers, body, maxBytes, signal, onAbort, false).then(resolve, reject);
    };

    // url keeps the host name, so TLS sends it as SNI and checks the certificate against it; only the address
    // lookup is pinned, and the pool is the checked address's own (poolFor).
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const agent = pooled ? poolFor(url, target.address) : false;
    const req = send(url, { method: 'POST', headers, agent, lookup: pinnedLookup(target.address, target.family) }, (res) => {
      answered = res.statusCode ?? 0;
      const status = answered;
      let read = 0;
      if (maxBytes <= 0) return end({ status });
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= maxBytes) end({ status });
      });
      res.on('end', () => end({ status }, true));
      res.on('error', () => end({ status }));
      res.on('close', () => end({ status }));
    });
    req.on('error', afterError);
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    req.end(body);
  });
}

/** The request's headers: the caller's, lower-cased, under the ones that frame the request. */
function requestHeaders(given: Record<string, string>, body: string): Record<string, string | number> {
  const headers: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    if (!FRAMING.has(lower)) headers[lower] = value;
  }
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(body);
  headers['user-agent'] = USER_AGENT;
  return headers;
}

/** One delivery attempt to `req.url` (see the top of this module). Never throws. */
export async function postWebhook(req: WebhookPost): Promise<WebhookAttempt> {
  const started = performance.now();
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const result = (status: number | null, error: string | null): WebhookAttempt => ({
    ok: error === null,
    status,
    error,
    durationMs: Math.round(performance.now() - started),
  });

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const cancel = () => deadline.abort();
  req.signal?.addEventListener('abort', cancel, { once: true });
  if (req.signal?.aborted) cancel();
  // Which of the two ended it: the caller's signal, or the clock.
  const ended = (resolving: boolean) => (): Failure => (req.signal?.aborted ? { kind: 'cancelled' } : { kind: 'timeout', resolving });

  let where = 'the receiver';
  try {
    // Rows written under other rules (or by hand) are checked again here, not trusted.
    const problem = webhookUrlProblem(req.url, { allowPrivate: req.allowPrivate });
    if (problem) return result(null, problem);
    const url = new URL(req.url);
    where = url.host;
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const target = await untilAborted(
      resolveWebhookAddress(hostname, { allowPrivate: req.allowPrivate, ...(req.lookup ? { lookup: req.lookup } : {}) }),
      deadline.signal,
      ended(true),
    );
    if (target.address !== hostname) where = `${url.host} (${target.address})`;
    const status = await exchange(
      url,
      target,
      requestHeaders(req.headers, req.body),
      req.body,
      maxBytes,
      deadline.signal,
      ended(false),
      true,
    );
    return result(status, describeAnswer(status));
  } catch (e) {
    if (e instanceof AttemptEnded) return result(null, describeFailure(e.failure, where, timeoutMs));
    if (e instanceof WebhookAddressError) return result(null, e.message);
    // Whatever else: a header value node refuses, an error inside node. Said, not thrown.
    return result(null, describeFailure({ kind: 'network', error: e as NodeJS.ErrnoException }, where, timeoutMs));
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', cancel);
  }
}
