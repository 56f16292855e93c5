// One self-healing JSON-RPC connection to the tracker: connects, reconnects with capped exponential backoff and
// jitter (moving to the next of several service URLs on every loss), replays unanswered requests, and tells a
// 401/404 refusal (fatal) from an outage (retried).
import WebSocket from 'ws';
import { TrackerError, type TrackerErrorFacts } from './tracker-errors.js';

/** The part of a WebSocket the SDK uses; `ws` and WHATWG sockets both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: each runtime's WebSocket passes its own event type; the client reads only what it checks.
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (ev: any) => void): void;
}

export type SocketFactory = (url: string) => WebSocketLike;

export interface ConnectionOptions {
  /** One or more tracker URLs of one fleet (same database); a lost or failed connection moves on to the next. */
  urls: readonly string[];
  socketFactory?: SocketFactory;
  requestTimeoutMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  heartbeatMs: number;
  /** Called on every (re)open before queued requests go out: re-subscribe here. */
  onOpen(): void;
  onPush(frame: { id: string; result: unknown }): void;
  /** Connection trouble: fatal errors stop the connection for good. */
  onError(error: TrackerError): void;
}

interface Pending {
  frame: string;
  resolve(result: unknown): void;
  reject(error: TrackerError): void;
  timer: NodeJS.Timeout;
  sent: boolean;
}

const OPEN = 1;
/** Well under the service's batch (1000) and frame (256 KiB) limits. */
const MAX_REQUESTS_PER_FRAME = 500;

export class TrackerConnection {
  private socket: WebSocketLike | null = null;
  private state: 'idle' | 'connecting' | 'open' | 'waiting' | 'closed' | 'failed' = 'idle';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private heartbeatId: number | null = null;
  private fatal: TrackerError | null = null;
  private closedWaiters: (() => void)[] = [];
  private flushScheduled = false;

  /** Which of `o.urls` the current (or next) socket goes to. */
  private urlIndex = 0;

  constructor(private readonly o: ConnectionOptions) {
    if (o.urls.length === 0) throw new Error('TrackerConnection needs at least one URL');
  }

  /** The URL being used, without its query: the clientId rides in the query and must never reach an error or a log. */
  private get where(): string {
    return withoutQuery(this.o.urls[this.urlIndex]!);
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** The refusal that stopped this connection for good (bad clientId, wrong network), if any. */
  get failure(): TrackerError | null {
    return this.fatal;
  }

  /** Starts connecting if idle. */
  ensure(): void {
    if (this.state === 'idle') this.connect();
  }

  /** Sends a request now or after the next (re)connect; rejects on a JSON-RPC error, timeout, refusal or close. */
  request(method: string, params: unknown[], opts: { timeoutMs?: number } = {}): Promise<unknown> {
    if (this.fatal) return Promise.reject(this.fatal);
    if (this.state === 'closed')
      return Promise.reject(new TrackerError('CLOSED', 'The tracker is closed; create a new TransactionTracker.'));
    const id = this.nextId++;
    const frame = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return new Promise((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? this.o.requestTimeoutMs;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          this.state === 'open'
            ? new TrackerError('TIMEOUT', `The tracker did not answer ${method} within ${timeoutMs} ms; try again.`)
            : new TrackerError(
                'UNREACHABLE',
                `Cannot reach the txdesk tracker at ${this.where}; check that the data service is running (${method} was not sent).`,
                true,
                undefined,
                {
                  reason: 'NOT_SENT',
                  url: this.where,
                },
              ),
        );
      }, timeoutMs);
      this.pending.set(id, { frame, resolve, reject, timer, sent: false });
      this.ensure();
      if (this.state === 'open') this.scheduleFlush();
    });
  }

  /** Fire-and-forget frame, only while open. */
  notify(method: string, params: unknown[]): void {
    if (this.state === 'open' && this.socket?.readyState === OPEN) this.socket.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  close(): Promise<void> {
    if (this.state === 'closed') return Promise.resolve();
    const wasSocket = this.socket;
    this.state = 'closed';
    this.clearTimers();
    this.failAll(new TrackerError('CLOSED', 'The tracker was closed before an answer arrived.'));
    if (!wasSocket || wasSocket.readyState === 3) return Promise.resolve();
    return new Promise((resolve) => {
      this.closedWaiters.push(resolve);
      wasSocket.close(1000, 'client closing');
      setTimeout(resolve, 1000).unref();
    });
  }

  private connect(): void {
    if (this.state === 'closed' || this.state === 'failed') return;
    this.state = 'connecting';
    let socket: WebSocketLike;
    let refusal: TrackerError | null = null;
    const url = this.o.urls[this.urlIndex]!;
    try {
      if (this.o.socketFactory) socket = this.o.socketFactory(url);
      else {
        const ws = new WebSocket(url, { handshakeTimeout: 10_000, perMessageDeflate: false });
        ws.on('unexpected-response', (_req, res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            refusal = refusalError(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), url);
            ws.terminate();
          });
          res.on('error', () => ws.terminate());
        });
        socket = ws as unknown as WebSocketLike;
      }
    } catch (e) {
      this.fail(
        new TrackerError(
          'INVALID_OPTIONS',
          `Cannot open a WebSocket to ${this.where}: ${e instanceof Error ? e.message : String(e)}.`,
          false,
          undefined,
          { option: 'options.url', url: this.where },
        ),
      );
      return;
    }
    this.socket = socket;
    let lastError = '';
    socket.addEventListener('open', () => {
      if (this.socket !== socket) return;
      this.state = 'open';
      this.attempt = 0;
      for (const p of this.pending.values()) p.sent = false;
      this.o.onOpen();
      this.flush();
      this.startHeartbeat();
    });
    socket.addEventListener('message', (ev: { data: unknown }) => {
      if (this.socket === socket) this.onMessage(typeof ev.data === 'string' ? ev.data : String(ev.data));
    });
    socket.addEventListener('error', (ev: { message?: string; error?: Error }) => {
      lastError = ev?.error?.message ?? ev?.message ?? lastError;
    });
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.stopHeartbeat();
      for (const w of this.closedWaiters.splice(0)) w();
      if (this.state === 'closed') return;
      if (refusal && !refusal.retryable) return this.fail(refusal);
      const wasOpen = this.state === 'open';
      this.state = 'waiting';
      const lost = this.where;
      const next = nextAttempt(this.attempt++, this.urlIndex, this.o.urls.length);
      this.urlIndex = next.urlIndex;
      const delay = backoff(next.round, this.o.initialBackoffMs, this.o.maxBackoffMs);
      const retryInMs = Math.round(delay);
      const facts: TrackerErrorFacts = refusal
        ? { ...pickFacts(refusal), url: lost, retryInMs, nextUrl: this.where }
        : wasOpen
          ? { reason: 'CONNECTION_DROPPED', url: lost, retryInMs, nextUrl: this.where }
          : {
              reason: 'CONNECT_FAILED',
              ...(lastError ? { detail: withoutQueries(lastError) } : {}),
              url: lost,
              retryInMs,
              nextUrl: this.where,
            };
      const why = refusal
        ? refusal.message
        : wasOpen
          ? 'the connection dropped'
          : `cannot connect${facts.detail ? ` (${facts.detail})` : ''}`;
      const to = this.o.urls.length > 1 ? ` to ${this.where}` : '';
      this.o.onError(
        new TrackerError(
          'UNREACHABLE',
          `Lost the txdesk tracker at ${lost}: ${why}; reconnecting${to} in ${retryInMs} ms.`,
          true,
          undefined,
          facts,
        ),
      );
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.connect();
      }, delay);
    });
  }

  /** Requests made in the same tick (say, acks for a burst of messages) leave together as one JSON-RPC batch. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const s = this.socket;
    if (!s || s.readyState !== OPEN) return;
    let batch: string[] = [];
    const send = () => {
      if (batch.length === 1) s.send(batch[0]!);
      else if (batch.length > 1) s.send(`[${batch.join(',')}]`);
      batch = [];
    };
    for (const p of this.pending.values()) {
      if (p.sent) continue;
      p.sent = true;
      batch.push(p.frame);
      if (batch.length >= MAX_REQUESTS_PER_FRAME) send();
    }
    send();
  }

  private onMessage(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (typeof m !== 'object' || m === null) continue;
      const f = m as { id?: unknown; result?: unknown; error?: { code?: number; message?: string } };
      if (typeof f.id === 'string' && f.result !== undefined) {
        this.o.onPush({ id: f.id, result: f.result });
        continue;
      }
      if (typeof f.id !== 'number') {
        if (f.error)
          this.o.onError(
            new TrackerError('RPC_ERROR', `The tracker rejected a frame: ${f.error.message ?? 'unknown error'}.`, false, f.error.code),
          );
        continue;
      }
      if (f.id === this.heartbeatId) {
        this.heartbeatId = null;
        continue;
      }
      const p = this.pending.get(f.id);
      if (!p) continue;
      this.pending.delete(f.id);
      clearTimeout(p.timer);
      if (f.error) p.reject(new TrackerError('RPC_ERROR', f.error.message ?? 'The tracker refused the request.', false, f.error.code));
      else p.resolve(f.result);
    }
  }

  /** A HEARTBEAT with an id doubles as a liveness probe: no answer by the next beat means a dead socket. */
  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeatTimer = setInterval(() => {
      const s = this.socket;
      if (!s || s.readyState !== OPEN) return;
      if (this.heartbeatId !== null) {
        this.heartbeatId = null;
        s.close(4000, 'heartbeat unanswered');
        return;
      }
      this.heartbeatId = this.nextId++;
      s.send(JSON.stringify({ jsonrpc: '2.0', id: this.heartbeatId, method: 'HEARTBEAT', params: [] }));
    }, this.o.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.heartbeatId = null;
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.stopHeartbeat();
  }

  private fail(error: TrackerError): void {
    this.fatal = error;
    this.state = 'failed';
    this.clearTimers();
    this.failAll(error);
    this.o.onError(error);
  }

  private failAll(error: TrackerError): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
  }
}

/**
 * Where and how patiently to reconnect after the `attempt`-th loss in a row: always the next URL (a fleet's
 * instances share one database, so any of them resumes the subscription), and the backoff grows only once every
 * URL has failed in this streak, so one dead instance costs about `initialBackoffMs`, not a doubling ladder.
 */
export function nextAttempt(attempt: number, urlIndex: number, urlCount: number): { urlIndex: number; round: number } {
  return { urlIndex: (urlIndex + 1) % urlCount, round: Math.floor(attempt / urlCount) };
}

/** Capped exponential backoff with jitter: attempt 0 waits about `initial`, then doubles up to `max`. */
export function backoff(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return base / 2 + (random() * base) / 2;
}

function refusalError(status: number, body: string, url: string): TrackerError {
  let detail = '';
  try {
    detail = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? '';
  } catch {
    detail = '';
  }
  const where = withoutQuery(url);
  if (status === 401) {
    return new TrackerError(
      'UNKNOWN_CLIENT_ID',
      `The tracker at ${where} does not know this clientId; run \`txdesk account:describe\` to see yours and pass it to new TransactionTracker().`,
      false,
    );
  }
  if (status === 404) {
    return new TrackerError('NOT_FOUND', `${detail || `Nothing is served at ${where}`} Check the platform and network options.`, false);
  }
  return new TrackerError('UNREACHABLE', `the service answered HTTP ${status}${detail ? ` (${detail})` : ''}`, true, undefined, {
    reason: 'HTTP_STATUS',
    httpStatus: status,
    ...(detail ? { detail } : {}),
  });
}

/** The facts a refusal passes on to the reconnect error it becomes. */
function pickFacts(e: TrackerError): TrackerErrorFacts {
  const { reason, detail, httpStatus } = e;
  return { ...(reason ? { reason } : {}), ...(detail ? { detail } : {}), ...(httpStatus ? { httpStatus } : {}) };
}

function withoutQuery(url: string): string {
  return url.replace(/\?.*$/, '');
}

/** A socket's error text may quote the URL; its query holds the clientId, which must never reach an error. */
function withoutQueries(text: string): string {
  return text.replace(/(wss?:\/\/[^\s?]*)\?\S*/g, '$1');
}
