// Electron's security checklist (electronjs.org/docs/latest/tutorial/security), item by item, against what we ship:
// the window options and session handlers (read through createAppWindow with `electron` replaced by a recorder), the
// app: scheme's responses, the sources of main and preload, and electron-builder.yml's fuses. A row that fails names
// the checklist item that is off.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const h = vi.hoisted(() => {
  const rec = {
    options: null as null | { webPreferences: Record<string, unknown> },
    loaded: '',
    listeners: new Map<string, (...a: unknown[]) => void>(),
    openHandler: null as null | ((d: { url: string }) => { action: string }),
    permissionRequest: null as null | ((wc: unknown, permission: string, cb: (ok: boolean) => void) => void),
    permissionCheck: null as null | ((...a: unknown[]) => boolean),
    headers: null as
      | null
      | ((d: { responseHeaders: Record<string, string[]> }, cb: (r: { responseHeaders: Record<string, string[]> }) => void) => void),
  };
  class FakeWindow {
    webContents = {
      setWindowOpenHandler: (fn: typeof rec.openHandler) => void (rec.openHandler = fn),
      on: (name: string, fn: (...a: unknown[]) => void) => void rec.listeners.set(name, fn),
    };
    constructor(options: { webPreferences: Record<string, unknown> }) {
      rec.options = options;
    }
    loadURL(url: string) {
      rec.loaded = url;
      return Promise.resolve();
    }
    once() {}
  }
  return { rec, FakeWindow };
});

vi.mock('electron', () => ({
  BrowserWindow: h.FakeWindow,
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: (fn: typeof h.rec.headers) => void (h.rec.headers = fn) },
      setPermissionRequestHandler: (fn: typeof h.rec.permissionRequest) => void (h.rec.permissionRequest = fn),
      setPermissionCheckHandler: (fn: typeof h.rec.permissionCheck) => void (h.rec.permissionCheck = fn),
    },
  },
}));

delete process.env.ELECTRON_RENDERER_URL;
// The unit project runs several files in one process (isolate: false): an earlier file may have loaded src/main with its
// own stand-in for electron, so these modules are evaluated afresh against this file's recorder.
vi.resetModules();
const { createAppWindow } = await import('../../src/main/window.js');
const { appProtocolResponse } = await import('../../src/main/app-protocol.js');
const { isTrustedSenderUrl, invokeGuarded } = await import('../../src/main/ipc-guard.js');

const root = join(import.meta.dirname, '..', '..');
const { appUrl } = createAppWindow('/opt/txdesk/out/main');
const prefs = h.rec.options!.webPreferences;
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };
const builder = yaml.load(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as {
  electronFuses?: Record<string, boolean>;
  asar?: unknown;
};
const sourcesOf = (dir: string) =>
  readdirSync(join(root, dir))
    .map((f) => readFileSync(join(root, dir, f), 'utf8'))
    .join('\n');
const mainAndPreload = sourcesOf('src/main') + sourcesOf('src/preload');
const renderer = mkdtempSync(join(tmpdir(), 'txdesk-checklist-'));
writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>t</title>');
afterAll(() => rmSync(renderer, { recursive: true, force: true }));

const prevented = (event: string, url: string) => {
  const preventDefault = vi.fn();
  h.rec.listeners.get(event)?.({ preventDefault }, url);
  return preventDefault.mock.calls.length > 0;
};

describe("Electron's security checklist", () => {
  it.each([
    [
      '1. only load secure content (our own app: page, never http or file)',
      () => new URL(appUrl).protocol === 'app:' && h.rec.loaded === appUrl,
    ],
    [
      '2. no Node.js integration for the page, its frames and workers',
      () => prefs.nodeIntegration === false && prefs.nodeIntegrationInSubFrames === false && prefs.nodeIntegrationInWorker !== true,
    ],
    ['3. context isolation on', () => prefs.contextIsolation === true],
    [
      '4. process sandboxing on (window and app-wide)',
      () => prefs.sandbox === true && /app\.enableSandbox\(\)/.test(readFileSync(join(root, 'src/main/index.ts'), 'utf8')),
    ],
    [
      '5. permission requests refused',
      () => {
        let granted: boolean | undefined;
        h.rec.permissionRequest?.({}, 'media', (ok) => (granted = ok));
        return granted === false;
      },
    ],
    [
      '5b. permission checks refused',
      () => h.rec.permissionCheck !== null && h.rec.permissionCheck({}, 'geolocation', 'app://txdesk', {}) === false,
    ],
    ['6. webSecurity not disabled', () => prefs.webSecurity !== false],
    ['8. allowRunningInsecureContent not enabled', () => prefs.allowRunningInsecureContent !== true],
    ['9. experimental features not enabled', () => prefs.experimentalFeatures !== true],
    ['10. enableBlinkFeatures not used', () => prefs.enableBlinkFeatures === undefined && !/enableBlinkFeatures/.test(mainAndPreload)],
    ['11/12. no <webview>: tag off and attaching refused', () => prefs.webviewTag === false && prevented('will-attach-webview', '')],
    [
      '13. navigation limited to our origin',
      () =>
        prevented('will-navigate', 'https://evil.example/') &&
        prevented('will-redirect', 'file:///etc/passwd') &&
        !prevented('will-navigate', `${appUrl}#/tokens`),
    ],
    ['14. new windows refused', () => h.rec.openHandler?.({ url: 'https://example.com' }).action === 'deny'],
    ['15. shell.openExternal not used', () => !/openExternal/.test(mainAndPreload)],
    [
      '17. IPC senders validated',
      () =>
        isTrustedSenderUrl(appUrl, appUrl) &&
        !isTrustedSenderUrl('file:///tmp/x.html', appUrl) &&
        !isTrustedSenderUrl('https://evil.example/', appUrl),
    ],
    [
      '18. no file:// for the page; file: gets no extra privileges',
      () => !appUrl.startsWith('file:') && builder.electronFuses?.grantFileProtocolExtraPrivileges === false,
    ],
  ])('%s', (_item, check) => {
    expect(check()).toBe(true);
  });

  it('7. a Content-Security-Policy on every document: response header, app: responses and the meta tag', async () => {
    let headers: Record<string, string[]> = {};
    h.rec.headers?.({ responseHeaders: {} }, (r) => (headers = r.responseHeaders));
    expect(headers['Content-Security-Policy']?.[0]).toMatch(/default-src 'none'/);
    const page = await appProtocolResponse('app://txdesk/index.html', renderer);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*script-src 'self'/);
    expect((await appProtocolResponse('app://txdesk/../../etc/passwd', renderer)).status).toBe(404);
    expect((await appProtocolResponse('app://txdesk/%2e%2e/%2e%2e/etc/passwd', renderer)).status).toBe(404);
    expect((await appProtocolResponse('app://other/index.html', renderer)).status).toBe(404);
    expect(readFileSync(join(root, 'src/renderer/index.html'), 'utf8')).toMatch(/http-equiv="Content-Security-Policy"/i);
  });

  it('16. a current Electron', () => {
    const installed = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')) as { version: string };
    expect(Number(installed.version.split('.')[0])).toBeGreaterThanOrEqual(40);
  });

  it('19. fuses: no run-as-Node, NODE_OPTIONS or --inspect; cookie encryption, ASAR integrity and ASAR-only loading on', () => {
    expect(builder.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
    // Integrity needs the archive: asar must not be turned off.
    expect(builder.asar).not.toBe(false);
  });

  it('17b. IPC from a frame that is not our main frame is refused before the core is called', async () => {
    const listTransactions = vi.fn(async () => []);
    const r = await invokeGuarded({ listTransactions } as never, appUrl, {
      method: 'listTransactions',
      args: [],
      senderUrl: appUrl,
      fromMainFrame: false,
    });
    expect(r.ok).toBe(false);
    expect(listTransactions).not.toHaveBeenCalled();
  });
});
