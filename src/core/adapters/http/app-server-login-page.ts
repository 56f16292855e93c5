// The page where a browser without the session cookie pastes the API token (as Jupyter's login page does): one
// self-contained HTML document, no script and nothing loaded from elsewhere, with a CSP that allows only its own style.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Where the page's form posts the token (a form body: the token never goes into a URL, a history or a log). */
export const LOGIN_PATH = '/login';
/** The form field that carries the token. */
export const LOGIN_FIELD = 'token';

const STYLE =
  `
:root { color-scheme: dark; font-family: system-ui, sans-serif; background: #0b0e14; color: #e6e9f0; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; }
main { width: min(30rem, calc(100vw - 2rem)); padding: 2rem; border: 1px solid #2a3040; border-radius: 12px; background: #121722; }
h1 { margin: 0 0 1rem; font-size: 1.4rem; }
p { line-height: 1.5; margin: 0 0 1rem; }
code { font-family: ui-monospace, monospace; background: #1c2231; padding: 0.1rem 0.3rem; border-radius: 4px; word-break: break-all; }
.problem { color: #ffb4a8; border-left: 3px solid #ff6b57; padding-left: 0.75rem; }
label { display: block; font-weight: 600; margin-bottom: 0.4rem; }
input { box-sizing: border-box; width: 100%; padding: 0.6rem; font: inherit; font-family: ui-monospace, monospace; color: ` +
  `inherit; background: #0b0e14; border: 1px solid #3a4256; border-radius: 6px; }
input:focus { outline: 2px solid #6474f5; outline-offset: 1px; }
button { margin-top: 1rem; padding: 0.6rem 1.2rem; font: inherit; font-weight: 600; color: #0b0e14; background: #6474f5; ` +
  `border: 0; border-radius: 6px; cursor: pointer; }
`;

// The same icon as the app's page (src/renderer/index.html), inline so the page loads nothing.
const ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 512 512'%3E%3Crect x='16' y='16' width='480' " +
  "height='480' rx='112' fill='%236474f5'/%3E%3Cg fill='none' stroke='%230b0e14' stroke-width='40' " +
  "stroke-linecap='round' stroke-linejoin='round'%3E%3Cpath d='M132 196h232l-56-56'/%3E%3Cpath d='M380 316H148l56 " +
  "56'/%3E%3C/g%3E%3C/svg%3E";

/**
 * No script at all; the one inline style is allowed by its hash, the icon as a data: URL, and the form may post only
 * to this server. No other page may frame it (the token field must not be overlaid).
 */
export const loginPagePolicy = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  'img-src data:',
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page's HTML: `problem` (one sentence, or null) above the form, and where the token file is. */
export function loginPageHtml(tokenFile: string, problem: string | null): string {
  const file = escapeHtml(tokenFile);
  return (
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="${ICON}">
<title>Sign in · txdesk</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Sign in to txdesk</h1>
${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>\n` : ''}<p>Paste the API token from ` +
    `<code>${file}</code> (<code>cat ${file}</code> prints it), or open the login link that <code>txdesk serve</code> ` +
    `printed when it last started.</p>
<form method="post" action="${LOGIN_PATH}">
<label for="${LOGIN_FIELD}">API token</label>
<input id="${LOGIN_FIELD}" name="${LOGIN_FIELD}" type="password" autocomplete="off" spellcheck="false" required autofocus>
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`
  );
}

/** Sends the page with `status` (200 when asked for, 401 after a spent link or a wrong token). */
export function sendLoginPage(res: ServerResponse, method: string, status: number, tokenFile: string, problem: string | null): void {
  const html = loginPageHtml(tokenFile, problem);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    'content-security-policy': loginPagePolicy,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // Not no-referrer: under it a browser sends `Origin: null` with the form's POST, which the Origin check refuses.
    'referrer-policy': 'same-origin',
  });
  res.end(method === 'HEAD' ? undefined : html);
}
