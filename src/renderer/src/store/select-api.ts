// Chooses the bridge at start-up: the preload's `window.txdesk` inside Electron, else HTTP + server-sent events to the
// server that served this page (`txdesk serve`). Everything after this sees only a DesktopApi.
import type { DesktopApi } from '../../../shared/desktop-api.js';
import { createHttpApi } from './http-api.js';

declare global {
  interface Window {
    txdesk?: DesktopApi;
  }
}

export function selectApi(): { api: DesktopApi; transport: 'ipc' | 'http' } {
  if (window.txdesk) return { api: window.txdesk, transport: 'ipc' };
  return { api: createHttpApi({ openEvents: (url) => new EventSource(url) }), transport: 'http' };
}
