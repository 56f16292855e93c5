// The Content-Security-Policy of the app window; the same policy is in src/renderer/index.html as a meta tag.
// Token images come only through the core (its /api/token-image route in the browser build, the txdesk-image: scheme
// in Electron) or as data: URLs, so metadata from the chain cannot point the window at local ports or other hosts.
import { tokenImageScheme } from '../shared/desktop-api.js';

export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  `img-src 'self' data: ${tokenImageScheme}:`,
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');
