// TransactionTracker, the Node client of the transaction tracker (docs/tracker-protocol.md): track hashes, subscribe,
// ack messages; the connection heals itself (backoff, re-subscribe, replay of unanswered requests) and reports trouble
// as `error`.
import { EventEmitter } from 'node:events';
import { TrackerConnection, type SocketFactory, type WebSocketLike } from './tracker-connection.js';
import { TrackerError } from './tracker-errors.js';
import {
  DEFAULT_CONFIRMATION,
  DEFAULT_TIMEOUT_MS,
  MIN_ACK_TIMEOUT_MS,
  checkAckTimeout,
  checkConfirmation,
  checkSubscriptionId,
  checkTimeout,
  checkTxHash,
  type TrackerPayload,
  type TrackerPushFrame,
} from './tracker-wire.js';

export interface TransactionTrackerOptions {
  platform: string;
  network: string;
  /**
   * Base URL of the data service, e.g. http://127.0.0.1:4000 (ws:// and wss:// work too), or a list of the URLs of
   * one fleet's instances (one database): on a lost connection the tracker moves to the next and re-subscribes.
   */
  url: string | readonly string[];
  /** A WebSocket constructor to use instead of `ws` (e.g. a browser's). */
  WebSocket?: new (
    url: string,
  ) => WebSocketLike;
  /** Or a factory, for tests and proxies. Wins over `WebSocket`. */
  socketFactory?: SocketFactory;
  /** Per-request answer timeout (default 30000 ms). */
  requestTimeoutMs?: number;
  /** First reconnect delay (default 250 ms), doubled per failed attempt up to `maxBackoffMs` (default 30000 ms). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Liveness probe period (default 15000 ms). */
  heartbeatMs?: number;
  /** Lowest accepted `ackTimeout`; only lower it against a service started with a lower `minAckTimeoutMs` (tests). */
  minAckTimeout?: number;
}

export interface TrackOptions {
  /** ms without a receipt before `pending` (default 10000). */
  timeout?: number;
  /** blocks on top of the receipt's block before `confirmation` (default 6). */
  confirmation?: number;
}

export interface SubscribeOptions {
  /** Non-numeric string you choose; re-using it after a restart resumes the stored messages. */
  subscriptionId: string;
  /** ms before an un-acked message is delivered again, 10000..600000 (default 10000). */
  ackTimeout?: number;
}

export type TrackerMessageData = TrackerPayload;

export interface TrackerMessage {
  /** The messageId: the same on every redelivery of this message. */
  id: string;
  ackId: string;
  data: TrackerMessageData;
  /** Tells the service the message is processed; without it the message comes again after `ackTimeout`. */
  ack(): Promise<void>;
}

export interface TrackerSubscriptionEvents {
  message: [TrackerMessage];
  error: [TrackerError];
  subscribed: [];
}

/** The emitter `subscribe()` returns: `message`, `error` and `subscribed` (after every (re)subscribe) events. */
export class TrackerSubscription extends EventEmitter<TrackerSubscriptionEvents> {
  /** Settles with the first subscribe answer: rejects when the service refuses the subscription. */
  readonly ready: Promise<void>;
  private settleReady!: { resolve(): void; reject(e: TrackerError): void };
  private active = true;

  constructor(
    readonly subscriptionId: string,
    readonly ackTimeout: number,
    private readonly tracker: TransactionTracker,
  ) {
    super();
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = { resolve, reject };
    });
    this.ready.catch(() => {});
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Stops deliveries and deletes the subscription's stored messages on the service. */
  async unsubscribe(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    await this.tracker._unsubscribe(this);
  }

  /** @internal */
  _subscribed(ok: boolean, error?: TrackerError): void {
    if (ok) {
      this.settleReady.resolve();
      this.emit('subscribed');
    } else {
      this.settleReady.reject(error!);
      this._error(error!);
    }
  }

  /** @internal `error` without listeners would throw in EventEmitter; an unobserved error is dropped instead. */
  _error(error: TrackerError): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }
}

const RETRACK_FOR_MS = 24 * 60 * 60 * 1000;
const MAX_REMEMBERED = 100_000;

export class TransactionTracker extends EventEmitter<{ error: [TrackerError]; connected: [] }> {
  private readonly connection: TrackerConnection;
  private readonly subscriptions = new Map<string, TrackerSubscription>();
  /** Hashes tracked through this object and not yet seen confirmed, re-tracked after a reconnect. */
  private readonly tracked = new Map<string, { confirmation: number; timeout: number; atMs: number }>();
  private readonly minAckTimeout: number;
  private closed = false;

  constructor(
    readonly clientId: string,
    options: TransactionTrackerOptions,
  ) {
    super();
    if (typeof clientId !== 'string' || clientId.trim().length === 0) {
      throw invalidOption('clientId', 'clientId is missing; run `txdesk account:describe` to see yours.');
    }
    const o = options ?? ({} as TransactionTrackerOptions);
    for (const key of ['platform', 'network'] as const) {
      if (typeof o[key] !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(o[key])) {
        throw invalidOption(`options.${key}`, `options.${key} must be a name like "ethereum" or "local".`);
      }
    }
    const urls = trackerUrls(o.url, o.platform, o.network, clientId);
    this.minAckTimeout = positiveInt(o.minAckTimeout, 'minAckTimeout', MIN_ACK_TIMEOUT_MS);
    const factory: SocketFactory | undefined = o.socketFactory ?? (o.WebSocket ? (u) => new o.WebSocket!(u) : undefined);
    this.connection = new TrackerConnection({
      urls,
      ...(factory ? { socketFactory: factory } : {}),
      requestTimeoutMs: positiveInt(o.requestTimeoutMs, 'requestTimeoutMs', 30_000),
      initialBackoffMs: positiveInt(o.initialBackoffMs, 'initialBackoffMs', 250),
      maxBackoffMs: positiveInt(o.maxBackoffMs, 'maxBackoffMs', 30_000),
      heartbeatMs: positiveInt(o.heartbeatMs, 'heartbeatMs', 15_000),
      onOpen: () => this.resubscribeAll(),
      onPush: (f) => this.onPush(f),
      onError: (e) => this.onConnectionError(e),
    });
  }

  /** Connects now (otherwise the first call connects). Resolves when the service accepted the clientId. */
  async connect(): Promise<void> {
    await this.connection.request('HEARTBEAT', []);
  }

  /** Starts tracking `hash` for this clientId; messages go to every subscription of the clientId. */
  async trackTransaction(hash: string, options: TrackOptions = {}): Promise<void> {
    const h = checkTxHash(hash, 'hash');
    if (!h.ok) throw invalidOption('hash', h.message);
    const c = checkConfirmation(options.confirmation ?? DEFAULT_CONFIRMATION, 'options.confirmation');
    if (!c.ok) throw invalidOption('options.confirmation', c.message);
    const t = checkTimeout(options.timeout ?? DEFAULT_TIMEOUT_MS, 'options.timeout');
    if (!t.ok) throw invalidOption('options.timeout', t.message);
    await this.connection.request('track_transaction', [h.value, { confirmation: c.value, timeout: t.value }]);
    this.tracked.set(h.value, { confirmation: c.value, timeout: t.value, atMs: Date.now() });
    if (this.tracked.size > MAX_REMEMBERED) this.tracked.delete(this.tracked.keys().next().value!);
  }

  /**
   * Subscribes to the clientId's tracker messages. Invalid options throw at once; refusals and connection trouble
   * arrive as `error` events. Subscribing again with the same id returns the same emitter.
   */
  subscribe(topic: 'transaction', options: SubscribeOptions): TrackerSubscription {
    if (topic !== 'transaction') throw invalidOption('topic', 'The only topic is "transaction".');
    if (this.closed) throw new TrackerError('CLOSED', 'The tracker is closed; create a new TransactionTracker.', false);
    const id = checkSubscriptionId(options?.subscriptionId, 'options.subscriptionId');
    if (!id.ok) throw invalidOption('options.subscriptionId', id.message);
    const ack = checkAckTimeout(options.ackTimeout, this.minAckTimeout, 'options.ackTimeout');
    if (!ack.ok) throw invalidOption('options.ackTimeout', ack.message);
    const existing = this.subscriptions.get(id.value);
    if (existing) return existing;
    const sub = new TrackerSubscription(id.value, ack.value, this);
    this.subscriptions.set(id.value, sub);
    const failure = this.connection.failure;
    // After a refusal nothing will connect again: say so on the new emitter, once its listeners are attached.
    if (failure) setImmediate(() => sub._subscribed(false, failure));
    else if (this.connection.isOpen) this.sendSubscribe(sub);
    else this.connection.ensure();
    return sub;
  }

  /** Closes the connection for good; pending calls reject with CLOSED. Stored messages stay on the service. */
  async close(): Promise<void> {
    this.closed = true;
    this.subscriptions.clear();
    await this.connection.close();
  }

  /** @internal */
  async _unsubscribe(sub: TrackerSubscription): Promise<void> {
    if (this.subscriptions.get(sub.subscriptionId) === sub) this.subscriptions.delete(sub.subscriptionId);
    await this.connection.request('tracker_unsubscribe', [sub.subscriptionId]);
  }

  /**
   * On every (re)connect: re-subscribe, and track again what this tracker tracked and has not seen confirmed, in
   * case the service lost it (a dev service on a temporary data dir, say). Tracking again is idempotent; entries are
   * dropped after a day, before the service forgets ended trackings and a re-track could start one anew.
   */
  private resubscribeAll(): void {
    for (const sub of this.subscriptions.values()) this.sendSubscribe(sub);
    const stale = Date.now() - RETRACK_FOR_MS;
    for (const [hash, o] of this.tracked) {
      if (o.atMs < stale) {
        this.tracked.delete(hash);
        continue;
      }
      this.connection.request('track_transaction', [hash, { confirmation: o.confirmation, timeout: o.timeout }]).catch(() => {});
    }
    this.emit('connected');
  }

  private sendSubscribe(sub: TrackerSubscription): void {
    this.connection.request('tracker_subscribe', [sub.subscriptionId, 'transaction', sub.ackTimeout]).then(
      () => sub._subscribed(true),
      (e: TrackerError) => {
        // Connection-level failures are reported once, by onConnectionError; a refusal belongs to this subscription.
        if (e.code === 'RPC_ERROR' || e.code === 'TIMEOUT') sub._subscribed(false, e);
      },
    );
  }

  private onPush(frame: { id: string; result: unknown }): void {
    const sub = this.subscriptions.get(frame.id);
    const r = frame.result as TrackerPushFrame['result'];
    if (!sub || !r || typeof r.ackId !== 'string' || typeof r.messageId !== 'string' || !r.payload) return;
    const ackId = r.ackId;
    if (r.payload.type === 'confirmation') this.tracked.delete(r.payload.result.transactionHash);
    let acked: Promise<void> | null = null;
    const message: TrackerMessage = {
      id: r.messageId,
      ackId,
      data: r.payload,
      ack: () => {
        if (!acked) {
          acked = this.connection.request('ack', [ackId]).then(() => undefined);
          // `void message.ack()` is common; a failed ack only means the message comes again, so never crash the process.
          acked.catch(() => {});
        }
        return acked;
      },
    };
    sub.emit('message', message);
  }

  private onConnectionError(error: TrackerError): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
    for (const sub of this.subscriptions.values()) {
      if (!error.retryable) sub._subscribed(false, error);
      else sub._error(error);
    }
  }
}

const MAX_URLS = 64;

function trackerUrls(base: unknown, platform: string, network: string, clientId: string): string[] {
  if (!Array.isArray(base)) return [trackerUrl(base, 'options.url', platform, network, clientId)];
  if (base.length === 0 || base.length > MAX_URLS) {
    throw invalidOption('options.url', `options.url must be one URL or a list of 1 to ${MAX_URLS} URLs of the data service.`);
  }
  return base.map((b, i) => trackerUrl(b, `options.url[${i}]`, platform, network, clientId));
}

function trackerUrl(base: unknown, name: string, platform: string, network: string, clientId: string): string {
  let u: URL;
  try {
    u = new URL(String(base));
  } catch {
    throw invalidOption(name, `${name} must be the data service URL, e.g. http://127.0.0.1:4000.`);
  }
  if (!/^(https?|wss?):$/.test(u.protocol)) {
    throw invalidOption(name, `${name} must start with http://, https://, ws:// or wss://.`);
  }
  u.protocol = u.protocol === 'https:' || u.protocol === 'wss:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/tracker/${platform}/${network}`;
  u.search = `?clientId=${encodeURIComponent(clientId)}`;
  return u.toString();
}

/** An INVALID_OPTIONS error naming the option at fault: thrown at once, never retried. */
function invalidOption(option: string, message: string): TrackerError {
  return new TrackerError('INVALID_OPTIONS', message, false, undefined, { option });
}

function positiveInt(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw invalidOption(`options.${name}`, `options.${name} must be a positive integer (ms).`);
  }
  return v;
}
