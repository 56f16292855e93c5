// The real Electron main module (src/main/index.ts) against a real core on the embedded dev chain, with `electron`
// replaced only at its edges (app, BrowserWindow, ipcMain, protocol, session, dialog): every call of the contract
// table through the IPC handlers main registered, the txdesk-image: scheme through its protocol handler, events
// forwarded to the window, restart wired to relaunch, and a clean stop on quit. No table method may lack a handler.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callMethods, desktopMethods, ipcChannel, ipcEventChannel, type CallMethod, type KeyInfo } from '../../src/shared/desktop-api.js';
import type { TokenPage } from '../../src/shared/listing.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { waitFor } from '../support/poll.js';

const e = await vi.hoisted(async () => {
  const { FakeWindow } = await import('../support/app/electron-fakes.js');
  const [{ mkdtempSync }, { join }, { tmpdir }] = await Promise.all([import('node:fs'), import('node:path'), import('node:os')]);
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-electron-main-'));
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
  const protocols = new Map<string, (request: { url: string }) => Promise<Response>>();
  const appListeners = new Map<string, ((...a: unknown[]) => void)[]>();
  const calls = { relaunch: 0, quit: 0, exit: [] as number[], errorBoxes: [] as string[] };
  const windows = FakeWindow.created;
  const app = {
    isPackaged: false,
    enableSandbox() {},
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    getPath: () => dir,
    getVersion: () => '0.0.0-test',
    getName: () => 'txdesk',
    on(name: string, fn: (...a: unknown[]) => void) {
      appListeners.set(name, [...(appListeners.get(name) ?? []), fn]);
    },
    relaunch: () => void calls.relaunch++,
    quit: () => void calls.quit++,
    exit: (code: number) => void calls.exit.push(code),
  };
  return { dir, handlers, protocols, appListeners, calls, windows, FakeWindow, app };
});

vi.mock('electron', () => {
  const electron = {
    app: e.app,
    BrowserWindow: e.FakeWindow,
    dialog: { showErrorBox: (_title: string, message: string) => e.calls.errorBoxes.push(message) },
    ipcMain: {
      handle: (channel: string, fn: (event: unknown, ...args: unknown[]) => Promise<unknown>) => e.handlers.set(channel, fn),
      removeHandler: (channel: string) => e.handlers.delete(channel),
      on() {},
    },
    protocol: {
      registerSchemesAsPrivileged() {},
      handle: (scheme: string, fn: (request: { url: string }) => Promise<Response>) => e.protocols.set(scheme, fn),
    },
    session: {
      defaultSession: { webRequest: { onHeadersReceived() {} }, setPermissionRequestHandler() {}, setPermissionCheckHandler() {} },
    },
    shell: {},
  };
  // electron-store (the settings) imports the default export.
  return { ...electron, default: electron };
});

const sentToPage = () => e.windows[0]!.webContents.sent;

type Result = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

/** Calls a method the way the preload does: through its IPC channel, from the window's main frame. */
async function invoke(method: CallMethod, ...args: unknown[]): Promise<Result> {
  const handler = e.handlers.get(ipcChannel(method));
  if (!handler) throw new Error(`main registered no IPC handler for ${method}`);
  const w = e.windows[0]!.webContents;
  const event = { sender: { id: w.id }, senderFrame: { ...w.mainFrame } };
  return (await handler(event, ...args)) as Result;
}

async function value<T>(method: CallMethod, ...args: unknown[]): Promise<T> {
  const r = await invoke(method, ...args);
  if (!r.ok) throw new Error(`${method} failed: ${r.error.code} ${r.error.message}`);
  return r.value as T;
}

const saved = { ...process.env };
beforeAll(async () => {
  process.env.TXDESK_DATA_DIR = join(e.dir, 'data');
  // A test must not leave keys in the keychain of the machine it runs on.
  process.env.TXDESK_KEYCHAIN = 'off';
  process.env.TXDESK_LOG = 'silent';
  for (const name of ['CLIENT_ID', 'PRIVATE_KEY', 'NODE_ENDPOINT', 'PLATFORM', 'NETWORK', 'TXDESK_SERVICE_URL']) delete process.env[name];
  await import('../../src/main/index.js');
  // Calls wait for the core to start; the first answer means the embedded chain and service are up.
  await value('getAppInfo');
}, 120_000);

afterAll(async () => {
  // Quitting runs main's clean stop (IPC handlers removed, core stopped), then app.exit(0).
  for (const fn of e.appListeners.get('before-quit') ?? []) fn({ preventDefault() {} });
  await waitFor('main to stop the core and exit', async () => (e.calls.exit.length > 0 ? true : undefined), {
    timeoutMs: 30_000,
    retryErrors: true,
  });
  expect(e.calls.exit).toEqual([0]);
  expect(e.handlers.size).toBe(0);
  process.env = saved;
  rmSync(e.dir, { recursive: true, force: true });
}, 60_000);

describe('Electron main against a real core', () => {
  it('registers one IPC handler per call of the contract table and nothing else', () => {
    expect([...e.handlers.keys()].sort()).toEqual(callMethods.map((m) => ipcChannel(m)).sort());
    expect(e.protocols.has('txdesk-image')).toBe(true);
    expect(e.protocols.has('app')).toBe(true);
  });

  it('answers every call of the table through IPC, and forwards events to the window', async () => {
    const answered = new Set<CallMethod>();
    const call = async <T>(method: CallMethod, ...args: unknown[]) => {
      answered.add(method);
      return value<T>(method, ...args);
    };
    /** A refusal the user can act on (not a missing method, not an internal error). */
    const refusal = async (method: CallMethod, code: string, ...args: unknown[]) => {
      answered.add(method);
      expect(await invoke(method, ...args)).toMatchObject({ ok: false, error: { code } });
    };

    const info = await call<{ mode: string; address: string }>('getAppInfo');
    expect(info.mode).toBe('embedded');
    const key = await call<KeyInfo>('getKeyInfo');
    expect(key.address).toBe(info.address);
    await refusal('generateKey', 'CONFLICT');
    await refusal('importKey', 'CONFLICT', { privateKey: 'ab'.repeat(32) });
    expect(JSON.parse((await call<{ keystore: string }>('exportKey', { passphrase: 'correct horse battery' })).keystore).address).toBe(
      info.address.slice(2),
    );

    const tx = await call<TxRecord>('sendTransaction');
    expect((await call<TxRecord[]>('listTransactions')).map((r) => r.transactionHash)).toContain(tx.transactionHash);
    expect(await call('getTransaction', tx.transactionHash)).toMatchObject({
      transactionHash: tx.transactionHash,
      history: expect.any(Array),
    });
    // Pending on the congested dev chain or already mined: either an attempt or a refusal that says why.
    for (const m of ['speedUpTransaction', 'cancelTransaction'] as const) {
      answered.add(m);
      const r = await invoke(m, tx.transactionHash);
      if (!r.ok) expect(r.error.code).toBe('CONFLICT');
    }
    await waitFor(
      'the transaction pushed to the window',
      async () =>
        sentToPage().some(([c, v]) => c === ipcEventChannel('tx') && (v as TxRecord).transactionHash === tx.transactionHash)
          ? true
          : undefined,
      { timeoutMs: 180_000, retryErrors: true },
    );

    const page = await waitFor(
      'the sample tokens listed',
      async () => {
        const p = await call<TokenPage>('listTokens', info.address, { size: 5 });
        return p.data.length > 0 ? p : undefined;
      },
      { timeoutMs: 90_000, retryErrors: true },
    );
    const token = page.data[0]!;
    const metadata = await call<Record<string, { image?: string }>>('resolveTokenMetadata', [token.uri]);
    await call('refreshToken', token.contract.address, token.id);

    const image = metadata[token.uri]?.image;
    expect(image).toMatch(/^https?:\/\//);
    const res = await e.protocols.get('txdesk-image')!({ url: `txdesk-image://token/?url=${encodeURIComponent(image!)}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\//);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);

    const settings = await call<{ platform: string }>('getSettings');
    expect(settings.platform).toBe('ethereum');
    await call('updateSettings', { policy: { maxReplacements: 4 } });
    expect((await call<{ policy: { maxReplacements: number } }>('getSettings')).policy.maxReplacements).toBe(4);
    const savedPushed = ([c, v]: unknown[]) =>
      c === ipcEventChannel('settings') && (v as { policy: { maxReplacements: number } }).policy.maxReplacements === 4;
    await waitFor('the saved settings pushed to the window', async () => (sentToPage().some(savedPushed) ? true : undefined), {
      timeoutMs: 180_000,
      retryErrors: true,
    });
    await refusal('signIn', 'UNAUTHORIZED', { email: 'nobody@example.com', password: 'wrong password' });
    expect(await call('getServiceHealth')).toMatchObject({
      reachable: true,
      reason: null,
      chainId: 31337,
      roles: expect.arrayContaining(['indexer-leader']),
    });

    // On the embedded dev chain nothing waits for approval; an answer to nothing waiting is a 404, a rule to revoke too.
    expect(await call('listApprovals')).toEqual([]);
    await refusal('decideApproval', 'NOT_FOUND', '6f1c2a1e-2b8c-4c1e-9d55-1f2a3b4c5d6e', { approve: true });
    expect(await call('listApprovalRules')).toEqual([]);
    await refusal('revokeApprovalRule', 'NOT_FOUND', '6f1c2a1e-2b8c-4c1e-9d55-1f2a3b4c5d6e');

    expect(await call('getDevchainStatus')).toMatchObject({ congestion: expect.any(String) });
    expect(await call('setCongestion', 'off')).toMatchObject({ congestion: 'off' });
    await waitFor(
      'a dev chain status pushed to the window',
      async () => (sentToPage().some(([c]) => c === ipcEventChannel('devchain')) ? true : undefined),
      { timeoutMs: 180_000, retryErrors: true },
    );

    // Both embedded networks; a switch answers the new active network and is pushed to the window.
    expect((await call<{ network: string; active: boolean }[]>('listNetworks')).map((n) => [n.network, n.active])).toEqual([
      ['local', true],
      ['local-2', false],
    ]);
    expect(await call('switchNetwork', { platform: 'ethereum', network: 'local-2' })).toMatchObject({ network: 'local-2', chainId: 31338 });
    await waitFor(
      'the switch pushed to the window',
      async () =>
        sentToPage().some(([c, v]) => c === ipcEventChannel('network') && (v as { chainId: number }).chainId === 31338) ? true : undefined,
      { timeoutMs: 180_000, retryErrors: true },
    );

    // Validation happens once, in the core, and comes back through IPC as a sentence naming the field.
    expect(await invoke('getTransaction', '0x12')).toMatchObject({
      ok: false,
      error: { code: 'INVALID_PARAMETER', message: expect.stringMatching(/^The field 'hash' /) },
    });

    await call('restart');
    await waitFor('restart to relaunch the app', async () => (e.calls.relaunch === 1 && e.calls.quit === 1 ? true : undefined), {
      timeoutMs: 180_000,
      retryErrors: true,
    });

    // Every call of the table was made here; a method added to the table without a case here fails this.
    expect([...answered].sort()).toEqual([...callMethods].sort());
    expect(Object.keys(desktopMethods).length).toBe(callMethods.length + 6);
  }, 180_000);
});
