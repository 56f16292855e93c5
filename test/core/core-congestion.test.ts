// The app core on a real, congested dev chain: 20 transactions all reach confirmation, stuck ones are replaced with
// fees the node accepts, every losing hash is `replaced`, and no nonce is skipped or used twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src/core/create-core.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord, TxRecordWithHistory } from '../../src/shared/tx-record.js';
import { authHeader } from '../support/app/core-api-token.js';
import { allConfirmed, expectCleanEndState, startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-congestion-'));
let chain: TestChain;
let core: Core;
let appUrl: string;
let auth: { authorization: string };

beforeAll(async () => {
  chain = await startTestChain({ congestion: 'high' });
  core = createCore({
    env: chain.env,
    dataDir: dir,
    policy: { pricing: 'seed', timeoutMs: 2_000, confirmations: 2, maxReplacements: 5 },
    http: { port: 0, rendererDir: join(dir, 'no-renderer') },
    log: silentLogger,
  });
  const rt = await core.start();
  appUrl = rt.appUrl!;
  auth = authHeader(rt.apiTokenFile!);
});

afterAll(async () => {
  await core?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('core under congestion', { timeout: 300_000 }, () => {
  it('confirms 20 generated transactions, replacing every stuck one', async () => {
    const created: TxRecord[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${appUrl}/api/tx`, { method: 'POST', headers: auth });
      expect(res.status).toBe(201);
      created.push((await res.json()) as TxRecord);
    }
    expect(created.map((r) => r.nonce)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(created.map((r) => r.gasPrice))).toEqual(new Set(['1000000000']));

    const final = await waitFor(
      'every nonce confirmed',
      async () => {
        const list = (await (await fetch(`${appUrl}/api/tx`, { headers: auth })).json()) as TxRecord[];
        return allConfirmed(list) ? list : undefined;
      },
      { timeoutMs: 180_000, retryErrors: true },
    );

    await expectCleanEndState(chain, final, 20);
    // Under `high` congestion a 1 gwei transaction waits: replacements happened, and the winners paid the bumped fee.
    const replacements = final.filter((r) => r.attempt > 0);
    expect(replacements.length).toBeGreaterThan(0); // how many of the 20 waited depends on the load's timing
    for (const r of replacements) {
      const prev = final.find((p) => p.transactionHash === r.replaces)!;
      expect(prev.replacedBy).toBe(r.transactionHash);
      expect(BigInt(r.gasPrice) * 1000n).toBeGreaterThanOrEqual(BigInt(prev.gasPrice) * 1125n);
      expect(BigInt(r.gasPrice)).toBeLessThanOrEqual(500n * 10n ** 9n);
    }
    for (const r of replacements) {
      // Replaced because it was stuck (the tracker said pending), and the node accepted the bumped fee.
      const prevHistory = (
        (await (await fetch(`${appUrl}/api/tx/${r.replaces}`, { headers: auth })).json()) as TxRecordWithHistory
      ).history.map((e) => e.kind);
      expect(prevHistory.indexOf('pending')).toBeGreaterThan(-1);
      expect(prevHistory.indexOf('replacement-sent')).toBeGreaterThan(prevHistory.indexOf('pending'));
      const own = ((await (await fetch(`${appUrl}/api/tx/${r.transactionHash}`, { headers: auth })).json()) as TxRecordWithHistory).history;
      if (r.status === 'confirmation') {
        expect(own.map((e) => e.kind)).toContain('broadcast');
        expect(own.map((e) => e.kind)).not.toContain('broadcast-failed');
      } else {
        // A replacement can lose the race: the original was mined between `pending` and the replacement's broadcast.
        for (const e of own.filter((x) => x.kind === 'broadcast-failed')) expect(e.detail.failure, JSON.stringify(own)).toBe('nonce-used');
      }
    }
    const winners = final.filter((r) => r.status === 'confirmation');
    const stuckWinners = winners.filter((r) => r.attempt > 0);
    expect(stuckWinners.length).toBeGreaterThan(0); // how many depends on the load's timing
    // The history of a replaced original tells the story in order.
    const loser = final.find((r) => r.status === 'replaced' && r.replacedBy)!;
    const detail = (await (await fetch(`${appUrl}/api/tx/${loser.transactionHash}`, { headers: auth })).json()) as TxRecordWithHistory;
    expect(detail.history.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['signed', 'broadcast', 'pending', 'replacement-sent', 'replaced']),
    );
    // Records arrive oldest first.
    expect(final.map((r) => r.createdAt)).toEqual([...final.map((r) => r.createdAt)].sort());
  });

  it('does the same with EIP-1559 transactions, bumping both fee fields', async () => {
    await core.api.updateSettings({ policy: { txType: 'eip1559' } });
    const before = ((await (await fetch(`${appUrl}/api/tx`, { headers: auth })).json()) as TxRecord[]).length;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${appUrl}/api/tx`, { method: 'POST', headers: auth });
      expect(res.status).toBe(201);
      expect(((await res.json()) as TxRecord).txType).toBe('eip1559');
    }
    const final = await waitFor(
      'every nonce confirmed',
      async () => {
        const list = (await (await fetch(`${appUrl}/api/tx`, { headers: auth })).json()) as TxRecord[];
        return list.length >= before + 5 && allConfirmed(list) ? list : undefined;
      },
      { timeoutMs: 180_000, retryErrors: true },
    );
    await expectCleanEndState(chain, final, 25);
    const bumped = final.filter((r) => r.txType === 'eip1559' && r.attempt > 0);
    expect(bumped.length).toBeGreaterThan(0); // how many of the 5 waited depends on the load's timing
    for (const r of bumped) {
      const prev = final.find((p) => p.transactionHash === r.replaces)!;
      expect(BigInt(r.gasPrice) * 1000n).toBeGreaterThanOrEqual(BigInt(prev.gasPrice) * 1125n);
      expect(BigInt(r.maxPriorityFeePerGas!) * 1000n).toBeGreaterThanOrEqual(BigInt(prev.maxPriorityFeePerGas!) * 1125n);
    }
  });

  it('concedes a nonce used outside the app while it was stopped, and carries on after it', async () => {
    const { Wallet, JsonRpcProvider } = await import('ethers');
    const other = Wallet.createRandom();
    await chain.dev.devchain.fund(other.address, 10n ** 20n);
    const otherDir = join(dir, 'elsewhere');
    const make = () =>
      createCore({
        env: { ...chain.env, PRIVATE_KEY: other.privateKey },
        dataDir: otherDir,
        policy: { pricing: 'seed', timeoutMs: 600_000, confirmations: 1 }, // no replacement: the stuck one just waits
        http: false,
        log: silentLogger,
      });
    const first = make();
    await first.start();
    const ours = await first.api.sendTransaction();
    await first.stop();

    // The same key, from another wallet program: nonce 0 again at a fee that beats the load, so it is mined instead.
    const provider = new JsonRpcProvider(chain.dev.devchain.nodeUrl, undefined, { staticNetwork: true, pollingInterval: 200 });
    const foreign = await other
      .connect(provider)
      .sendTransaction({ to: other.address, value: 1n, nonce: 0, gasPrice: 5n * 10n ** 9n, gasLimit: 21_000n, type: 0 });
    await foreign.wait();
    provider.destroy();

    const second = make();
    const rt = await second.start();
    try {
      expect(rt.recovery).toMatchObject({ nonces: 1, usedElsewhere: 1 });
      const rec = await second.api.getTransaction(ours.transactionHash);
      expect(rec.status).toBe('replaced');
      expect(rec.history.at(-1)!.kind).toBe('nonce-used-elsewhere');
      const next = await second.api.sendTransaction();
      expect(next.nonce).toBe(1);
    } finally {
      await second.stop();
    }
  });
});
