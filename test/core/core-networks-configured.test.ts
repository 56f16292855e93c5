// Networks on a configured core (NODE_ENDPOINT + TXDESK_SERVICE_URL at a separately started two-chain dev service):
// the service's second network is listed but cannot be chosen until its node URL is saved; a node on the wrong chain
// is refused with both chain ids; with the right node the switch works and the key's nonces start again at 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src/core/create-core.js';
import { silentLogger } from '../../src/lib/log.js';
import type { NetworkInfo } from '../../src/shared/desktop-api.js';
import { isTxdeskError } from '../../src/shared/errors.js';
import { allConfirmed, startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-networks-configured-'));
let chain: TestChain;
let core: Core;
const local2 = { platform: 'ethereum', network: 'local-2' };

beforeAll(async () => {
  chain = await startTestChain({ secondChain: true });
  await chain.dev.networks[1]!.devchain.fund(chain.address, 10n ** 19n);
  core = createCore({ env: chain.env, dataDir: dir, policy: { timeoutMs: 2_000, confirmations: 1 }, http: false, log: silentLogger });
  await core.start();
});
afterAll(async () => {
  await core?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const row = async (network: string): Promise<NetworkInfo> => (await core.api.listNetworks()).find((n) => n.network === network)!;

describe('networks on a configured core', { timeout: 300_000 }, () => {
  it('lists the second network without a node, and refuses to switch to it', async () => {
    expect(await row('local')).toMatchObject({ active: true, chainId: 31337, nodeUrl: chain.env.NODE_ENDPOINT, unavailable: null });
    const second = await row('local-2');
    expect(second).toMatchObject({ active: false, chainId: 31338, nodeUrl: null, state: 'serving' });
    expect(second.unavailable).toBe('No node URL is set for ethereum/local-2: add one under Settings → Networks to switch to it.');
    await expect(core.api.switchNetwork(local2)).rejects.toThrow(second.unavailable!);
  });

  it("refuses a saved node that is on another chain than the service's network", async () => {
    await core.api.updateSettings({ nodeUrls: { 'ethereum/local-2': chain.env.NODE_ENDPOINT! } });
    const refused = await core.api.switchNetwork(local2).catch((e: unknown) => e);
    expect(isTxdeskError(refused) && refused.code).toBe('CONFLICT');
    expect((refused as Error).message).toMatch(/is on chain 31337 but ethereum\/local-2 is chain 31338/);
    expect((await core.api.getAppInfo()).network).toBe('local');
  });

  it('switches once the right node is saved, with its own nonces', async () => {
    const settings = await core.api.updateSettings({ nodeUrls: { 'ethereum/local-2': chain.dev.networks[1]!.nodeUrl } });
    expect(settings.nodeUrls).toEqual({ 'ethereum/local-2': chain.dev.networks[1]!.nodeUrl });
    expect((await row('local-2')).unavailable).toBeNull();
    const onLocal = await core.api.sendTransaction();
    const info = await core.api.switchNetwork(local2);
    expect(info).toMatchObject({ network: 'local-2', chainId: 31338, mode: 'configured', address: onLocal.from });
    const onLocal2 = await core.api.sendTransaction();
    expect([onLocal.nonce, onLocal.chainId, onLocal2.nonce, onLocal2.chainId]).toEqual([0, 31337, 0, 31338]);
    await waitFor('the local-2 transaction confirmed', async () => (allConfirmed(await core.api.listTransactions()) ? true : undefined), {
      timeoutMs: 60_000,
      retryErrors: true,
    });
    const local = core
      .runtime()!
      .sessions.all()
      .find((s) => s.network === 'local')!;
    await waitFor('the local transaction confirmed in the background', async () => (allConfirmed(local.store.list()) ? true : undefined), {
      timeoutMs: 60_000,
      retryErrors: true,
    });
    // Forgetting the node keeps the open network working for this run.
    expect((await core.api.updateSettings({ nodeUrls: { 'ethereum/local-2': null } })).nodeUrls).toEqual({});
  });
});
