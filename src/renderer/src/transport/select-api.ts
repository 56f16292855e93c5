// Chooses the bridge at start-up: the preload's `window.txdesk` inside Electron, else HTTP + server-sent events to the
// server that served this page (`txdesk serve`), where a refused login cookie sends the page to the server's login
// page. Everything after this sees only a DesktopApi, plus, in the browser, the state of the event stream.
import type { DesktopApi } from '../../../shared/desktop-api.js';
import { createHttpApi, type StreamWatch } from './http-api.js';

declare global {
  interface Window {
    txdesk?: DesktopApi;
  }
}

export function selectApi(): { api: DesktopApi; transport: 'ipc' | 'http'; stream: StreamWatch | null } {
  if (window.txdesk) return { api: window.txdesk, transport: 'ipc', stream: null };
  const api = createHttpApi({
    openEvents: (url) => new EventSource(url),
    // No cookie, or one from an older token: the server's login page takes the token and comes back here. `replace`,
    // so Back does not return to a page that cannot load.
    onUnauthorized: () => window.location.replace('/login'),
  });
  return { api, transport: 'http', stream: api };
}
