// Who may change things through the localhost server: every POST, PUT, PATCH and DELETE carries the data dir's API
// token (`Authorization: Bearer …`) or the browser session cookie that a one-time login link sets (the way Jupyter
// lets its page in). Key management (generate, import, export, node and service URLs) is a further door that stays
// shut unless `txdesk serve --allow-key-routes` opened it. GETs stay open to local tools.
import { createHmac, randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { TxdeskError } from '../../../shared/errors.js';

export interface AppServerAuth {
  token: string;
  /** Where the token is kept; every 401 names it. */
  tokenFile: string;
  /** True only for `txdesk serve --allow-key-routes`: key and node/service URL changes over HTTP. */
  keyRoutes: boolean;
}

/** The routes that manage the key; with `keyRoutes` off they answer 403 whatever the token. */
export const keyRouteNames = new Set(['generateKey', 'importKey', 'exportKey']);
/** Settings that decide where the app sends signed transactions and whom it trusts: key-route rules apply. */
export const keySettingNames = ['nodeUrl', 'serviceUrl'] as const;

/** The query parameter of the login link. */
export const LOGIN_PARAM = 'login';
/** 30 days: the cookie is derived from the token, so it stays good as long as the token file does. */
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

export function isStateChanging(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
}

/** Cookies are per host, not per port: the port in the name keeps two local servers from overwriting each other. */
export function sessionCookieName(port: number): string {
  return `txdesk-session-${port}`;
}

/** The cookie's value: derived from the token (stable across restarts) but not the token itself. */
export function sessionCookieValue(token: string): string {
  return createHmac('sha256', token).update('txdesk browser session v1').digest('base64url');
}

function same(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

function cookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** True when the request carries the browser session cookie of this server. */
export function hasSession(headers: IncomingHttpHeaders, auth: AppServerAuth, port: number): boolean {
  const value = cookie(headers, sessionCookieName(port));
  return value !== undefined && same(value, sessionCookieValue(auth.token));
}

/** Null when the request may proceed; otherwise the 401 to send. Only state-changing methods are checked. */
export function checkToken(method: string, headers: IncomingHttpHeaders, auth: AppServerAuth, port: number): TxdeskError | null {
  if (!isStateChanging(method)) return null;
  if (hasSession(headers, auth, port)) return null;
  const header = headers.authorization;
  if (header === undefined) {
    return new TxdeskError(
      'UNAUTHORIZED',
      `This request changes something and needs the API token: send "Authorization: Bearer <token>" with the token in ${auth.tokenFile} (in a browser, open the login link txdesk serve printed).`,
    );
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m || !same(m[1]!, auth.token)) {
    return new TxdeskError('UNAUTHORIZED', `The API token is wrong: send "Authorization: Bearer <token>" with the token in ${auth.tokenFile}.`);
  }
  return null;
}

/** The 403 for key management over HTTP when it is not turned on. */
export function keyRoutesOff(what: string): TxdeskError {
  return new TxdeskError(
    'FORBIDDEN',
    `${what} is not available over the localhost API: use the desktop app's window, or restart txdesk serve with --allow-key-routes.`,
  );
}

/** Null when a settings patch may go through HTTP; otherwise the 403 naming the key-route settings it holds. */
export function checkSettingsPatch(body: unknown, auth: AppServerAuth): TxdeskError | null {
  if (auth.keyRoutes || !body || typeof body !== 'object') return null;
  const named = keySettingNames.filter((k) => Object.hasOwn(body, k));
  return named.length ? keyRoutesOff(`Changing ${named.join(' and ')}`) : null;
}

/**
 * The one-time login of the browser UI: the printed URL carries `?login=<code>`; the first request with it gets the
 * session cookie and a redirect to the clean URL. The code works once; the token itself (`?login=<token>`) always
 * works, for a second browser.
 */
export function createLogin(auth: AppServerAuth, port: () => number) {
  let code: string | null = randomBytes(24).toString('base64url');
  const codeOnce = code;
  return {
    /** The URL to print, on `origin`. */
    url: (origin: string) => `${origin}/?${LOGIN_PARAM}=${codeOnce}`,
    /** Handles a GET carrying `?login=`; returns false for any other request. */
    handle(method: string, url: URL, headers: IncomingHttpHeaders, res: ServerResponse): boolean {
      if ((method !== 'GET' && method !== 'HEAD') || !url.searchParams.has(LOGIN_PARAM)) return false;
      const given = url.searchParams.get(LOGIN_PARAM) ?? '';
      const clean = new URL(url);
      clean.searchParams.delete(LOGIN_PARAM);
      const location = `${clean.pathname}${clean.search}`;
      const fresh = code !== null && same(given, code);
      if (fresh) code = null;
      if (fresh || same(given, auth.token)) {
        res.writeHead(302, {
          location,
          'set-cookie': `${sessionCookieName(port())}=${sessionCookieValue(auth.token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MAX_AGE_S}`,
          'cache-control': 'no-store',
          'content-length': 0,
        });
        res.end();
        return true;
      }
      if (hasSession(headers, auth, port())) {
        // Already signed in (a reopened tab of the printed link): just drop the spent code from the address bar.
        res.writeHead(302, { location, 'cache-control': 'no-store', 'content-length': 0 });
        res.end();
        return true;
      }
      throw new TxdeskError(
        'UNAUTHORIZED',
        `This login link was already used or is wrong: open the link txdesk serve printed at its last start, or add ?${LOGIN_PARAM}=<the token in ${auth.tokenFile}> to the address.`,
      );
    },
  };
}
