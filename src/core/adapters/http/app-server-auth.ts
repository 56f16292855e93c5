// Who may use the localhost server: every request (reads too: the history and the data service's client ID are not for
// every local user) carries the data dir's API token (`Authorization: Bearer …`) or the browser session cookie that a
// login sets (the way Jupyter lets its page in: the one-time link, or the token pasted into the login page). Only the
// login page and the renderer's own files answer without. Key management (generate, import, export, node and service
// URLs) is a further door that stays shut unless `txdesk serve --allow-key-routes` opened it.
import { createHmac, randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { TxdeskError } from '../../../shared/errors.js';
import { LOGIN_FIELD, LOGIN_PATH, sendLoginPage } from './app-server-login-page.js';

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
export const keySettingNames = ['nodeUrl', 'serviceUrl', 'nodeUrls'] as const;

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

/**
 * Paths of the API (the table's routes, the event stream, the listing proxy, the OpenAPI document, `/rpc`): never
 * answered without the token. Everything else a GET asks for is a file of the renderer (or its single-page fallback).
 */
export function isApiPath(pathname: string): boolean {
  return /^\/(api|nft)(\/|$)/.test(pathname) || pathname === '/rpc';
}

/** True for what answers without the token: the renderer's files (index.html, its assets, the icon), read only. */
export function opensWithoutToken(method: string, pathname: string): boolean {
  return (method === 'GET' || method === 'HEAD') && !isApiPath(pathname);
}

/** Sent with every 401 of the token check, so a client (the renderer) can tell "sign in again" from a refused password. */
export const unauthorizedHeaders = { 'www-authenticate': 'Bearer realm="txdesk"' } as const;

/** Null when the request may proceed; otherwise the 401 to send. Every method is checked, reads too (`_method` stays for callers). */
export function checkToken(_method: string, headers: IncomingHttpHeaders, auth: AppServerAuth, port: number): TxdeskError | null {
  if (hasSession(headers, auth, port)) return null;
  const header = headers.authorization;
  if (header === undefined) {
    return new TxdeskError(
      'UNAUTHORIZED',
      `This request needs the API token: send "Authorization: Bearer <token>" with the token in ${auth.tokenFile} (in a ` +
        `browser, open ${LOGIN_PATH} on this server and paste it there).`,
    );
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m || !same(m[1]!, auth.token)) {
    return new TxdeskError(
      'UNAUTHORIZED',
      `The API token is wrong: send "Authorization: Bearer <token>" with the token in ${auth.tokenFile}.`,
    );
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

/** The longest login form body read: the token is 43 characters, a form around it far less than this. */
const FORM_LIMIT_BYTES = 4 * 1024;

/** The `token` field of the login form (`application/x-www-form-urlencoded`, what an HTML form posts). */
async function readFormToken(req: IncomingMessage): Promise<string> {
  const type = req.headers['content-type'] ?? '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Past the limit the rest is read and dropped (up to a bound), so the sender gets to read the 413 instead of a reset.
    if (size > 16 * FORM_LIMIT_BYTES) break;
    if (size <= FORM_LIMIT_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > FORM_LIMIT_BYTES)
    throw new TxdeskError('PAYLOAD_TOO_LARGE', `The login form is larger than ${FORM_LIMIT_BYTES} bytes; send only the token field.`);
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new TxdeskError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the login as a form (application/x-www-form-urlencoded) with the field "${LOGIN_FIELD}".`,
    );
  }
  return (new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get(LOGIN_FIELD) ?? '').trim();
}

/**
 * The login of the browser UI. The printed URL carries `?login=<code>`; the first request with it gets the session
 * cookie and a redirect to the clean URL. The code works once; the token itself (`?login=<token>`) always works. A
 * spent or wrong link, and `GET /login` (where the renderer sends a browser whose cookie is gone), show the page where
 * the token is pasted; its form posts to `POST /login` (a form body, never a URL), which sets the same cookie.
 */
export function createLogin(auth: AppServerAuth, port: () => number) {
  let code: string | null = randomBytes(24).toString('base64url');
  const codeOnce = code;
  const sessionCookie = () =>
    `${sessionCookieName(port())}=${sessionCookieValue(auth.token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MAX_AGE_S}`;
  const redirect = (res: ServerResponse, status: number, location: string, cookie: boolean) => {
    res.writeHead(status, {
      location,
      ...(cookie ? { 'set-cookie': sessionCookie() } : {}),
      'cache-control': 'no-store',
      'content-length': 0,
    });
    res.end();
  };
  return {
    /** The URL to print, on `origin`. */
    url: (origin: string) => `${origin}/?${LOGIN_PARAM}=${codeOnce}`,
    /** Answers the login link, `GET /login` and `POST /login`; returns false for any other request. */
    async handle(req: IncomingMessage, method: string, url: URL, res: ServerResponse): Promise<boolean> {
      const read = method === 'GET' || method === 'HEAD';
      if (read && url.searchParams.has(LOGIN_PARAM)) {
        const given = url.searchParams.get(LOGIN_PARAM) ?? '';
        const clean = new URL(url);
        clean.searchParams.delete(LOGIN_PARAM);
        const location = `${clean.pathname}${clean.search}`;
        const fresh = code !== null && same(given, code);
        if (fresh) code = null;
        if (fresh || same(given, auth.token)) redirect(res, 302, location, true);
        // Already signed in (a reopened tab of the printed link): just drop the spent code from the address bar.
        else if (hasSession(req.headers, auth, port())) redirect(res, 302, location, false);
        else sendLoginPage(res, method, 401, auth.tokenFile, 'This login link was already used or is wrong.');
        return true;
      }
      if (url.pathname !== LOGIN_PATH) return false;
      if (read) {
        if (hasSession(req.headers, auth, port())) redirect(res, 302, '/', false);
        else sendLoginPage(res, method, 200, auth.tokenFile, null);
        return true;
      }
      if (method !== 'POST')
        throw new TxdeskError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${LOGIN_PATH}; open it in a browser.`);
      // The Host and Origin checks ran before this (a foreign page cannot post here); 303 turns the POST into a GET.
      if (same(await readFormToken(req), auth.token)) redirect(res, 303, '/', true);
      else
        sendLoginPage(
          res,
          method,
          401,
          auth.tokenFile,
          `That is not the token in ${auth.tokenFile}; copy the whole line from that file and try again.`,
        );
      return true;
    },
  };
}
