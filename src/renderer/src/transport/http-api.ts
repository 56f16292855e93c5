// DesktopApi over the localhost server of `txdesk serve`: every call of the contract table goes to its route with
// fetch, pushed events arrive on one server-sent-events stream. The renderer cannot tell this from the Electron preload.
// Every request rides on the login cookie; when the server no longer accepts it, the page is handed to the login page.
import {
  callMethods,
  desktopMethods,
  eventMethods,
  extraRoutes,
  splitRoute,
  type ArgPlace,
  type AppEvent,
  type AppInfo,
  type AppSettings,
  type AppStatus,
  type CallMethod,
  type EventMethod,
  type DesktopApi,
  type DevchainStatus,
  type Unsubscribe,
} from '../../../shared/desktop-api.js';
import { tokenQueryString, type TokenQuery } from '../../../shared/listing.js';
import type { ApprovalRequest } from '../../../shared/approvals.js';
import type { TxRecord } from '../../../shared/tx-record.js';
import { ApiError, fieldIssuesOf } from './api-error.js';

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
  /**
   * Called once when the server refuses the session (its token check's 401, which carries `WWW-Authenticate`; a wrong
   * sign-in password is a 401 without it): the cookie is missing or no longer good, so the person must sign in again.
   */
  onUnauthorized?: () => void;
}

/** Method, path (parameters filled in), query string and JSON body of one call, from its table entry. */
export function callRequest(method: CallMethod, args: readonly unknown[]): { method: string; path: string; query: string; body: unknown } {
  const { method: verb, path: pattern } = splitRoute(desktopMethods[method].route);
  const places = desktopMethods[method].args as readonly ArgPlace[];
  const params: Record<string, string> = {};
  let query = '';
  let body: Record<string, unknown> | unknown;
  places.forEach((place, i) => {
    const value = args[i];
    if (place.startsWith('path:')) params[place.slice(5)] = String(value ?? '');
    else if (place === 'query') query = tokenQueryString((value ?? {}) as TokenQuery).toString();
    else if (place.startsWith('body.')) body = { ...(body as object | undefined), [place.slice(5)]: value };
    else body = value;
  });
  const path = pattern.replace(/:([a-zA-Z]+)/g, (_m, key: string) => encodeURIComponent(params[key] ?? ''));
  return { method: verb, path, query, body };
}

export function createHttpApi(options: HttpApiOptions): HttpBridge {
  const base = options.baseUrl ?? '';
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  let signedOut = false;

  async function request<T>(name: CallMethod, args: readonly unknown[]): Promise<T> {
    const { method, path, query, body: payload } = callRequest(name, args);
    let res: Response;
    try {
      res = await doFetch(`${base}${path}${query ? `?${query}` : ''}`, {
        method,
        // The session cookie of the login link authorizes writes; it goes to our own origin only.
        credentials: 'same-origin',
        headers:
          payload === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        body: payload === undefined ? undefined : JSON.stringify(payload),
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
      if (res.status === 401 && res.headers.get('www-authenticate') !== null && !signedOut) {
        signedOut = true;
        options.onUnauthorized?.();
      }
      const err = (body as { error?: { code?: unknown; message?: unknown; fields?: unknown } } | null)?.error;
      if (err && typeof err.code === 'string' && typeof err.message === 'string')
        throw new ApiError(err.code as ApiError['code'], err.message, fieldIssuesOf(err.fields));
      throw new ApiError('INTERNAL', `The app server answered ${res.status}; try again.`);
    }
    return body as T;
  }

  // One event stream for all subscribers, opened on first use and closed when the last one leaves.
  const txListeners = new Set<(r: TxRecord) => void>();
  const devchainListeners = new Set<(s: DevchainStatus) => void>();
  const statusListeners = new Set<(s: AppStatus) => void>();
  const settingsListeners = new Set<(s: AppSettings) => void>();
  const approvalsListeners = new Set<(a: ApprovalRequest[]) => void>();
  const networkListeners = new Set<(i: AppInfo) => void>();
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
  const emitSettings = (s: AppSettings) => settingsListeners.forEach((l) => l(s));
  const parse = (data: unknown): unknown => {
    try {
      return typeof data === 'string' ? JSON.parse(data) : null;
    } catch {
      return null;
    }
  };

  function ensureSource() {
    if (source) return;
    const es = options.openEvents(`${base}${splitRoute(extraRoutes.events).path}`);
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
    es.addEventListener('settings', (e) => {
      const s = parse(e.data) as AppSettings | null;
      if (s && typeof s.policy === 'object' && s.policy !== null) emitSettings(s);
    });
    es.addEventListener('approvals', (e) => {
      const a = parse(e.data) as ApprovalRequest[] | null;
      if (Array.isArray(a)) approvalsListeners.forEach((l) => l(a));
    });
    es.addEventListener('network', (e) => {
      const i = parse(e.data) as AppInfo | null;
      if (i && typeof i.chainId === 'number' && typeof i.network === 'string') networkListeners.forEach((l) => l(i));
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

  const listenersOf: Record<AppEvent, Set<(v: never) => void>> = {
    tx: txListeners,
    devchain: devchainListeners,
    status: statusListeners,
    settings: settingsListeners,
    approvals: approvalsListeners,
    network: networkListeners,
  };
  const events = Object.fromEntries(
    eventMethods.map((m) => [m, (listener: (v: never) => void) => subscribe(listenersOf[desktopMethods[m].event], listener)]),
  ) as unknown as Pick<DesktopApi, EventMethod>;
  const calls = Object.fromEntries(callMethods.map((m) => [m, (...args: unknown[]) => request(m, args)])) as Pick<DesktopApi, CallMethod>;
  const api: HttpBridge = {
    ...calls,
    streamState: () => stream,
    onStreamState(listener) {
      streamListeners.add(listener);
      return () => streamListeners.delete(listener);
    },
    ...events,
  };
  return api;
}
