// Serves the built renderer (electron-vite's out/renderer) as a web page, with a single-page-app fallback.
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { sendError } from '../../../lib/http-kit.js';
import { TxdeskError } from '../../../shared/errors.js';

/** Content types of the renderer's files (also used by Electron's app: scheme). */
export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** The file under `root` that `pathname` names, or null (outside `root`, not a file, or badly encoded). */
export function fileIn(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const full = normalize(join(root, decoded));
  if (full !== root && !full.startsWith(root + sep)) return null;
  return existsSync(full) && statSync(full).isFile() ? full : null;
}

export function createStaticHandler(rendererDir: string) {
  const root = resolve(rendererDir);
  return (req: IncomingMessage, res: ServerResponse, pathname: string): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, new TxdeskError('METHOD_NOT_ALLOWED', `Method ${req.method} is not allowed on ${pathname}.`));
      return;
    }
    let file = fileIn(root, pathname === '/' ? '/index.html' : pathname);
    // The build links assets relatively (./assets/…, for Electron's file:// too): under a client-side route such as
    // /tokens/0xab… the browser asks for /tokens/assets/…, which is the same file.
    const assets = pathname.lastIndexOf('/assets/');
    if (!file && assets > 0) file = fileIn(root, pathname.slice(assets));
    // Client-side routes (no file extension) get the app; a missing asset is a plain 404.
    if (!file && !extname(pathname)) file = fileIn(root, '/index.html');
    if (!file) {
      const built = existsSync(join(root, 'index.html'));
      sendError(
        res,
        new TxdeskError(
          'NOT_FOUND',
          built ? `Nothing is served at ${pathname}.` : 'The renderer is not built yet; run `npm run build`, then reload.',
        ),
      );
      return;
    }
    const size = statSync(file).size;
    res.writeHead(200, {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': size,
      'cache-control': file.endsWith('index.html') ? 'no-cache' : 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  };
}
