// Skipped replacements on a real, congested dev chain: a nonce skipped for the fee cap or the replacement limit
// waits without new history, and is replaced and mined once the user raises the limit in the settings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src/core/create-core.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxEvent, TxRecord, TxRecordWithHistory } from '../../src/shared/tx-record.js';
import { expectCleanEndState, startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { waitFor } from '../support/poll.js';

const GWEI = 1_000_000_000n;
const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-retry-'));
let chain: TestChain;
let core: Core;

beforeAll(async () => {
  // Under `high` the load pays 1.7-1.8 gwei: a 1 gwei transaction stays in the pool and a replacement needs ~1.8 gwei.
  chain = await startTestChain({ congestion: 'high' });
  core = createCore({
    env: chain.env,
    dataDir: dir,
    policy: { pricing: 'seed', timeoutMs: 2_000, confirmations: 2, maxFeeWei: String((15n * GWEI) / 10n) },
    http: false,
    log: silentLogger,
  });
  await core.start();
});

afterAll(async () => {
  await core?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const engine = () => core.runtime()!.engine;
const skipsOf = (t: TxRecordWithHistory) => t.history.filter((e) => e.kind === 'replacement-skipped');
const detailOf = (e: TxEvent) => JSON.stringify(e.detail);

async function waitForSkip(hash: string, reason: string): Promise<TxRecordWithHistory> {
  return waitFor(
    `a ${reason} skip of ${hash}`,
    async () => {
      const t = await core.api.getTransaction(hash);
      return skipsOf(t).some((e) => e.detail.reason === reason) ? t : undefined;
    },
    { timeoutMs: 180_000, retryErrors: true },
  );
}

async function waitForConfirmedNonce(nonce: number): Promise<TxRecord[]> {
  return waitFor(
    `nonce ${nonce} confirmed`,
    async () => {
      const group = (await core.api.listTransactions()).filter((r) => r.nonce === nonce);
      return group.some((r) => r.status === 'confirmation') && group.every((r) => r.status === 'confirmation' || r.status === 'replaced')
        ? group
        : undefined;
    },
    { timeoutMs: 180_000, retryErrors: true },
  );
}

describe('retrying skipped replacements on the dev chain', { timeout: 300_000 }, () => {
  it('a cap skip stays one event across retries, and is replaced and mined once the cap is raised', async () => {
    const tx = await core.api.sendTransaction();
    expect(tx.nonce).toBe(0);
    const skipped = await waitForSkip(tx.transactionHash, 'cap');
    expect(BigInt(skipped.history.find((e) => e.detail.reason === 'cap')!.detail.neededWei as string)).toBeGreaterThan((15n * GWEI) / 10n);

    // Several ticks with the cap unchanged: the same facts, so no new event and nothing sent.
    for (let i = 0; i < 3; i++) {
      const s = await engine().retrySkipped();
      expect(s.replaced).toBe(0);
    }
    const still = await core.api.getTransaction(tx.transactionHash);
    expect(skipsOf(still)).toHaveLength(1);
    expect(still.replacedBy).toBeNull();

    await core.api.updateSettings({ policy: { maxFeeWei: String(500n * GWEI) } });
    const group = await waitForConfirmedNonce(0);
    const winner = group.find((r) => r.status === 'confirmation')!;
    expect(winner.attempt).toBeGreaterThan(0);
    expect(BigInt(winner.gasPrice)).toBeGreaterThan((15n * GWEI) / 10n);
    const orig = await core.api.getTransaction(tx.transactionHash);
    expect(orig.status).toBe('replaced');
    const kinds = orig.history.map((e) => e.kind);
    expect(kinds.indexOf('replacement-sent')).toBeGreaterThan(kinds.indexOf('replacement-skipped'));
    expect(skipsOf(orig)).toHaveLength(1);
  });

  it('a max-replacements skip is not retried until maxReplacements is raised, then it is', async () => {
    await core.api.updateSettings({ policy: { maxReplacements: 0 } });
    const tx = await core.api.sendTransaction();
    expect(tx.nonce).toBe(1);
    await waitForSkip(tx.transactionHash, 'max-replacements');

    for (let i = 0; i < 3; i++) expect(await engine().retrySkipped()).toEqual({ waiting: 0, replaced: 0, recorded: 0 });
    // A settings change that leaves the limit where it is does not unstick it either.
    await core.api.updateSettings({ policy: { bumpPercent: 20 } });
    await engine().idle();
    const still = await core.api.getTransaction(tx.transactionHash);
    expect(skipsOf(still).map((e) => e.detail.reason)).toEqual(['max-replacements']);
    expect(still.replacedBy).toBeNull();
    expect((await core.api.listTransactions()).filter((r) => r.nonce === 1)).toHaveLength(1);

    await core.api.updateSettings({ policy: { maxReplacements: 3 } });
    const group = await waitForConfirmedNonce(1);
    expect(group.find((r) => r.status === 'confirmation')!.attempt).toBeGreaterThan(0);
    expect((await core.api.getTransaction(tx.transactionHash)).status).toBe('replaced');
  });

  it('no record carries two identical skip events in a row, and the chain agrees with the store', async () => {
    for (let i = 0; i < 3; i++) await engine().retrySkipped();
    const all = await core.api.listTransactions();
    for (const r of all) {
      const skips = skipsOf(await core.api.getTransaction(r.transactionHash));
      for (let i = 1; i < skips.length; i++) expect(detailOf(skips[i]!), r.transactionHash).not.toBe(detailOf(skips[i - 1]!));
    }
    await expectCleanEndState(chain, all, 2);
  });
});
