// The approvals slice over a fake DesktopApi: waiting requests loaded at start, replaced by every push, read again when
// the event stream comes back (and an older read never overwrites a newer push); answers, with and without a daily
// allowance; a request the core no longer has; standing rules listed and revoked.
import { describe, expect, it, vi } from 'vitest';
import { connectBridge, loadInitial } from '../../src/renderer/src/store/bridge.js';
import type { StreamState } from '../../src/renderer/src/transport/http-api.js';
import { createAppStore } from '../../src/renderer/src/store/index.js';
import type { ApprovalRequest, ApprovalRule } from '../../src/shared/approvals.js';
import { desktopMethods, type AppSettings, type DesktopApi } from '../../src/shared/desktop-api.js';

const address = '0x' + 'a'.repeat(40);
const requester = { kind: 'token' as const, fingerprint: '1a2b3c4d', label: 'a tool with the API token …1a2b3c4d' };

function request(id: string, p: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id,
    kind: 'transaction',
    requester,
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2099-01-01T00:00:00.000Z',
    transaction: {
      to: address,
      value: '1',
      input: '0x',
      gasLimit: '21000',
      selector: null,
      functionName: null,
      feeFromWei: '1',
      feeCapWei: '2',
      maxCostWei: '42001',
    },
    ...p,
  };
}
const rule = (id: string): ApprovalRule => ({ id, requester, maxPerDayWei: '100', spentWei: '0', createdAt: '2026-01-01T00:00:00.000Z' });

/** Every method of the table answers something harmless; the approvals ones are controllable. */
function fakeApi() {
  let push: ((a: ApprovalRequest[]) => void) | null = null;
  const idle = Object.fromEntries(
    Object.entries(desktopMethods).map(([name, spec]) => [name, spec.kind === 'event' ? () => () => undefined : vi.fn(async () => null)]),
  ) as unknown as DesktopApi;
  const api = {
    ...idle,
    getAppInfo: vi.fn(async () => ({
      mode: 'configured' as const,
      chainId: 11155111,
      nodeUrl: 'n',
      serviceUrl: 's',
      platform: 'ethereum',
      network: 'sepolia',
      address,
      status: {
        tracker: { state: 'connected' as const, reason: null, since: 't' },
        node: { state: 'connected' as const, reason: null, since: 't' },
      },
      toolRpc: null,
    })),
    listTransactions: vi.fn(async () => []),
    getSettings: vi.fn(async () => ({ policy: {}, approvalTimeoutMs: 120_000 }) as AppSettings),
    listTokens: vi.fn(async () => ({ data: [], pagination: { totalCount: 0, prevUrl: '', nextUrl: '' } })),
    listApprovals: vi.fn(async (): Promise<ApprovalRequest[]> => [request('r1')]),
    decideApproval: vi.fn(async () => undefined),
    onApprovalsChanged: (l: (a: ApprovalRequest[]) => void) => ((push = l), () => (push = null)),
    listApprovalRules: vi.fn(async (): Promise<ApprovalRule[]> => [rule('x1')]),
    revokeApprovalRule: vi.fn(async () => undefined),
  } satisfies DesktopApi;
  return { api, push: (a: ApprovalRequest[]) => push?.(a), subscribed: () => push !== null };
}

const ids = (store: ReturnType<typeof createAppStore>) => store.getState().approvals.map((a) => a.id);

describe('approvals in the renderer store', () => {
  it('loads the waiting requests at start and follows every push; disconnecting unsubscribes', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    const disconnect = connectBridge(store, f.api);
    await loadInitial(store);
    expect(ids(store)).toEqual(['r1']);
    f.push([request('r1'), request('r2', { kind: 'message', transaction: undefined, message: { text: 'hi', hex: '0x6869' } })]);
    expect(ids(store)).toEqual(['r1', 'r2']);
    f.push([]);
    expect(ids(store)).toEqual([]);
    disconnect();
    expect(f.subscribed()).toBe(false);
  });

  it('drops a list read that a newer push overtook', async () => {
    const f = fakeApi();
    let answer: (a: ApprovalRequest[]) => void = () => undefined;
    f.api.listApprovals.mockImplementationOnce(() => new Promise((r) => (answer = r)));
    const store = createAppStore(f.api);
    connectBridge(store, f.api);
    const loading = store.getState().loadApprovals();
    f.push([request('r2')]); // r1 was answered meanwhile; r2 is newer than the read
    answer([request('r1')]);
    await loading;
    expect(ids(store)).toEqual(['r2']);
  });

  it('reads the list again whenever the event stream is up, first or after being away', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    let state: StreamState = 'connecting';
    const listeners = new Set<(s: StreamState) => void>();
    const stream = {
      streamState: () => state,
      onStreamState: (l: (s: StreamState) => void) => (listeners.add(l), () => listeners.delete(l)),
    };
    const set = (s: StreamState) => ((state = s), listeners.forEach((l) => l(s)));
    const disconnect = connectBridge(store, f.api, stream, { pollMs: 60_000 });
    expect(f.api.listApprovals).toHaveBeenCalledTimes(0);
    set('up');
    expect(f.api.listApprovals).toHaveBeenCalledTimes(1);
    set('down');
    f.api.listApprovals.mockResolvedValueOnce([request('r3')]); // came while the stream was away
    set('up');
    expect(f.api.listApprovals).toHaveBeenCalledTimes(2);
    await vi.waitFor(() => expect(ids(store)).toEqual(['r3']));
    disconnect();
  });

  it('answers: the decision goes to the core as given, the request leaves, an allowance re-reads the rules', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    store.getState().applyApprovals([request('r1'), request('r2')]);
    expect(await store.getState().decideApproval('r1', { approve: false })).toBeNull();
    expect(f.api.decideApproval).toHaveBeenLastCalledWith('r1', { approve: false });
    expect(ids(store)).toEqual(['r2']);
    expect(f.api.listApprovalRules).not.toHaveBeenCalled();
    expect(await store.getState().decideApproval('r2', { approve: true, allowPerDayWei: '500000000000000000' })).toBeNull();
    expect(f.api.decideApproval).toHaveBeenLastCalledWith('r2', { approve: true, allowPerDayWei: '500000000000000000' });
    expect(ids(store)).toEqual([]);
    await vi.waitFor(() => expect(store.getState().approvalRules.map((r) => r.id)).toEqual(['x1']));
  });

  it('a request the core no longer has leaves with its error; any other failure keeps it', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    store.getState().applyApprovals([request('r1'), request('r2')]);
    f.api.decideApproval.mockRejectedValueOnce({ code: 'NOT_FOUND', message: 'No request r1 is waiting for approval.' });
    expect(await store.getState().decideApproval('r1', { approve: true })).toEqual({
      code: 'NOT_FOUND',
      message: 'No request r1 is waiting for approval.',
    });
    expect(ids(store)).toEqual(['r2']);
    f.api.decideApproval.mockRejectedValueOnce({ code: 'FORBIDDEN', message: 'Approve or decline requests in the txdesk window.' });
    expect(await store.getState().decideApproval('r2', { approve: true })).toEqual({
      code: 'FORBIDDEN',
      message: 'Approve or decline requests in the txdesk window.',
    });
    expect(ids(store)).toEqual(['r2']);
  });

  it('lists the standing rules and revokes one; a refused revoke says why and keeps it', async () => {
    const f = fakeApi();
    const store = createAppStore(f.api);
    f.api.listApprovalRules.mockResolvedValueOnce([rule('x1'), rule('x2')]);
    await store.getState().loadApprovalRules();
    expect(store.getState()).toMatchObject({ approvalRulesState: 'ready', approvalRules: [{ id: 'x1' }, { id: 'x2' }] });
    f.api.revokeApprovalRule.mockRejectedValueOnce({ code: 'NOT_FOUND', message: 'There is no standing rule x9.' });
    expect(await store.getState().revokeApprovalRule('x9')).toEqual({ code: 'NOT_FOUND', message: 'There is no standing rule x9.' });
    f.api.listApprovalRules.mockResolvedValueOnce([rule('x2')]);
    expect(await store.getState().revokeApprovalRule('x1')).toBeNull();
    expect(f.api.revokeApprovalRule).toHaveBeenLastCalledWith('x1');
    await vi.waitFor(() => expect(store.getState().approvalRules.map((r) => r.id)).toEqual(['x2']));
    f.api.listApprovalRules.mockRejectedValueOnce({ code: 'UPSTREAM_UNAVAILABLE', message: 'The app core is not answering.' });
    await store.getState().loadApprovalRules();
    expect(store.getState()).toMatchObject({
      approvalRulesState: 'error',
      approvalRulesError: { code: 'UPSTREAM_UNAVAILABLE' },
      approvalRules: [{ id: 'x2' }],
    });
  });
});
