// The Content-Security-Policy of the app window; the same policy is in src/renderer/index.html as a meta tag.
// Images may come from token metadata (https, data: and the local dev chain), nothing else leaves the app's own origin.
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https: http://127.0.0.1:* http://localhost:*",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');
