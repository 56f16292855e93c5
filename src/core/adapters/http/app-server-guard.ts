// Who may talk to the localhost server: only requests addressed to it by name (Host, against DNS rebinding) and
// coming from no web page or from its own page (Origin, against cross-site requests). Pure, so a table tests it.
import type { IncomingHttpHeaders } from 'node:http';
import { TxdeskError } from '../../../shared/errors.js';

export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function ownOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
}

/** Null when the request may proceed; otherwise the 403 to send. */
export function guardRequest(method: string, headers: IncomingHttpHeaders, port: number): TxdeskError | null {
  const host = (headers.host ?? '').toLowerCase();
  if (!allowedHosts(port).has(host)) {
    return new TxdeskError(
      'FORBIDDEN',
      `This server only answers requests addressed to 127.0.0.1:${port} or localhost:${port}; use one of those in the URL.`,
    );
  }
  const origin = headers.origin;
  // No Origin: curl, scripts, same-origin navigations. Anything else (other sites, `null` from sandboxes and files) is refused.
  if (origin !== undefined && !ownOrigins(port).has(origin.toLowerCase())) {
    return new TxdeskError(
      'FORBIDDEN',
      'Requests from other web pages are refused; open the app at its own address, or call the API without an Origin header (curl, scripts).',
    );
  }
  // Belt and braces for browsers that omit Origin on some requests: a cross-site fetch metadata header is refused too.
  const site = headers['sec-fetch-site'];
  if (origin === undefined && site === 'cross-site' && method !== 'GET' && method !== 'HEAD') {
    return new TxdeskError('FORBIDDEN', 'Requests from other web pages are refused.');
  }
  return null;
}
