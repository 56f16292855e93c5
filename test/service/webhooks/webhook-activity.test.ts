// Address activity by webhook on a real service and anvil: a mint, a transfer and an ERC-1155 batch into a watched
// address arrive once each with their fields and transaction hash, after the indexer's lag; a move that a
// reorganisation within the lag removed never shows; after one deeper than the lag, on SQLite and on PostgreSQL, the
// delivered moves of the dropped blocks come again as `removed` and the new chain's moves arrive, each once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet, type Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../../src/lib/log.js';
import { startService, type RunningService, type ServiceOptions } from '../../../src/service/index.js';
import { createTestDatabase } from '../../support/service/postgres-db.js';
import { call, waitForIndexed } from '../../support/service/service-harness.js';
import { rpc, startRpcProxy, startTestChain, type TestChain } from '../../support/chain/indexer-chain.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/service/webhook-receiver.js';
import { waitFor } from '../../support/poll.js';

const LAG = 3;
let chain: TestChain;
let service: RunningService;
let receiver: WebhookReceiver;
let dataDir: string;
let nft: Contract;
let multi: Contract;
let apiSecret: string;
const watched = Wallet.createRandom().address.toLowerCase();
const other = Wallet.createRandom().address.toLowerCase();

beforeAll(async () => {
  chain = await startTestChain();
  nft = await chain.deploy('TestNft', 'Alpha', 'ALP');
  multi = await chain.deploy('TestMulti');
  dataDir = mkdtempSync(join(tmpdir(), 'txdesk-webhook-activity-'));
  service = await startService({
    nodeUrl: chain.url,
    dataDir,
    port: 0,
    confirmations: LAG,
    allowPrivateWebhooks: true,
    webhookTuning: { activityPollMs: 100 },
    log: process.env.TXDESK_TEST_LOG ? createLogger('activity-test') : silentLogger,
  });
  await service.accounts.createAccount({
    email: 'activity@example.com',
    password: 'correct horse battery staple',
    name: 'A',
    organization: 'T',
  });
  apiSecret = (await service.accounts.replaceApiSecret('activity@example.com')).apiSecret;
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await service?.stop();
  await chain?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The webhook API as a program of the account calls it: its API secret in the Authorization header. */
const hooks = (rest = '', init: Parameters<typeof call>[1] = {}) =>
  call(`${service.url}/tracker/v1/webhooks${rest}`, { ...init, token: apiSecret });
const head = async () => Number(await rpc<string>(chain.url, 'eth_blockNumber'));
/** Sends a contract call and returns its transaction hash (automine: mined at once). */
async function sendTx(c: Contract, method: string, ...args: unknown[]): Promise<string> {
  const tx = await (c.getFunction(method) as (...a: unknown[]) => Promise<{ hash: string; wait(): Promise<unknown> }>)(...args);
  await tx.wait();
  return tx.hash.toLowerCase();
}
const activity = () =>
  receiver
    .accepted()
    .map((a) => a.body)
    .filter((b) => b.payload.type === 'activity');

describe('address activity', () => {
  it('delivers a mint, a transfer and an ERC-1155 batch into the watched address once each, with their fields', async () => {
    await waitForIndexed(service.url, (await head()) - LAG);
    const created = await hooks('', {
      method: 'POST',
      body: { url: receiver.url, trackerMessages: false, addresses: [watched.toUpperCase().replace('0X', '0x')] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ trackerMessages: false, addresses: [watched] });

    const mintTx = await sendTx(nft, 'mint', watched, 7);
    await sendTx(nft, 'mint', other, 8);
    const moveTx = await sendTx(nft, 'move', watched, 8);
    const batchTx = await sendTx(multi, 'batch', other, watched, [1, 2], [5, 7]);
    await sendTx(nft, 'mint', other, 9); // not the watched address: never delivered
    // Nothing shows before the indexer's lag has passed (automine: each transaction is a block of its own).
    await new Promise((r) => setTimeout(r, 1_000));
    const tipNow = await head();
    expect(activity().every((b) => b.payload.result.blockNumber <= tipNow - LAG)).toBe(true);
    expect(activity().length).toBeLessThan(4);
    await chain.mine(LAG);
    await waitFor('four activity messages', () => activity().length >= 4, { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 1_000));
    const got = activity().map((b) => b.payload.result);
    expect(got).toHaveLength(4);
    const nftAddr = (await nft.getAddress()).toLowerCase();
    const multiAddr = (await multi.getAddress()).toLowerCase();
    expect(got[0]).toMatchObject({
      standard: 'ERC-721',
      contract: nftAddr,
      tokenId: '7',
      from: '0x' + '0'.repeat(40),
      to: watched,
      amount: '1',
      transactionHash: mintTx,
      addresses: [watched],
    });
    expect(got[1]).toMatchObject({
      standard: 'ERC-721',
      contract: nftAddr,
      tokenId: '8',
      from: other,
      to: watched,
      amount: '1',
      transactionHash: moveTx,
    });
    expect(got[2]).toMatchObject({
      standard: 'ERC-1155',
      contract: multiAddr,
      tokenId: '1',
      from: other,
      to: watched,
      amount: '5',
      transactionHash: batchTx,
    });
    expect(got[3]).toMatchObject({ standard: 'ERC-1155', contract: multiAddr, tokenId: '2', amount: '7', transactionHash: batchTx });
    for (const r of got) {
      const block = await rpc<{ hash: string }>(chain.url, 'eth_getBlockByNumber', ['0x' + r.blockNumber.toString(16), false]);
      expect(r.blockHash).toBe(block.hash);
    }
  });

  it('never shows a move that a reorganisation within the indexer lag removed', async () => {
    const before = activity().length;
    const snapshot = await rpc<string>(chain.url, 'evm_snapshot');
    await sendTx(nft, 'mint', watched, 100);
    await chain.mine(LAG - 1); // still within the lag: not indexed yet
    await rpc(chain.url, 'evm_revert', [snapshot]);
    chain.signer.reset();
    const afterTx = await sendTx(nft, 'mint', watched, 101);
    await chain.mine(LAG + 2);
    await waitForIndexed(service.url, (await head()) - LAG);
    await waitFor('the move of the new history', () => activity().length > before);
    await new Promise((r) => setTimeout(r, 1_000));
    const fresh = activity()
      .slice(before)
      .map((b) => b.payload.result);
    expect(fresh.map((r) => r.tokenId)).toEqual(['101']);
    expect(fresh[0].transactionHash).toBe(afterTx);
  });

  it('a webhook given its first addresses later watches them from then on, not from its creation', async () => {
    const late = Wallet.createRandom().address.toLowerCase();
    const created = await hooks('', { method: 'POST', body: { url: receiver.url } });
    await sendTx(nft, 'mint', late, 200); // before the webhook watches `late`
    await chain.mine(LAG);
    await waitForIndexed(service.url, (await head()) - LAG);
    const patched = await hooks(`/${created.body.id}`, { method: 'PATCH', body: { addresses: [late] } });
    expect(patched.body.addresses).toEqual([late]);
    const tx = await sendTx(nft, 'mint', late, 201);
    await chain.mine(LAG);
    const mine = () =>
      activity()
        .filter((b) => b.webhookId === created.body.id)
        .map((b) => b.payload.result);
    await waitFor('the move after the change', () => mine().length > 0);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(mine().map((r) => [r.tokenId, r.transactionHash])).toEqual([['201', tx]]);
  });

  it("waits out a node that refuses the scan's eth_getLogs, then delivers the move once", async () => {
    // A second service on the same chain, through a proxy that refuses the scan's requests (they name contracts; the
    // indexer's name topics only) three times, then passes them.
    const proxy = await startRpcProxy(chain.url);
    let refusals = 0;
    proxy.refuse = (req) => {
      const filter = req.params[0] as { address?: unknown } | undefined;
      if (req.method !== 'eth_getLogs' || !Array.isArray(filter?.address) || refusals >= 3) return null;
      refusals++;
      return { code: -32005, message: 'rate limited' };
    };
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-webhook-activity-proxy-'));
    const second = await startService({
      nodeUrl: proxy.url,
      dataDir: dir,
      port: 0,
      confirmations: LAG,
      allowPrivateWebhooks: true,
      webhookTuning: { activityPollMs: 100 },
      log: silentLogger,
    });
    try {
      const id = (
        await second.accounts.createAccount({
          email: 'activity-proxy@example.com',
          password: 'correct horse battery staple',
          name: 'A',
          organization: 'T',
        })
      ).clientId;
      const token = (await second.accounts.replaceApiSecret('activity-proxy@example.com')).apiSecret;
      await waitForIndexed(second.url, (await head()) - LAG);
      const watchedHere = Wallet.createRandom().address.toLowerCase();
      // A URL written before the API secret, with the clientId in it: still accepted beside the secret.
      const created = await call(`${second.url}/tracker/v1/webhooks?clientId=${id}`, {
        method: 'POST',
        token,
        body: { url: receiver.url, trackerMessages: false, addresses: [watchedHere] },
      });
      expect(created.status).toBe(201);
      const tx = await sendTx(nft, 'mint', watchedHere, 300);
      await chain.mine(LAG);
      const mine = () =>
        activity()
          .filter((b) => b.webhookId === created.body.id)
          .map((b) => b.payload.result);
      await waitFor('the move after the refusals', () => mine().length > 0, { timeoutMs: 30_000 });
      await new Promise((r) => setTimeout(r, 1_000));
      expect(refusals).toBe(3);
      expect(mine().map((r) => [r.tokenId, r.transactionHash])).toEqual([['300', tx]]);
    } finally {
      await second.stop();
      await proxy.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe.each(['sqlite', 'postgres'] as const)('a reorganisation deeper than the lag, on %s', (backend) => {
    it("withdraws the delivered moves of the dropped blocks (`removed`), then delivers the new chain's moves, each once", async () => {
      // A service of its own that scans every 3 s: the chain is reorganised and re-indexed past the webhook's cursor
      // between two scans, so the index's tip is never seen going down; only the cursor's block hash tells.
      const dir = mkdtempSync(join(tmpdir(), 'txdesk-webhook-activity-reorg-'));
      const database = backend === 'postgres' ? await createTestDatabase('webhook-reorg') : null;
      const where: Pick<ServiceOptions, 'dataDir' | 'database'> = database ? { database: database.url } : { dataDir: dir };
      const slow = await startService({
        nodeUrl: chain.url,
        ...where,
        port: 0,
        confirmations: LAG,
        allowPrivateWebhooks: true,
        webhookTuning: { activityPollMs: 3_000 },
        log: silentLogger,
      });
      try {
        const email = `activity-reorg-${backend}@example.com`;
        await slow.accounts.createAccount({ email, password: 'correct horse battery staple', name: 'A', organization: 'T' });
        const token = (await slow.accounts.replaceApiSecret(email)).apiSecret;
        await chain.mine(LAG + 1); // an indexed tip to start from, whatever ran before
        await waitForIndexed(slow.url, (await head()) - LAG);
        const deep = Wallet.createRandom().address.toLowerCase();
        const created = await call(`${slow.url}/tracker/v1/webhooks`, {
          method: 'POST',
          token,
          body: { url: receiver.url, trackerMessages: false, addresses: [deep] },
        });
        expect(created.status).toBe(201);
        const mine = () => activity().filter((b) => b.webhookId === created.body.id);
        await new Promise((r) => setTimeout(r, 3_500)); // its first scan takes the index's hash of where it starts

        const ids = backend === 'sqlite' ? ['500', '501', '502'] : ['600', '601', '602']; // the same chain for both
        const snapshot = await rpc<string>(chain.url, 'evm_snapshot');
        const droppedTxs = [await sendTx(nft, 'mint', deep, ids[0]), await sendTx(nft, 'mint', deep, ids[1])];
        await chain.mine(LAG + 2);
        await waitFor('the moves of the chain about to be dropped', () => mine().length >= 2, { timeoutMs: 30_000 });
        // Right after the scan that delivered them: back below both blocks (deeper than the lag), and a longer chain
        // with another move, indexed before the next scan.
        const oldHead = await head();
        await rpc(chain.url, 'evm_revert', [snapshot]);
        chain.signer.reset();
        const newTx = await sendTx(nft, 'mint', deep, ids[2]);
        await chain.mine(oldHead - (await head()) + 3);
        await waitForIndexed(slow.url, (await head()) - LAG);
        await waitFor('two withdrawals and the move of the new chain', () => mine().length >= 5, { timeoutMs: 30_000 });
        await new Promise((r) => setTimeout(r, 3_500)); // another scan: nothing more comes

        const got = mine();
        expect(new Set(got.map((b) => b.deliveryId)).size).toBe(got.length);
        expect(got.map((b) => `${b.payload.result.tokenId}${b.payload.result.removed ? ' removed' : ''}`).sort()).toEqual([
          ids[0],
          `${ids[0]} removed`,
          ids[1],
          `${ids[1]} removed`,
          ids[2],
        ]);
        const canonicalHash = async (n: number) =>
          (await rpc<{ hash: string } | null>(chain.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false]))?.hash;
        for (const [i, tokenId] of ids.slice(0, 2).entries()) {
          const [move, withdrawal] = got.filter((b) => b.payload.result.tokenId === tokenId).map((b) => b.payload.result);
          // The same fields plus `removed`, after the move (in order per transaction), naming a block no longer the chain's.
          expect(move).toMatchObject({ transactionHash: droppedTxs[i], to: deep });
          expect(move.removed).toBeUndefined();
          expect(withdrawal).toEqual({ ...move, removed: true });
          expect(await canonicalHash(move.blockNumber)).not.toBe(move.blockHash);
        }
        const fresh = got.find((b) => b.payload.result.tokenId === ids[2])!.payload.result;
        expect(fresh).toMatchObject({ transactionHash: newTx, to: deep });
        expect(fresh.removed).toBeUndefined();
        expect(await canonicalHash(fresh.blockNumber)).toBe(fresh.blockHash);
      } finally {
        await slow.stop();
        await database?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
