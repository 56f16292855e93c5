// Where the page loads a token's image from. Never the metadata's own URL (it comes from the chain, and the CSP allows
// images only from the app and data:): http(s) images go through the core, which fetches them with its address guard.
import { extraRoutes, splitRoute, tokenImageScheme } from '../../../shared/desktop-api.js';

export type Transport = 'ipc' | 'http';

const proxyPath = splitRoute(extraRoutes.tokenImage).path;

/** The src for an `image` from token metadata: data:image/ as it is, http(s) through the core's proxy, else none. */
export function tokenImageSrc(image: string | undefined, transport: Transport): string | undefined {
  if (!image) return undefined;
  if (/^data:image\//i.test(image)) return image;
  if (!/^https?:\/\//i.test(image)) return undefined;
  const query = `?url=${encodeURIComponent(image)}`;
  // Electron's window is a file:// page that talks IPC; main serves this scheme from the same core function.
  return transport === 'ipc' ? `${tokenImageScheme}://token/${query}` : `${proxyPath}${query}`;
}
