// The app window: isolated, sandboxed renderer with a strict CSP, loaded from the app: scheme (not file://); it can
// neither navigate away nor open other windows, and every permission request and check is refused.
import { BrowserWindow, session } from 'electron';
import { join } from 'node:path';
import { appPageUrl } from './app-protocol.js';
import { contentSecurityPolicy } from './csp.js';
import { isAllowedNavigation } from './window-policy.js';

export interface AppWindow {
  window: BrowserWindow;
  /** The URL the window shows; IPC senders must match it. */
  appUrl: string;
}

/** The page to load: the electron-vite dev server when it runs, else the built renderer through the app: scheme. */
export function rendererUrl(devServerUrl = process.env.ELECTRON_RENDERER_URL): string {
  return devServerUrl || appPageUrl;
}

let cspInstalled = false;

export function createAppWindow(outDir: string): AppWindow {
  if (!cspInstalled) {
    // Also as a response header, so the policy holds even for documents that lack the meta tag. Not under the dev
    // server: policies intersect, and hot reload needs the inline script the relaxed dev meta tag allows.
    if (!process.env.ELECTRON_RENDERER_URL) {
      session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
        callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [contentSecurityPolicy] } });
      });
    }
    // The renderer needs no camera, notifications or other permissions: requests and synchronous checks alike say no.
    session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    session.defaultSession.setPermissionCheckHandler(() => false);
    cspInstalled = true;
  }

  const window = new BrowserWindow({
    width: 1280,
    height: 840,
    minWidth: 900,
    minHeight: 600,
    show: false,
    backgroundColor: '#0e1116',
    title: 'txdesk',
    // Linux shows this in the task bar; macOS and Windows take the packaged app's icon.
    ...(process.platform === 'linux' ? { icon: join(outDir, '../../resources/icon.png') } : {}),
    webPreferences: {
      preload: join(outDir, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      spellcheck: false,
    },
  });
  const appUrl = rendererUrl();

  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event, url) => {
    if (!isAllowedNavigation(url, appUrl)) event.preventDefault();
  });
  window.webContents.on('will-redirect', (event, url) => {
    if (!isAllowedNavigation(url, appUrl)) event.preventDefault();
  });
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());
  window.once('ready-to-show', () => window.show());

  void window.loadURL(appUrl);
  return { window, appUrl };
}
