// The renderer store over a fake DesktopApi: first load, pushed events through the one bridge, token paging,
// key import that keeps nothing of the key, and error states carrying { code, message }.
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../../src/renderer/src/store/index.js';
import { connectBridge, loadInitial } from '../../src/renderer/src/store/bridge.js';
import { setConfirmLeave } from '../../src/renderer/src/store/slices/app-slice.js';
import type { StreamState } from '../../src/renderer/src/transport/http-api.js';
import type { AppSettings, AppStatus, DesktopApi, DevchainStatus, KeyInfo } from '../../src/shared/desktop-api.js';
import type { TokenPage } from '../../src/shared/listing.js';
import type { TxRecord } from '../../src/shared/tx-record.js';

const address = '0x' + 'a'.repeat(40);
const privateKey = '0x' + '4c'.repeat(32);
const settings = {
  clientId: 'c',
  signedInAs: null,
  nodeUrl: 'http://n',
  serviceUrl: 'http://s',
  platform: 'ethereum',
  network: 'local',
  policy: {},
} as AppSettings;

function rec(hash: string, p: Partial<TxRecord> = {}): TxRecord {
  return {
    transactionHash: hash,
    from: address,
    nonce: 0,
    gasPrice: '1',
    txType: 'legacy',
    to: address,
    value: '0',
    input: '0x',
    gasLimit: '21000',
    data: {},
    replaces: null,
    replacedBy: null,
    attempt: 0,
    kind: 'generate',
    problem: null,
    createdAt: 't0',
    updatedAt: 't0',
    ...p,
  };
}

const linkUp = { state: 'connected' as const, reason: null, since: 't0' };
const status: AppStatus = { tracker: linkUp, node: linkUp };

function fakeApi() {
  let txListener: ((r: TxRecord) => void) | null = null;
  let devListener: ((s: DevchainStatus) => void) | null = null;
  let settingsListener: ((s: AppSettings) => void) | null = null;
  const pages: TokenPage[] = [
    {
      data: [{ id: '1', owner: address, uri: 'u1', contract: { address: '0x' + '1'.repeat(40), name: 'A', symbol: 'A', totalSupply: 2 } }],
      pagination: { totalCount: 2, prevUrl: '', nextUrl: 'http://x/t?page=1&size=1' },
    },
    {
      data: [{ id: '2', owner: address, uri: 'u2', contract: { address: '0x' + '2'.repeat(40), name: 'B', symbol: 'B', totalSupply: 2 } }],
      pagination: { totalCount: 2, prevUrl: 'http://x/t?page=0&size=1', nextUrl: '' },
    },
  ];
  const key: KeyInfo = { address, balanceWei: '10', storage: 'keychain' };
  const api = {
    getAppInfo: vi.fn(async () => ({
      mode: 'embedded' as const,
      chainId: 31337,
      nodeUrl: 'n',
      serviceUrl: 's',
      platform: 'ethereum',
      network: 'local',
      address,
      status,
      toolRpc: null,
    })),
    listTransactions: vi.fn(async () => [rec('0x1', { updatedAt: 't1' })]),
    getTransaction: vi.fn(async (h: string) => ({ ...rec(h), history: [{ at: 't', kind: 'signed' as const, summary: 's', detail: {} }] })),
    sendTransaction: vi.fn(async () => rec('0x9', { nonce: 9 })),
    cancelTransaction: vi.fn(async (h: string) => rec(h, { kind: 'cancel' })),
    speedUpTransaction: vi.fn(async (h: string) => rec(h, { kind: 'speed-up' })),
    onTransactionChanged: (l: (r: TxRecord) => void) => ((txListener = l), () => (txListener = null)),
    listTokens: vi.fn(async (_o: string, q: { page?: number; size?: number }) =>
      q.size === 200 ? { ...pages[0]!, data: [...pages[0]!.data, ...pages[1]!.data] } : pages[q.page ?? 0]!,
    ),
    resolveTokenMetadata: vi.fn(async (uris: string[]) => Object.fromEntries(uris.map((u) => [u, { name: `N ${u}` }]))),
    refreshToken: vi.fn(async () => undefined),
    getSettings: vi.fn(async () => settings),
    updateSettings: vi.fn(async () => settings),
    signIn: vi.fn(async () => Promise.reject({ code: 'UNAUTHORIZED', message: 'Wrong e-mail or password; try again.' })),
    restart: vi.fn(async () => undefined),
    getServiceHealth: vi.fn(async () => ({
      url: 'http://127.0.0.1:4000',
      reachable: true,
      reason: null,
      chainId: 31337,
      indexLagBlocks: 0,
      roles: ['follower'],
    })),
    getKeyInfo: vi.fn(async () => key),
    generateKey: vi.fn(async () => key),
    importKey: vi.fn(async () => key),
    exportKey: vi.fn(async () => ({ address, fileName: 'k.json', keystore: '{}' })),
    getDevchainStatus: vi.fn(async () => ({ blockNumber: 10, baseFeeWei: '7', congestion: 'off' as const })),
    setCongestion: vi.fn(async (level: DevchainStatus['congestion']) => ({ blockNumber: 11, baseFeeWei: '7', congestion: level })),
    onDevchainStatus: (l: (s: DevchainStatus) => void) => ((devListener = l), () => (devListener = null)),
    onAppStatus: () => () => undefined,
    onSettingsChanged: (l: (s: AppSettings) => void) => ((settingsListener = l), () => (settingsListener = null)),
    listApprovals: vi.fn(async () => []),
    decideApproval: vi.fn(async () => undefined),
    onApprovalsChanged: () => () => undefined,
    listApprovalRules: vi.fn(async () => []),
    revokeApprovalRule: vi.fn(async () => undefined),
    listNetworks: vi.fn(async () => []),
    switchNetwork: vi.fn(async () => Promise.reject({ code: 'NOT_FOUND', message: 'not in this test' })),
    onNetworkChanged: () => () => undefined,
  } satisfies DesktopApi;
  return {
    api,
    pushTx: (r: TxRecord) => txListener?.(r),
    pushDev: (s: DevchainStatus) => devListener?.(s),
    pushSettings: (s: AppSettings) => settingsListener?.(s),
    connected: () => txListener !== null && settingsListener !== null,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('renderer store', () => {
  it('loads everything once and applies pushed events through the bridge', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    const disconnect = connectBridge(store, f.api);
    await loadInitial(store);
    const s = store.getState();
    expect([s.infoState, s.txState, s.settingsState, s.keyState, s.devchainState, s.tokensState]).toEqual([
      'ready',
      'ready',
      'ready',
      'ready',
      'ready',
      'ready',
    ]);
    expect(Object.keys(s.txs)).toEqual(['0x1']);

    store.getState().selectTransaction('0x1');
    await settle();
    expect(store.getState().details['0x1']?.record?.history).toHaveLength(1);
    f.pushTx(rec('0x2', { replaces: '0x1', attempt: 1, updatedAt: 't2' }));
    expect(Object.keys(store.getState().txs).sort()).toEqual(['0x1', '0x2']);
    expect(f.api.getTransaction).toHaveBeenCalledTimes(2); // the open timeline followed its chain
    f.pushTx(rec('0x1', { updatedAt: 't0' })); // stale copy: ignored
    expect(store.getState().txs['0x1']?.updatedAt).toBe('t1');

    f.pushDev({ blockNumber: 12, baseFeeWei: '7', congestion: 'off' });
    f.pushDev({ blockNumber: 11, baseFeeWei: '7', congestion: 'off' });
    expect(store.getState().devchain?.blockNumber).toBe(12);

    // Settings saved elsewhere (another window, a script on the localhost API) replace this window's copy.
    const elsewhere = { ...settings, clientId: 'saved-elsewhere', policy: { ...settings.policy, maxFeeWei: '50000000000' } } as AppSettings;
    f.pushSettings(elsewhere);
    expect(store.getState().settings).toEqual(elsewhere);
    expect(f.api.getSettings).toHaveBeenCalledTimes(1);
    disconnect();
    expect(f.connected()).toBe(false);
  });

  it('pages tokens from pagination, filters, and fetches metadata once per URI', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    await loadInitial(store);
    await store.getState().setTokenControls({ size: 1 });
    await settle();
    expect(store.getState().tokenPage?.data[0]?.id).toBe('1');
    expect(store.getState().knownContracts[address]?.map((c) => c.name)).toEqual(['A', 'B']); // discovered beyond page 0, for this account
    await store.getState().setTokenControls({ page: 1 });
    expect(store.getState().tokenPage?.data[0]?.id).toBe('2');
    expect(store.getState().tokenControls.page).toBe(1);
    expect(store.getState().tokenPageControls.page).toBe(1); // what the page on screen was asked with
    await store.getState().setTokenControls({ contracts: ['0x' + '2'.repeat(40)] });
    expect(store.getState().tokenControls.page).toBe(0); // a new filter starts from the first page
    expect(f.api.listTokens).toHaveBeenLastCalledWith(address, {
      page: 0,
      size: 1,
      order_by: 'transfer_block_number',
      order_direction: 'desc',
      contractAddresses: ['0x' + '2'.repeat(40)],
    });
    await settle();
    expect(store.getState().metadata).toEqual({ u1: { name: 'N u1' }, u2: { name: 'N u2' } });
    expect(f.api.resolveTokenMetadata.mock.calls.flat(2).sort()).toEqual(['u1', 'u2']);
  });

  it('imports a key without keeping it anywhere in the state', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    await loadInitial(store);
    expect(await store.getState().importKey(privateKey)).toBeNull();
    expect(f.api.importKey).toHaveBeenCalledWith({ privateKey });
    expect(JSON.stringify(store.getState())).not.toContain(privateKey.slice(2));
    expect(store.getState().keyInfo?.address).toBe(address);
  });

  it('keeps { code, message } of failures for the screens', async () => {
    const f = fakeApi();
    f.api.listTransactions.mockRejectedValueOnce({ code: 'UPSTREAM_UNAVAILABLE', message: 'The node is down.' });
    const store = createAppStore(f.api);
    await store.getState().loadTransactions();
    expect(store.getState()).toMatchObject({ txState: 'error', txError: { code: 'UPSTREAM_UNAVAILABLE', message: 'The node is down.' } });
    expect(await store.getState().signIn({ email: 'a@b.co', password: 'x' })).toEqual({
      code: 'UNAUTHORIZED',
      message: 'Wrong e-mail or password; try again.',
    });
    f.api.sendTransaction.mockRejectedValueOnce(new Error('boom'));
    expect(await store.getState().sendTransaction()).toBeNull();
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', text: 'boom' });
  });

  it('polls the list while the event stream is down and stops when it is back', async () => {
    vi.useFakeTimers();
    try {
      const f = fakeApi();
      const store = createAppStore(f.api);
      let state: StreamState = 'up';
      const listeners = new Set<(s: StreamState) => void>();
      const stream = {
        streamState: () => state,
        onStreamState: (l: (s: StreamState) => void) => (listeners.add(l), () => listeners.delete(l)),
      };
      const set = (s: StreamState) => ((state = s), listeners.forEach((l) => l(s)));
      const disconnect = connectBridge(store, f.api, stream, { pollMs: 1000 });
      expect(store.getState().stream).toBe('up');
      set('down');
      expect(store.getState().stream).toBe('down');
      f.api.listTransactions.mockResolvedValue([rec('0x1', { status: 'confirmation', updatedAt: 't9' })]);
      await vi.advanceTimersByTimeAsync(2500);
      expect(f.api.listTransactions).toHaveBeenCalledTimes(2);
      expect(store.getState().txs['0x1']?.status).toBe('confirmation'); // the list stayed right without events
      set('up');
      await vi.advanceTimersByTimeAsync(5000);
      expect(f.api.listTransactions).toHaveBeenCalledTimes(2);
      disconnect();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps collection chips per account and removes one on request', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    await loadInitial(store);
    await settle();
    const other = '0x' + 'b'.repeat(40);
    await store.getState().setTokenControls({ owner: other, contracts: [] });
    await settle();
    expect(Object.keys(store.getState().knownContracts).sort()).toEqual([address, other]);
    await store.getState().setTokenControls({ contracts: ['0x' + '1'.repeat(40)] });
    await store.getState().forgetContract('0x' + '1'.repeat(40));
    expect(store.getState().hiddenContracts[other]).toEqual(['0x' + '1'.repeat(40)]); // stays away after the reload it caused
    expect(store.getState().tokenControls.contracts).toEqual([]); // a removed chip no longer filters
    expect(store.getState().hiddenContracts[address]).toBeUndefined(); // the other account keeps its own
    store.getState().restoreContract('0x' + '1'.repeat(40));
    expect(store.getState().hiddenContracts[other]).toEqual([]);
  });

  it('replaces a key only when asked to, and cancels or speeds up by hash', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    await loadInitial(store);
    await store.getState().generateKey();
    await store.getState().generateKey(true);
    await store.getState().importKey(privateKey, true);
    expect(f.api.generateKey.mock.calls).toEqual([[undefined], [{ replace: true }]]);
    expect(f.api.importKey).toHaveBeenLastCalledWith({ privateKey, replace: true });
    const r = await store.getState().actOnTransaction('0x1', 'cancel');
    expect(r?.kind).toBe('cancel');
    expect(f.api.cancelTransaction).toHaveBeenCalledWith('0x1');
    f.api.speedUpTransaction.mockRejectedValueOnce({ code: 'CONFLICT', message: 'Nonce 0 is already mined; nothing to speed up.' });
    expect(await store.getState().actOnTransaction('0x1', 'speed-up')).toBeNull();
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', text: 'Nonce 0 is already mined; nothing to speed up.' });
    expect(store.getState().acting).toEqual({});
  });

  it('asks before unsaved edits are dropped by a view switch', () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    const asked: string[][] = [];
    let answer = false;
    setConfirmLeave((forms) => (asked.push([...forms]), answer));
    store.getState().setDirty('the replacement policy', true);
    expect(store.getState().setView('tokens')).toBe(false);
    expect(store.getState().view).toBe('transactions');
    answer = true;
    expect(store.getState().setView('tokens')).toBe(true);
    expect(asked).toEqual([['the replacement policy'], ['the replacement policy']]);
    expect(store.getState().dirtyForms).toEqual([]);
  });
});
