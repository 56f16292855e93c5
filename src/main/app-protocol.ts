// Electron's `app:` scheme for the window's own page (`app://txdesk/index.html`): the built renderer is served from
// out/renderer by main instead of file://, so the page has a real origin of its own, cannot read other local files,
// and file:// keeps no extra privileges (the grantFileProtocolExtraPrivileges fuse is off). No electron import, so
// tests call it directly.
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { fileIn, TYPES } from '../core/create-core.js';
import { contentSecurityPolicy } from './csp.js';

export const APP_SCHEME = 'app';
export const APP_HOST = 'txdesk';
/** The page the window loads. */
export const appPageUrl = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Registered before the app is ready: standard (parsed like http, with an origin) and secure (like https). */
export const appSchemePrivileges = { scheme: APP_SCHEME, privileges: { standard: true, secure: true } };

/** Answers one request for the page or one of its files: the file with its type and the CSP, or a plain 404. */
export async function appProtocolResponse(requestUrl: string, rendererDir: string): Promise<Response> {
  const url = URL.parse(requestUrl);
  const root = resolve(rendererDir);
  const file =
    url && url.protocol === `${APP_SCHEME}:` && url.hostname === APP_HOST
      ? fileIn(root, url.pathname === '/' ? '/index.html' : url.pathname)
      : null;
  if (!file) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const body = await readFile(file);
  return new Response(new Uint8Array(body), {
    status: 200,
    headers: {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-security-policy': contentSecurityPolicy,
      'x-content-type-options': 'nosniff',
    },
  });
}
