// One app, two networks, no restart: `txdesk serve` on the embedded default (ethereum/local, congested, and
// ethereum/local-2) sends on local, switches to local-2 while that transaction is still stuck, sends there, and both
// settle: the one left behind keeps being replaced and confirmed while local-2 is shown, each chain has its own nonces
// from 0, /api/tx and /rpc answer for the active network only, and records carry their chain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { startEmbeddedNetwork } from '../../src/embedded/embedded-network.js';
import { silentLogger } from '../../src/lib/log.js';
import type { AppInfo, NetworkInfo } from '../../src/shared/desktop-api.js';
import type { TokenPage } from '../../src/shared/listing.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { authHeader } from '../support/app/core-api-token.js';
import { allConfirmed } from '../support/chain/core-chain.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-networks-'));
let serve: RunningServe;
let app: string;
let auth: { authorization: string };

beforeAll(async () => {
  serve = await startServe({
    port: 0,
    startEmbedded: startEmbeddedNetwork,
    congestion: 'high',
    blockTimeSeconds: 1,
    env: { TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { timeoutMs: 2_000, confirmations: 1, maxReplacements: 8 },
    log: silentLogger,
  });
  app = serve.readyInfo().apiUrl;
  auth = authHeader(serve.readyInfo().apiTokenFile);
});
afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const call = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
  const res = await fetch(`${app}${path}`, {
    method,
    headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
};
const get = async <T>(path: string): Promise<T> => (await call<T>('GET', path)).body;
const rpc = async (method: string): Promise<unknown> => {
  const res = await fetch(`${app}/rpc`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  });
  return ((await res.json()) as { result: unknown }).result;
};
/** Every record of one network, read from its session (whichever network is active). */
const recordsOf = (network: string): TxRecord[] =>
  serve.core
    .runtime()!
    .sessions.all()
    .find((s) => s.network === network)!
    .store.list();

describe('two networks in one app', { timeout: 300_000 }, () => {
  let a: TxRecord;
  let switchedAt: string;

  it('lists both dev networks, the default active', async () => {
    const list = await get<NetworkInfo[]>('/api/networks');
    expect(list.map((n) => [n.platform, n.network, n.chainId, n.active, n.unavailable])).toEqual([
      ['ethereum', 'local', 31337, true, null],
      ['ethereum', 'local-2', 31338, false, null],
    ]);
    expect(list.every((n) => n.state === 'serving' && n.nodeUrl?.startsWith('http://127.0.0.1:'))).toBe(true);
    expect(await rpc('eth_chainId')).toBe('0x7a69');
  });

  it('sends on local (held by congestion), switches to local-2 and sends there at its own nonce 0', async () => {
    const sent = await call<TxRecord>('POST', '/api/tx');
    expect(sent.status).toBe(201);
    a = sent.body;
    expect([a.nonce, a.chainId]).toEqual([0, 31337]);

    switchedAt = new Date().toISOString();
    const switched = await call<AppInfo>('POST', '/api/networks/active', { platform: 'ethereum', network: 'local-2' });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ platform: 'ethereum', network: 'local-2', chainId: 31338, mode: 'embedded' });
    expect((await get<AppInfo>('/api/app')).chainId).toBe(31338);
    expect(await rpc('eth_chainId')).toBe('0x7a6a');
    // The network left is still open: its transaction has not settled yet under the congestion.
    const rows = await get<NetworkInfo[]>('/api/networks');
    expect(rows.find((n) => n.network === 'local-2')!.active).toBe(true);
    expect(rows.find((n) => n.network === 'local')!.openNonces).toBe(1);

    const b = await call<TxRecord>('POST', '/api/tx');
    expect(b.status).toBe(201);
    expect([b.body.nonce, b.body.chainId, b.body.from]).toEqual([0, 31338, a.from]);
    const b2 = await call<TxRecord>('POST', '/api/tx');
    expect([b2.body.nonce, b2.body.chainId]).toEqual([1, 31338]);

    // /api/tx answers for the active network only, every record stamped with its chain.
    const shown = await get<TxRecord[]>('/api/tx');
    expect(shown.length).toBeGreaterThanOrEqual(2);
    expect(shown.every((r) => r.chainId === 31338)).toBe(true);
    expect(shown.some((r) => r.transactionHash === a.transactionHash)).toBe(false);
    expect((await call('GET', `/api/tx/${a.transactionHash}`)).status).toBe(404);

    await waitFor('both local-2 nonces confirmed', async () => (allConfirmed(await get<TxRecord[]>('/api/tx')) ? true : undefined), {
      timeoutMs: 60_000,
      retryErrors: true,
    });
  });

  it("keeps watching local's transaction while local-2 is shown: it is replaced and confirmed there", async () => {
    const final = await waitFor(
      'the local nonce confirmed in the background',
      async () => (allConfirmed(recordsOf('local')) ? recordsOf('local') : undefined),
      { timeoutMs: 120_000, retryErrors: true },
    );
    expect(final.every((r) => r.nonce === 0)).toBe(true);
    // Stuck at 1 gwei behind the load: replaced after the switch, by the session left open.
    expect(final.some((r) => r.attempt > 0 && r.createdAt > switchedAt)).toBe(true);
    expect(final.filter((r) => r.status === 'confirmation')).toHaveLength(1);
    expect((await get<AppInfo>('/api/app')).network).toBe('local-2');
    // The data service's health as the dashboard shows it: the shown network's entry, not the service's default.
    expect(await get<{ chainId: number; roles: string[] }>('/api/service-health')).toMatchObject({
      reachable: true,
      chainId: 31338,
      roles: ['indexer-leader', 'watcher-leader'],
    });
  });

  it('answers the listing for the active network (the key holds sample tokens on both)', async () => {
    const key = (await get<AppInfo>('/api/app')).address!;
    await waitFor(
      'local-2 tokens listed',
      async () => ((await get<TokenPage>(`/nft/v1/accounts/${key}/tokens`)).pagination.totalCount >= 3 ? true : undefined),
      { timeoutMs: 60_000, retryErrors: true },
    );
  });

  it('switches back: local shows its own nonce only, and the next send there takes nonce 1', async () => {
    const back = await call<AppInfo>('POST', '/api/networks/active', { platform: 'ethereum', network: 'local' });
    expect(back.body.chainId).toBe(31337);
    const shown = await get<TxRecord[]>('/api/tx');
    expect(shown.every((r) => r.chainId === 31337 && r.nonce === 0)).toBe(true);
    const next = await call<TxRecord>('POST', '/api/tx');
    expect([next.body.nonce, next.body.chainId]).toEqual([1, 31337]);
  });

  it('refuses a network the service does not serve, in one sentence naming those it does', async () => {
    const r = await call<{ error: { code: string; message: string } }>('POST', '/api/networks/active', {
      platform: 'ethereum',
      network: 'mainnet',
    });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toMatch(/does not serve ethereum\/mainnet.*ethereum\/local, ethereum\/local-2/);
    const bad = await call<{ error: { message: string } }>('POST', '/api/networks/active', { platform: 'ethereum' });
    expect(bad.status).toBe(400);
  });
});
