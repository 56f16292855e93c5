// The Electron glue with `electron` replaced by a recorder: the window's security settings, navigation and
// window.open refusal, one guarded handler per contract method, events forwarded, everything removed on dispose.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { callMethods, type DesktopApi, type DevchainStatus } from '../../src/shared/desktop-api.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { silentLogger } from '../../src/lib/log.js';

const h = await vi.hoisted(async () => {
  const { FakeWindow } = await import('../support/app/electron-fakes.js');
  return { handlers: new Map<string, (...a: unknown[]) => unknown>(), windows: FakeWindow.created, FakeWindow };
});
type FakeWindow = InstanceType<typeof h.FakeWindow>;

vi.mock('electron', () => ({
  BrowserWindow: h.FakeWindow,
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: vi.fn() },
      setPermissionRequestHandler: vi.fn(),
      setPermissionCheckHandler: vi.fn(),
    },
  },
  ipcMain: {
    handle: (channel: string, fn: (...a: unknown[]) => unknown) => h.handlers.set(channel, fn),
    removeHandler: (channel: string) => h.handlers.delete(channel),
  },
}));

// The unit project runs several files in one process (isolate: false): an earlier file may have loaded src/main with its
// own stand-in for electron, so these modules are evaluated afresh against this file's recorder.
vi.resetModules();
const { createAppWindow } = await import('../../src/main/window.js');
const { registerIpc } = await import('../../src/main/ipc-handlers.js');

beforeEach(() => {
  h.handlers.clear();
  h.windows.length = 0;
  delete process.env.ELECTRON_RENDERER_URL;
});

describe('app window', () => {
  it('is isolated and sandboxed, loads the built page, and cannot navigate away or open windows', () => {
    const { window, appUrl } = createAppWindow('/opt/txdesk/out/main');
    const w = window as unknown as FakeWindow;
    expect(w.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      preload: '/opt/txdesk/out/preload/index.cjs',
    });
    expect(appUrl).toBe('app://txdesk/index.html');
    expect(w.loaded).toBe(appUrl);
    expect(w.webContents.openHandler?.({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    for (const event of ['will-navigate', 'will-redirect']) {
      const prevent = vi.fn();
      w.webContents.listeners.get(event)?.({ preventDefault: prevent }, 'https://evil.example/');
      expect(prevent).toHaveBeenCalled();
      const allow = vi.fn();
      w.webContents.listeners.get(event)?.({ preventDefault: allow }, appUrl);
      expect(allow).not.toHaveBeenCalled();
    }
  });
});

describe('IPC registration', () => {
  function setup() {
    const { window, appUrl } = createAppWindow('/opt/txdesk/out/main');
    const w = window as unknown as FakeWindow;
    let pushTx: (r: TxRecord) => void = () => {};
    let pushDev: (s: DevchainStatus) => void = () => {};
    const api = {
      listTransactions: vi.fn(async () => []),
      onTransactionChanged: (l: (r: TxRecord) => void) => ((pushTx = l), vi.fn()),
      onDevchainStatus: (l: (s: DevchainStatus) => void) => ((pushDev = l), vi.fn()),
      onAppStatus: () => vi.fn(),
      onSettingsChanged: () => vi.fn(),
      onApprovalsChanged: () => vi.fn(),
      onNetworkChanged: () => vi.fn(),
    } as unknown as DesktopApi;
    const dispose = registerIpc(api, { window, appUrl }, silentLogger);
    const invoke = (channel: string, frame: { processId: number; routingId: number; url: string }, ...args: unknown[]) =>
      h.handlers.get(channel)!({ sender: { id: w.webContents.id }, senderFrame: frame }, ...args);
    return { w, api, dispose, invoke, pushTx: (r: TxRecord) => pushTx(r), pushDev: (s: DevchainStatus) => pushDev(s) };
  }

  it('registers one handler per method, answers our frame, refuses another', async () => {
    const { w, api, dispose, invoke } = setup();
    expect([...h.handlers.keys()].sort()).toEqual(callMethods.map((m) => `txdesk:${m}`).sort());
    expect(h.handlers.has('txdesk:listTransactions')).toBe(true);
    expect(await invoke('txdesk:listTransactions', w.webContents.mainFrame)).toEqual({ ok: true, value: [] });
    const iframe = { processId: 3, routingId: 9, url: w.webContents.mainFrame.url };
    expect(await invoke('txdesk:listTransactions', iframe)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const elsewhere = { ...w.webContents.mainFrame, url: 'https://evil.example/' };
    expect(await invoke('txdesk:listTransactions', elsewhere)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(api.listTransactions).toHaveBeenCalledTimes(1);
    dispose();
    expect(h.handlers.size).toBe(0);
  });

  it('forwards record changes and dev-chain status to the window', () => {
    const { w, pushTx, pushDev } = setup();
    pushTx({ transactionHash: '0xab' } as TxRecord);
    pushDev({ blockNumber: 5, baseFeeWei: '1', congestion: 'low' });
    expect(w.webContents.sent).toEqual([
      ['txdesk:event:tx', { transactionHash: '0xab' }],
      ['txdesk:event:devchain', { blockNumber: 5, baseFeeWei: '1', congestion: 'low' }],
    ]);
  });
});
