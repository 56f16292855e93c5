// Every nonce settles under real faults, on the real congested dev chain with the app's node and data service links
// behind fault proxies: a replacement refused for funds then a top-up, a pool refusal, dropped transactions (one and
// all), a node restart that loses the pool, a switch to another node URL, the data service down during POST /api/tx,
// cancel and speed-up, the fee cap on a first attempt, and a receipt withdrawn by a reorganisation. Each ends with
// every nonce settled.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src/core/create-core.js';
import { silentLogger } from '../../src/lib/log.js';
import type { ReplacementPolicy } from '../../src/shared/desktop-api.js';
import { isTxdeskError } from '../../src/shared/errors.js';
import type { TxRecord, TxRecordWithHistory } from '../../src/shared/tx-record.js';
import { allConfirmed, expectCleanEndState, freshAccount, startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { GWEI } from '../support/app/core-records.js';
import { startRpcFaults, startTcpProxy, type RpcFaults, type TcpProxy } from '../support/faults/fault-proxy.js';
import { waitFor } from '../support/poll.js';

const root = mkdtempSync(join(tmpdir(), 'txdesk-core-faults-'));
let chain: TestChain;
let node: RpcFaults;
let service: TcpProxy;
let core: Core | null = null;
let dirs = 0;

beforeAll(async () => {
  // Under `high` the load pays 1.7-1.8 gwei: a 1 gwei transaction stays in the pool until it is replaced.
  chain = await startTestChain({ congestion: 'high' });
  node = await startRpcFaults(chain.dev.devchain.nodeUrl);
  service = await startTcpProxy(chain.dev.service.url);
});

afterEach(async () => {
  await core?.stop();
  core = null;
  await chain.rpc('evm_setIntervalMining', [1]);
});

afterAll(async () => {
  await node?.close();
  await service?.close();
  await chain?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A core on a fresh account and data dir, reaching the node and the service through the fault proxies. */
async function startCore(
  policy: Partial<ReplacementPolicy> = {},
  o: { account?: { privateKey: string; address: string }; dataDir?: string; nodeUrl?: string } = {},
): Promise<{ core: Core; address: string; dataDir: string }> {
  const account = o.account ?? (await freshAccount(chain));
  const dataDir = o.dataDir ?? join(root, `core-${dirs++}`);
  core = createCore({
    env: { ...chain.env, NODE_ENDPOINT: o.nodeUrl ?? node.url, TXDESK_SERVICE_URL: service.url, PRIVATE_KEY: account.privateKey },
    dataDir,
    policy: { pricing: 'seed', timeoutMs: 2_000, confirmations: 2, ...policy },
    http: false,
    log: silentLogger,
  });
  await core.start();
  return { core, address: account.address, dataDir };
}

/** Waits until every nonce of the account is confirmed, then checks the end state against the chain. */
async function expectSettled(c: Core, address: string, nonces: number): Promise<TxRecord[]> {
  const records = await waitFor(
    `${nonces} nonce(s) settled`,
    async () => {
      const all = await c.api.listTransactions();
      return all.length && allConfirmed(all) && new Set(all.map((r) => r.nonce)).size === nonces ? all : undefined;
    },
    { timeoutMs: 180_000, retryErrors: true },
  );
  await expectCleanEndState(chain, records, nonces, address);
  for (const r of records) expect(r.problem, `problem of ${r.transactionHash}`).toBeNull();
  return records;
}

const history = (c: Core, hash: string): Promise<TxRecordWithHistory> => c.api.getTransaction(hash);
const hex = (v: bigint) => `0x${v.toString(16)}`;
/** Holds block production while a fault is set up, so nothing is mined in between. */
const pauseMining = () => chain.rpc('evm_setIntervalMining', [0]);
const resumeMining = () => chain.rpc('evm_setIntervalMining', [1]);

describe('faults on the dev chain', { timeout: 240_000 }, () => {
  it('the fee cap holds from the first attempt: 409 naming the cap and the price, nothing signed', async () => {
    const block = await chain.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
    const base = BigInt(block.baseFeePerGas);
    const cap = base / 4n;
    const { core: c } = await startCore({ maxFeeWei: String(cap), initialFeeWei: String(cap) });
    const err = await c.api.sendTransaction().catch((e: unknown) => e);
    expect(isTxdeskError(err, 'CONFLICT')).toBe(true);
    expect((err as { status: number }).status).toBe(409);
    expect((err as Error).message).toMatch(
      /^The network's price is .+, above your fee cap of .+; raise the cap in Settings or wait for fees to fall, then retry\.$/,
    );
    expect(await c.api.listTransactions()).toEqual([]);
  });

  it('a replacement refused for funds waits with one sentence and goes out after a top-up; the first attempt stays live', async () => {
    const { core: c, address } = await startCore();
    const first = await c.api.sendTransaction();
    // Just enough for the first attempt, not for any replacement.
    await chain.rpc('anvil_setBalance', [address, hex((21_000n * BigInt(first.gasPrice) * 105n) / 100n)]);
    const refused = await waitFor(
      'a funds problem',
      async () => (await c.api.listTransactions()).find((r) => r.problem?.reason === 'funds'),
      { timeoutMs: 180_000, retryErrors: true },
    );
    expect(refused.kind).toBe('replace');
    expect(refused.problem!.summary).toMatch(
      /^Balance 0\.\d+ ETH is below the 0\.\d+ ETH this replacement needs; add funds to 0x[0-9a-f]{40} and it is sent again on the next block\.$/,
    );
    expect(
      (await history(c, refused.transactionHash)).history.some(
        (e) => e.kind === 'broadcast-failed' && e.summary === refused.problem!.summary,
      ),
    ).toBe(true);
    expect(await chain.rpc('eth_getTransactionByHash', [first.transactionHash])).not.toBeNull();
    await chain.rpc('anvil_setBalance', [address, hex(10n ** 18n)]);
    const records = await expectSettled(c, address, 1);
    const after = records.find((r) => r.transactionHash === refused.transactionHash)!;
    expect((await history(c, after.transactionHash)).history.some((e) => e.kind === 'broadcast')).toBe(true);
  });

  it('a pool refusal is a problem on the nonce, sent again on new blocks', async () => {
    const { core: c, address } = await startCore();
    node.refuseSends(2, 'txpool is full');
    const tx = await c.api.sendTransaction();
    expect(tx.problem).toMatchObject({ reason: 'refused' });
    expect(tx.problem!.summary).toBe("The node's pool is full and turned this transaction away; it is sent again on every new block.");
    await expectSettled(c, address, 1);
    const h = await history(c, tx.transactionHash);
    expect(h.history.filter((e) => e.kind === 'broadcast-failed')).toHaveLength(1);
  });

  it('transactions dropped from the pool (one, then all) come back exactly as signed, with replacements off', async () => {
    const { core: c, address } = await startCore({ maxReplacements: 0, initialFeeWei: String(5n * GWEI) });
    await pauseMining();
    const one = await c.api.sendTransaction();
    expect(await chain.rpc('anvil_dropTransaction', [one.transactionHash])).toBeTruthy();
    const three = [await c.api.sendTransaction(), await c.api.sendTransaction(), await c.api.sendTransaction()];
    await chain.rpc('anvil_dropAllTransactions');
    for (const t of [one, ...three]) expect(await chain.rpc('eth_getTransactionByHash', [t.transactionHash])).toBeNull();
    await resumeMining();
    const records = await expectSettled(c, address, 4);
    expect(records).toHaveLength(4);
    for (const t of [one, ...three]) {
      const h = await history(c, t.transactionHash);
      expect(h.status).toBe('confirmation');
      expect(h.history.find((e) => e.kind === 'rebroadcast')!.summary).toMatch(/exactly as signed: the node no longer knew it/);
    }
  });

  it('a node restart that loses the pool: refused calls say so, and every open nonce is sent again once it is back', async () => {
    const { core: c, address } = await startCore({ maxReplacements: 0, initialFeeWei: String(5n * GWEI) });
    await pauseMining();
    const sent = [await c.api.sendTransaction(), await c.api.sendTransaction()];
    await node.down();
    await chain.rpc('anvil_dropAllTransactions');
    const err = await c.api.sendTransaction().catch((e: unknown) => e);
    expect(isTxdeskError(err, 'UPSTREAM_UNAVAILABLE')).toBe(true);
    await resumeMining();
    await new Promise((r) => setTimeout(r, 3_000));
    await node.up();
    await expectSettled(c, address, 2);
    for (const t of sent) expect((await history(c, t.transactionHash)).history.some((e) => e.kind === 'rebroadcast')).toBe(true);
  });

  it('a switch to another node URL: every open nonce is sent to the new node exactly as signed', async () => {
    const account = await freshAccount(chain);
    const policy = { maxReplacements: 0, initialFeeWei: String(5n * GWEI) };
    const first = await startCore(policy, { account });
    await pauseMining();
    const sent = [await first.core.api.sendTransaction(), await first.core.api.sendTransaction()];
    await first.core.stop();
    // The new node never saw them.
    await chain.rpc('anvil_dropAllTransactions');
    const other = await startRpcFaults(chain.dev.devchain.nodeUrl);
    try {
      const { core: c } = await startCore(policy, { account, dataDir: first.dataDir, nodeUrl: other.url });
      expect((await c.api.getAppInfo()).nodeUrl).toBe(other.url);
      await resumeMining();
      await expectSettled(c, account.address, 2);
      for (const t of sent) {
        const h = await history(c, t.transactionHash);
        expect(h.status).toBe('confirmation');
        expect(h.history.some((e) => e.kind === 'rebroadcast')).toBe(true);
      }
    } finally {
      await core?.stop();
      core = null;
      await other.close();
    }
  });

  it('with the data service unreachable, POST /api/tx answers at once and the transaction is tracked once it is back', async () => {
    const { core: c, address } = await startCore();
    await service.down();
    const started = Date.now();
    const tx = await c.api.sendTransaction();
    // Not a performance figure: a send that waited for the tracker would hang for its request timeout (10 s).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(tx.problem).toBeNull();
    await new Promise((r) => setTimeout(r, 2_000));
    await service.up();
    // Only the tracker says `pending`: the hash was registered after the service came back.
    await waitFor(
      'a pending from the tracker',
      async () => ((await history(c, tx.transactionHash)).history.some((e) => e.kind === 'pending') ? true : undefined),
      { timeoutMs: 180_000, retryErrors: true },
    );
    await expectSettled(c, address, 1);
  });

  it('cancel and speed-up under congestion: 202 with the new record, mined as such; 409 once mined, 404 unknown', async () => {
    const { core: c, address } = await startCore({ timeoutMs: 120_000 });
    const a = await c.api.sendTransaction();
    const b = await c.api.sendTransaction();
    const up = await c.api.speedUpTransaction(a.transactionHash);
    expect(up).toMatchObject({ kind: 'speed-up', nonce: a.nonce, replaces: a.transactionHash, attempt: 1 });
    const cancel = await c.api.cancelTransaction(b.transactionHash);
    expect(cancel).toMatchObject({ kind: 'cancel', nonce: b.nonce, replaces: b.transactionHash, attempt: 1 });
    expect(BigInt(cancel.gasPrice)).toBeGreaterThan(BigInt(b.gasPrice));
    const records = await expectSettled(c, address, 2);
    const winner = (nonce: number) => records.find((r) => r.nonce === nonce && r.status === 'confirmation')!;
    expect(winner(a.nonce).kind).toBe('speed-up');
    expect(winner(b.nonce).kind).toBe('cancel');
    const mined = await c.api.cancelTransaction(a.transactionHash).catch((e: unknown) => e);
    expect(isTxdeskError(mined, 'CONFLICT')).toBe(true);
    expect((mined as Error).message).toMatch(/^Nonce 0 is already mined by 0x[0-9a-f]{8}…; there is nothing left to cancel\.$/);
    const unknown = await c.api.speedUpTransaction('0x' + 'ab'.repeat(32)).catch((e: unknown) => e);
    expect(isTxdeskError(unknown, 'NOT_FOUND')).toBe(true);
  });

  // Last: the reorganisation rewrites the shared chain's recent blocks.
  it('a receipt withdrawn by a reorg puts the record back to pending in words, and the nonce settles again', async () => {
    const { core: c, address } = await startCore({ confirmations: 4, initialFeeWei: String(5n * GWEI) });
    // The reorg rebuilds state from the block before the one that mines the transaction: the account's funds
    // (anvil_setBalance in startCore) must be older than that block, or they vanish with it.
    const headNow = async () => Number(BigInt(await chain.rpc<string>('eth_blockNumber')));
    const funded = await headNow();
    await waitFor('two blocks past the funding', async () => ((await headNow()) >= funded + 2 ? true : undefined), {
      timeoutMs: 180_000,
      retryErrors: true,
    });
    const tx = await c.api.sendTransaction();
    const mined = await waitFor(
      'a receipt',
      async () => {
        const r = await c.api.getTransaction(tx.transactionHash);
        return r.status === 'receipt' ? r : undefined;
      },
      { timeoutMs: 180_000, retryErrors: true },
    );
    await chain.rpc('anvil_reorg', [(await headNow()) - Number(mined.data.blockNumber) + 1, []]);
    await waitFor(
      'the reorg in the history',
      async () => ((await history(c, tx.transactionHash)).history.some((e) => e.kind === 'reorged') ? true : undefined),
      { timeoutMs: 180_000, retryErrors: true },
    );
    const records = await expectSettled(c, address, 1);
    const h = await history(c, tx.transactionHash);
    expect(h.history.find((e) => e.kind === 'reorged')!.summary).toMatch(/^No longer mined: block \d+ was reorganised away/);
    // The reorganised transaction is among the settled records (under congestion a replacement may have joined it).
    expect(records.map((r) => r.transactionHash)).toContain(tx.transactionHash);
  });
});
