// DesktopApi over the localhost server of `txdesk serve`: calls go to `httpRoutes` with fetch, pushed events arrive on
// one server-sent-events stream. The renderer cannot tell this from the Electron preload.
import { httpRoutes, type AppStatus, type DesktopApi, type DevchainStatus, type Unsubscribe } from '../../../shared/desktop-api.js';
import type { TokenQuery } from '../../../shared/listing.js';
import type { TxRecord } from '../../../shared/tx-record.js';
import { ApiError } from './api-error.js';

/** The part of EventSource this bridge uses, so tests can hand in a fake. */
export interface EventSourceLike {
  addEventListener(type: string, listener: (event: { data?: unknown }) => void): void;
  close(): void;
  /** 0 connecting, 1 open, 2 closed (the browser gave up: this bridge opens a new one). */
  readonly readyState?: number;
}

/** Whether pushed events can arrive: `down` while the stream is lost and the browser (or this bridge) reconnects. */
export type StreamState = 'connecting' | 'up' | 'down';

/** The event stream's state, where there is one to lose; IPC events from main cannot drop, so Electron has none. */
export interface StreamWatch {
  streamState(): StreamState;
  onStreamState(listener: (state: StreamState) => void): Unsubscribe;
}

/** The browser bridge: the DesktopApi plus the state of its event stream. */
export interface HttpBridge extends DesktopApi, StreamWatch {}

export interface HttpApiOptions {
  /** Origin of the localhost server; '' for the page's own origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
  openEvents: (url: string) => EventSourceLike;
  /** How long to wait before opening a new stream after the browser gave one up; 3 s by default. */
  reopenAfterMs?: number;
}

/** Routes that answer JSON; `events` is the SSE stream and `tokenImage` is loaded by <img> tags (lib/token-image.ts). */
type RouteName = Exclude<keyof typeof httpRoutes, 'events' | 'tokenImage'>;

function buildPath(name: RouteName | 'events', params: Record<string, string> = {}): { method: string; path: string } {
  const [method, pattern] = httpRoutes[name].split(' ') as [string, string];
  const path = pattern.replace(/:([a-zA-Z]+)/g, (_m, key: string) => encodeURIComponent(params[key] ?? ''));
  return { method, path };
}

export function tokenSearchParams(query: TokenQuery): URLSearchParams {
  const qs = new URLSearchParams();
  if (query.page !== undefined) qs.set('page', String(query.page));
  if (query.size !== undefined) qs.set('size', String(query.size));
  if (query.order_by) qs.set('order_by', query.order_by);
  if (query.order_direction) qs.set('order_direction', query.order_direction);
  if (query.contractAddresses && query.contractAddresses.length > 0) qs.set('contractAddresses', query.contractAddresses.join(','));
  return qs;
}

export function createHttpApi(options: HttpApiOptions): HttpBridge {
  const base = options.baseUrl ?? '';
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));

  async function request<T>(name: RouteName, opts: { params?: Record<string, string>; query?: URLSearchParams; body?: unknown } = {}): Promise<T> {
    const { method, path } = buildPath(name, opts.params);
    const qs = opts.query?.toString();
    let res: Response;
    try {
      res = await doFetch(`${base}${path}${qs ? `?${qs}` : ''}`, {
        method,
        // The session cookie of the login link authorizes writes; it goes to our own origin only.
        credentials: 'same-origin',
        headers: opts.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch {
      throw new ApiError('NETWORK', 'The app server is not reachable; check that `txdesk serve` is still running, then retry.');
    }
    let body: unknown = null;
    const text = await res.text();
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    if (!res.ok) {
      const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      if (err && typeof err.code === 'string' && typeof err.message === 'string') throw new ApiError(err.code as ApiError['code'], err.message);
      throw new ApiError('INTERNAL', `The app server answered ${res.status}; try again.`);
    }
    return body as T;
  }

  // One event stream for all subscribers, opened on first use and closed when the last one leaves.
  const txListeners = new Set<(r: TxRecord) => void>();
  const devchainListeners = new Set<(s: DevchainStatus) => void>();
  const statusListeners = new Set<(s: AppStatus) => void>();
  let source: EventSourceLike | null = null;
  let opened = false;
  let reopenTimer: ReturnType<typeof setTimeout> | null = null;
  const streamListeners = new Set<(s: StreamState) => void>();
  let stream: StreamState = 'connecting';
  const setStream = (next: StreamState) => {
    if (next === stream) return;
    stream = next;
    streamListeners.forEach((l) => l(next));
  };

  const emitTx = (r: TxRecord) => txListeners.forEach((l) => l(r));
  const emitDevchain = (s: DevchainStatus) => devchainListeners.forEach((l) => l(s));
  const emitStatus = (s: AppStatus) => statusListeners.forEach((l) => l(s));
  const parse = (data: unknown): unknown => {
    try {
      return typeof data === 'string' ? JSON.parse(data) : null;
    } catch {
      return null;
    }
  };

  function ensureSource() {
    if (source) return;
    const { path } = buildPath('events');
    const es = options.openEvents(`${base}${path}`);
    source = es;
    es.addEventListener('tx', (e) => {
      const r = parse(e.data) as TxRecord | null;
      if (r && typeof r.transactionHash === 'string') emitTx(r);
    });
    es.addEventListener('devchain', (e) => {
      const s = parse(e.data) as DevchainStatus | null;
      if (s && typeof s.blockNumber === 'number') emitDevchain(s);
    });
    es.addEventListener('status', (e) => {
      const s = parse(e.data) as AppStatus | null;
      if (s && typeof s.tracker === 'object' && typeof s.node === 'object') emitStatus(s);
    });
    es.addEventListener('open', () => {
      setStream('up');
      // Whatever changed while the stream was away is fetched once.
      if (opened) void resync();
      opened = true;
    });
    es.addEventListener('error', () => {
      if (source !== es) return;
      setStream('down');
      // The browser retries a dropped stream by itself; one it gave up on (a refused or failed response) is replaced.
      if (es.readyState === 2 && !reopenTimer) {
        es.close();
        source = null;
        reopenTimer = setTimeout(() => {
          reopenTimer = null;
          if (hasListeners()) ensureSource();
        }, options.reopenAfterMs ?? 3_000);
      }
    });
  }

  const hasListeners = () => txListeners.size > 0 || devchainListeners.size > 0 || statusListeners.size > 0;

  async function resync() {
    try {
      if (txListeners.size > 0) (await api.listTransactions()).forEach(emitTx);
      if (devchainListeners.size > 0) {
        const s = await api.getDevchainStatus();
        if (s) emitDevchain(s);
      }
      if (statusListeners.size > 0) emitStatus((await api.getAppInfo()).status);
    } catch {
      // The stream's next reconnect tries again.
    }
  }

  function maybeClose() {
    if (hasListeners()) return;
    if (reopenTimer) clearTimeout(reopenTimer);
    reopenTimer = null;
    source?.close();
    source = null;
    opened = false;
    setStream('connecting');
  }

  function subscribe<T>(set: Set<(v: T) => void>, listener: (v: T) => void): Unsubscribe {
    set.add(listener);
    ensureSource();
    return () => {
      set.delete(listener);
      maybeClose();
    };
  }

  const api: HttpBridge = {
    streamState: () => stream,
    onStreamState(listener) {
      streamListeners.add(listener);
      return () => streamListeners.delete(listener);
    },
    getAppInfo: () => request('getAppInfo'),
    listTransactions: () => request('listTransactions'),
    getTransaction: (hash) => request('getTransaction', { params: { hash } }),
    generateTransaction: () => request('generateTransaction'),
    cancelTransaction: (hash) => request('cancelTransaction', { params: { hash } }),
    speedUpTransaction: (hash) => request('speedUpTransaction', { params: { hash } }),
    onTransactionChanged: (listener) => subscribe(txListeners, listener),
    listTokens: (owner, query) => request('listTokens', { params: { address: owner }, query: tokenSearchParams(query) }),
    resolveTokenMetadata: (uris) => request('resolveTokenMetadata', { body: { uris } }),
    refreshToken: (contract, tokenId) => request('refreshToken', { params: { contract, id: tokenId } }),
    getSettings: () => request('getSettings'),
    updateSettings: (patch) => request('updateSettings', { body: patch }),
    signIn: (credentials) => request('signIn', { body: credentials }),
    restart: () => request('restart'),
    getKeyInfo: () => request('getKeyInfo'),
    generateKey: (input) => request('generateKey', input === undefined ? {} : { body: input }),
    importKey: (input) => request('importKey', { body: input }),
    exportKey: (input) => request('exportKey', { body: input }),
    getDevchainStatus: () => request('getDevchainStatus'),
    setCongestion: (level) => request('setCongestion', { body: { level } }),
    onDevchainStatus: (listener) => subscribe(devchainListeners, listener),
    onAppStatus: (listener) => subscribe(statusListeners, listener),
  };
  return api;
}
