// Which Host headers the data service answers (against DNS rebinding: a web page whose name suddenly points at
// 127.0.0.1 must not reach the service, burn its sign-up/login limits or read its answers), and the base of every URL
// it writes into a response (page links, OpenAPI servers): the configured public URL, never the request's Host.
import type { IncomingHttpHeaders } from 'node:http';
import { TxdeskError } from '../../shared/errors.js';

export interface ServiceAccess {
  /** The URL clients use, e.g. https://txdesk.example.com (an origin: scheme, host, optional port). */
  publicUrl?: string;
  /** More host names (with port where not the scheme's default) to answer, e.g. behind a second proxy name. */
  extraHosts?: readonly string[];
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];
const isWildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '[::]';

/** Null when `value` can be a public URL; else why not. Pure. */
export function publicUrlProblem(value: string): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return 'give an absolute http:// or https:// URL such as https://txdesk.example.com';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'give an http:// or https:// URL';
  if (u.username || u.password || u.search || u.hash || (u.pathname !== '/' && u.pathname !== '')) {
    return 'give only scheme, host and port (no path, user, query or #fragment), such as https://txdesk.example.com';
  }
  return null;
}

/** Every Host value the service answers: loopback and the bind address on its port, the public URL's host, extras. */
export function allowedServiceHosts(port: number, bindHost: string, access: ServiceAccess = {}): Set<string> {
  const names = [...LOOPBACK];
  if (!isWildcard(bindHost) && !LOOPBACK.includes(bindHost))
    names.push(bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost);
  const hosts = new Set(names.map((n) => `${n}:${port}`.toLowerCase()));
  if (access.publicUrl) hosts.add(new URL(access.publicUrl).host.toLowerCase());
  for (const h of access.extraHosts ?? []) hosts.add(h.toLowerCase());
  return hosts;
}

/** The name part of a Host value (`[::1]:4000` -> `[::1]`). */
const hostName = (host: string) => (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!);

/**
 * Null when the request's Host is one of `allowed`, or a loopback name on any port; else the 403 to send. A loopback
 * name cannot be rebound by DNS, and a different port there means a local proxy or SSH tunnel in front of us.
 */
export function checkServiceHost(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>): TxdeskError | null {
  const host = (headers.host ?? '').toLowerCase();
  if (allowed.has(host) || LOOPBACK.includes(hostName(host))) return null;
  const first = [...allowed].slice(0, 4).join(', ');
  return new TxdeskError(
    'FORBIDDEN',
    `This service answers only requests addressed to its own names (${first}); use one of those in the URL, or ask its operator to set --public-url.`,
  );
}
