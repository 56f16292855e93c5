// `txdesk serve` with no configuration at all: the embedded dev chain and data service, a generated funded key that
// owns sample tokens, the dev chain panel's routes, a transaction that reaches confirmation, and key routes that stay
// shut over HTTP without --allow-key-routes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { startEmbeddedNetwork } from '../../src/embedded/embedded-network.js';
import { silentLogger } from '../../src/lib/log.js';
import type { DevchainStatus, KeyInfo } from '../../src/shared/desktop-api.js';
import type { TokenPage } from '../../src/shared/listing.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { authHeader } from '../support/app/core-api-token.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-embedded-'));
let serve: RunningServe;
let app: string;
let auth: { authorization: string };

beforeAll(async () => {
  // TXDESK_KEYCHAIN=off: a test must not leave keys in the keychain of the machine it runs on.
  serve = await startServe({
    port: 0,
    startEmbedded: startEmbeddedNetwork,
    env: { TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { timeoutMs: 2_000, confirmations: 1 },
    log: silentLogger,
  });
  app = serve.readyInfo().apiUrl;
  auth = authHeader(serve.readyInfo().apiTokenFile);
});
afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A read, with the API token (reads need it too). */
const get = async <T>(path: string): Promise<T> => (await (await fetch(`${app}${path}`, { headers: auth })).json()) as T;

describe('embedded default', () => {
  it('prints a ready line with every address but never the key', () => {
    const info = serve.readyInfo();
    expect(info).toMatchObject({ ready: true, chainId: 31337, platform: 'ethereum', network: 'local', mode: 'embedded' });
    expect(info.appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?login=[A-Za-z0-9_-]+$/);
    expect(info.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.apiTokenFile).toBe(join(dir, 'api-token'));
    expect(info.nodeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.serviceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(info.rpcUrl).toBe(`${info.apiUrl}/rpc`);
    expect(Object.keys(info).sort()).toEqual([
      'address',
      'apiTokenFile',
      'apiUrl',
      'appUrl',
      'chainId',
      'mode',
      'network',
      'nodeUrl',
      'platform',
      'ready',
      'rpcUrl',
      'serviceUrl',
      'status',
    ]);
    expect(info.status.node.state).toBe('connected');
    expect(info.status.tracker.state).toMatch(/^(connecting|connected)$/);
  });

  it('generated a funded key that owns sample tokens', async () => {
    const key = await get<KeyInfo>('/api/key');
    expect(key.address).toBe(serve.readyInfo().address);
    expect(BigInt(key.balanceWei)).toBeGreaterThan(10n ** 18n);
    // Minted before start-up finished; the indexer lists them within a block or two.
    await waitFor(
      'the sample tokens listed',
      async () => ((await get<TokenPage>(`/nft/v1/accounts/${key.address}/tokens`)).pagination.totalCount >= 3 ? true : undefined),
      { timeoutMs: 90_000, retryErrors: true },
    );
  });

  it('reports the dev chain and changes its congestion, pushing status on the event stream', async () => {
    const status = await get<DevchainStatus>('/api/devchain');
    expect(status.congestion).toBe('off');
    const seen: DevchainStatus[] = [];
    const off = serve.core.api.onDevchainStatus((s) => seen.push(s));
    const put = await fetch(`${app}/api/devchain/congestion`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ level: 'low' }),
    });
    expect(((await put.json()) as DevchainStatus).congestion).toBe('low');
    await waitFor('a newer block pushed', async () => (seen.some((s) => s.blockNumber > status.blockNumber) ? true : undefined), {
      timeoutMs: 30_000,
      retryErrors: true,
    });
    off();
    await serve.core.api.setCongestion('off');
  });

  it('takes a curl-style POST /api/tx to confirmation', async () => {
    const res = await fetch(`${app}/api/tx`, { method: 'POST', headers: auth });
    expect(res.status).toBe(201);
    const rec = (await res.json()) as TxRecord;
    await waitFor(
      'confirmation',
      async () =>
        (await get<TxRecord[]>('/api/tx')).find((r) => r.transactionHash === rec.transactionHash)?.status === 'confirmation'
          ? true
          : undefined,
      { timeoutMs: 60_000, retryErrors: true },
    );
  });

  it('keeps key management and the node/service URLs off the network without --allow-key-routes, token or not', async () => {
    const before = await get<KeyInfo>('/api/key');
    const json = { ...auth, 'content-type': 'application/json' };
    const calls: [string, string, unknown][] = [
      ['POST', '/api/key/generate', { replace: true }],
      ['POST', '/api/key/import', { privateKey: `0x${'11'.repeat(32)}`, replace: true }],
      ['POST', '/api/key/export', { passphrase: 'a long passphrase' }],
      ['PATCH', '/api/settings', { nodeUrl: 'http://evil.example:8545' }],
      ['PATCH', '/api/settings', { serviceUrl: 'http://evil.example', policy: { maxReplacements: 1 } }],
    ];
    for (const [method, path, body] of calls) {
      const r = await fetch(`${app}${path}`, { method, headers: json, body: JSON.stringify(body) });
      expect(`${path} ${r.status}`).toBe(`${path} 403`);
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/--allow-key-routes/);
    }
    expect((await get<KeyInfo>('/api/key')).address).toBe(before.address);
    const settings = await get<{ nodeUrl: string; policy: { maxReplacements: number } }>('/api/settings');
    expect(settings.nodeUrl).not.toContain('evil');
    expect(settings.policy.maxReplacements).not.toBe(1);
    // The same calls through the core (Electron's IPC) are not affected.
    await expect(serve.core.api.generateKey()).rejects.toThrow(before.address);
  });
});
