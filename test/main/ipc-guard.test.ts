// The IPC boundary without Electron, in front of the core's validating face as in the app: sender checks, one schema
// per method (checked by the core), error envelopes, and the key never echoed.
import { describe, expect, it, vi } from 'vitest';
import { validatedApi } from '../../src/core/services/desktop-api-validated.js';
import { invokeGuarded, isTrustedSenderUrl, toIpcError } from '../../src/main/ipc-guard.js';
import { callMethods } from '../../src/shared/desktop-api.js';
import { desktopArgs } from '../../src/shared/desktop-schemas.js';
import { isAllowedNavigation } from '../../src/main/window-policy.js';
import { TxdeskError } from '../../src/shared/errors.js';
import type { DesktopApi } from '../../src/shared/desktop-api.js';

const appUrl = 'app://txdesk/index.html';
const hash = `0x${'ab'.repeat(32)}`;
const key = `0x${'1f'.repeat(32)}`;

function fakeApi(overrides: Partial<DesktopApi> = {}): DesktopApi {
  const reject = () => Promise.reject(new Error('not in this test'));
  return {
    getAppInfo: reject,
    listTransactions: vi.fn(async () => []),
    getTransaction: vi.fn(async (h: string) => ({ transactionHash: h, history: [] }) as never),
    sendTransaction: reject,
    cancelTransaction: reject,
    speedUpTransaction: reject,
    onTransactionChanged: () => () => {},
    listTokens: vi.fn(async () => ({ data: [], pagination: { totalCount: 0, prevUrl: '', nextUrl: '' } })),
    resolveTokenMetadata: reject,
    refreshToken: reject,
    listApprovals: vi.fn(async () => []),
    decideApproval: reject,
    onApprovalsChanged: () => () => {},
    listApprovalRules: vi.fn(async () => []),
    revokeApprovalRule: reject,
    getSettings: reject,
    updateSettings: vi.fn(async () => ({}) as never),
    signIn: reject,
    restart: reject,
    getServiceHealth: reject,
    listNetworks: reject,
    switchNetwork: reject,
    onNetworkChanged: () => () => {},
    getKeyInfo: reject,
    generateKey: reject,
    importKey: vi.fn(async () => ({ address: '0x' + '0'.repeat(40), balanceWei: '0', storage: 'memory' as const })),
    exportKey: reject,
    getDevchainStatus: reject,
    setCongestion: vi.fn(async (level) => ({ blockNumber: 1, baseFeeWei: '1', congestion: level })),
    onDevchainStatus: () => () => {},
    onAppStatus: () => () => {},
    onSettingsChanged: () => () => {},
    ...overrides,
  };
}

const call = (method: string, args: unknown[], senderUrl: string | undefined = appUrl, fromMainFrame = true) => ({
  method,
  args,
  senderUrl,
  fromMainFrame,
});

describe('sender check', () => {
  it.each([
    [appUrl, appUrl, true],
    [`${appUrl}#/tokens`, appUrl, true],
    [`${appUrl}?x=1`, appUrl, true],
    ['app://txdesk/other.html', appUrl, true],
    ['file:///tmp/evil.html', appUrl, false],
    ['file:///opt/txdesk/resources/app.asar/out/renderer/index.html', appUrl, false],
    ['app://evil/index.html', appUrl, false],
    ['txdesk-image://token/?url=x', appUrl, false],
    ['https://example.com/', appUrl, false],
    ['about:blank', appUrl, false],
    [undefined, appUrl, false],
    ['not a url', appUrl, false],
    ['http://localhost:5173/', 'http://localhost:5173/', true],
    ['http://localhost:5173/deep/page', 'http://localhost:5173/', true],
    ['http://localhost:5174/', 'http://localhost:5173/', false],
    ['http://evil.localhost:5173/', 'http://localhost:5173/', false],
  ])('%s against %s -> %s', (sender, app, expected) => {
    expect(isTrustedSenderUrl(sender, app)).toBe(expected);
  });

  it('refuses a foreign frame before looking at the payload or calling the core', async () => {
    const api = fakeApi();
    const r = await invokeGuarded(api, appUrl, call('listTransactions', [], 'https://example.com/'));
    expect(r).toEqual({ ok: false, error: { code: 'FORBIDDEN', message: expect.any(String) } });
    const sub = await invokeGuarded(api, appUrl, call('listTransactions', [], appUrl, false));
    expect(sub.ok).toBe(false);
    expect(api.listTransactions).not.toHaveBeenCalled();
  });

  it('navigation stays on the app page', () => {
    expect(isAllowedNavigation(appUrl, appUrl)).toBe(true);
    expect(isAllowedNavigation('https://example.com', appUrl)).toBe(false);
    expect(isAllowedNavigation('file:///etc/passwd', appUrl)).toBe(false);
    expect(isAllowedNavigation('app://txdesk/index.html#/tokens', appUrl)).toBe(true);
    expect(isAllowedNavigation('app://other/index.html', appUrl)).toBe(false);
    expect(isAllowedNavigation('http://localhost:5173/x', 'http://localhost:5173/')).toBe(true);
  });
});

describe('payload validation', () => {
  it('covers every call of the contract and no event subscription', () => {
    expect([...callMethods].sort()).toEqual(Object.keys(desktopArgs).sort());
    expect(callMethods).not.toContain('onTransactionChanged');
    expect(callMethods).not.toContain('onDevchainStatus');
  });

  it.each([
    ['getTransaction', ['0x1234']],
    ['getTransaction', []],
    ['getTransaction', [hash, 'extra']],
    ['listTransactions', ['unexpected']],
    ['listTokens', ['0xnotanaddress', {}]],
    ['listTokens', [`0x${'a'.repeat(40)}`, { size: 1000 }]],
    ['listTokens', [`0x${'a'.repeat(40)}`, { clientId: 'sneaky' }]],
    ['updateSettings', [{ nodeUrl: 'file:///etc/passwd' }]],
    ['updateSettings', [{ policy: { bumpPercent: 5 } }]],
    ['updateSettings', [{ unknown: true }]],
    ['setCongestion', ['extreme']],
    ['signIn', [{ email: 'nope', password: 'x' }]],
    ['resolveTokenMetadata', ['http://x']],
  ])('%s(%j) is refused with INVALID_PARAMETER', async (method, args) => {
    const api = fakeApi();
    const r = await invokeGuarded(validatedApi(api), appUrl, call(method, args));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('INVALID_PARAMETER');
      // One sentence per problem, naming the field (or the argument count), ending with a full stop.
      expect(r.error.message).toMatch(/^(The field '[\w.]+' |Unknown field |\w+ takes \d+ argument).*\.$/);
    }
    const impl = api[method as keyof DesktopApi];
    if (vi.isMockFunction(impl)) expect(impl).not.toHaveBeenCalled();
  });

  it('refuses unknown methods and prototype names', async () => {
    for (const method of ['deleteEverything', 'constructor', '__proto__', 'onTransactionChanged']) {
      const r = await invokeGuarded(fakeApi(), appUrl, call(method, []));
      expect(r).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('passes parsed arguments to the core and wraps the value', async () => {
    const api = fakeApi();
    const face = validatedApi(api);
    expect(await invokeGuarded(face, appUrl, call('getTransaction', [hash]))).toMatchObject({ ok: true, value: { transactionHash: hash } });
    expect(await invokeGuarded(face, appUrl, call('setCongestion', ['high']))).toMatchObject({ ok: true, value: { congestion: 'high' } });
    await invokeGuarded(face, appUrl, call('listTokens', [`0x${'a'.repeat(40)}`, { page: 2, size: 6, contractAddresses: [] }]));
    expect(api.listTokens).toHaveBeenCalledWith(`0x${'a'.repeat(40)}`, { page: 2, size: 6, contractAddresses: [] });
  });

  it('never echoes a private key in a validation error', async () => {
    const bad = `${key}zz`;
    const r = await invokeGuarded(validatedApi(fakeApi()), appUrl, call('importKey', [{ privateKey: bad }]));
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain(key.slice(2));
    const ok = await invokeGuarded(validatedApi(fakeApi()), appUrl, call('importKey', [{ privateKey: key }]));
    expect(ok.ok).toBe(true);
    expect(JSON.stringify(ok)).not.toContain(key.slice(2));
  });
});

describe('errors from the core', () => {
  it('keeps the code and message of a TxdeskError', async () => {
    const api = fakeApi({
      listTransactions: () => Promise.reject(new TxdeskError('UPSTREAM_UNAVAILABLE', 'The node is not answering; check NODE_ENDPOINT.')),
    });
    expect(await invokeGuarded(api, appUrl, call('listTransactions', []))).toEqual({
      ok: false,
      error: { code: 'UPSTREAM_UNAVAILABLE', message: 'The node is not answering; check NODE_ENDPOINT.' },
    });
  });

  it('hides the text of unexpected errors and reports them to the log', async () => {
    const secretish = new Error(`ENOENT: /home/me/.txdesk/key ${key}`);
    const seen: unknown[] = [];
    const api = fakeApi({ listTransactions: () => Promise.reject(secretish) });
    const r = await invokeGuarded(api, appUrl, call('listTransactions', []), (_m, e) => seen.push(e));
    expect(r).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(r)).not.toContain('ENOENT');
    expect(seen).toEqual([secretish]);
    expect(toIpcError({ code: 'ECONNREFUSED', message: 'x' }).code).toBe('INTERNAL');
  });
});
