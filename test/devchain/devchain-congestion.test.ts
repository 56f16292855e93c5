// The congestion simulator on a real anvil: under `high` a 1 gwei transaction waits while a 2 gwei same-nonce replacement is mined; `off` mines it next block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcProvider, Wallet, parseUnits, type TransactionResponse } from 'ethers';
import { startDevchain, type Devchain } from '../../src/devchain/devchain.js';
import { silentLogger } from '../../src/lib/log.js';
import { headBlock, rpc } from '../support/chain/devchain-helpers.js';
import { waitFor } from '../support/poll.js';

const gwei = (n: string) => parseUnits(n, 'gwei');

interface RpcBlock {
  number: string;
  gasUsed: string;
  gasLimit: string;
  baseFeePerGas: string;
}

describe('congestion simulator', () => {
  let devchain: Devchain;
  let provider: JsonRpcProvider;
  const wallet = (i: number) => new Wallet(devchain.accounts[i]!.privateKey, provider);

  beforeAll(async () => {
    devchain = await startDevchain({ congestion: 'high', log: silentLogger, progress: false });
    provider = new JsonRpcProvider(devchain.nodeUrl, devchain.chainId, { staticNetwork: true, pollingInterval: 200 });
  });
  afterAll(async () => {
    provider?.destroy();
    await devchain?.stop();
  });

  const receipt = (hash: string) =>
    rpc<{ blockNumber: string; status: string } | null>(devchain.nodeUrl, 'eth_getTransactionReceipt', [hash]);
  const known = (hash: string) => rpc<{ blockNumber: string | null } | null>(devchain.nodeUrl, 'eth_getTransactionByHash', [hash]);
  const fullBlock = async () => {
    const b = await rpc<RpcBlock>(devchain.nodeUrl, 'eth_getBlockByNumber', ['latest', false]);
    return BigInt(b.gasLimit) - BigInt(b.gasUsed) < 21_000n ? b : undefined;
  };

  it('under high, keeps 1 gwei transactions waiting and mines a 2 gwei same-nonce replacement', async () => {
    await waitFor('a block full of load', fullBlock);
    const legacy = wallet(1);
    const dynamic = wallet(2);
    const payer = wallet(3);
    const to = devchain.accounts[9]!.address;
    const nLegacy = await legacy.getNonce('pending');
    const nDynamic = await dynamic.getNonce('pending');
    const stuck1 = await legacy.sendTransaction({ to, value: 1n, type: 0, gasPrice: gwei('1'), gasLimit: 21_000, nonce: nLegacy });
    const stuck2 = await dynamic.sendTransaction({
      to,
      value: 1n,
      type: 2,
      maxFeePerGas: gwei('1'),
      maxPriorityFeePerGas: gwei('0.1'),
      gasLimit: 21_000,
      nonce: nDynamic,
    });
    const sentAt = await headBlock(devchain.nodeUrl);

    // Higher-paying traffic takes part of some blocks; the load's filler lanes must still leave no room at 1 gwei.
    const paying: TransactionResponse[] = [];
    let payerNonce = await payer.getNonce('pending');
    for (let i = 0; i < 3; i++) {
      paying.push(
        await payer.sendTransaction({ to, value: 1n, type: 0, gasPrice: gwei('3'), gasLimit: 21_000 + i * 100_000, nonce: payerNonce++ }),
      );
      const h = await headBlock(devchain.nodeUrl);
      await waitFor('the next block', async () => (await headBlock(devchain.nodeUrl)) > h);
    }
    await waitFor('6 more blocks', async () => (await headBlock(devchain.nodeUrl)) >= sentAt + 6, { timeoutMs: 120_000 });
    for (const p of paying) {
      const r = await receipt(p.hash);
      expect(r).not.toBeNull();
      // The block that carried it was still full: the fillers closed the gap the big load transactions left.
      const b = await rpc<RpcBlock>(devchain.nodeUrl, 'eth_getBlockByNumber', [r!.blockNumber, false]);
      expect(BigInt(b.gasLimit) - BigInt(b.gasUsed)).toBeLessThan(21_000n);
    }
    for (const s of [stuck1, stuck2]) {
      expect(await receipt(s.hash)).toBeNull();
      expect((await known(s.hash))?.blockNumber).toBeNull(); // still pending in the pool
    }
    const base = BigInt((await rpc<RpcBlock>(devchain.nodeUrl, 'eth_getBlockByNumber', ['latest', false])).baseFeePerGas);
    expect(base).toBeLessThan(gwei('1'));

    const rep1 = await legacy.sendTransaction({ to, value: 2n, type: 0, gasPrice: gwei('2'), gasLimit: 21_000, nonce: nLegacy });
    const rep2 = await dynamic.sendTransaction({
      to,
      value: 2n,
      type: 2,
      maxFeePerGas: gwei('2'),
      maxPriorityFeePerGas: gwei('0.1'),
      gasLimit: 21_000,
      nonce: nDynamic,
    });
    const r1 = await waitFor('the legacy replacement', () => receipt(rep1.hash));
    const r2 = await waitFor('the EIP-1559 replacement', () => receipt(rep2.hash));
    expect(r1.status).toBe('0x1');
    expect(r2.status).toBe('0x1');
    const minedAt = Math.max(Number(BigInt(r1.blockNumber)), Number(BigInt(r2.blockNumber)));
    await waitFor('2 more blocks', async () => (await headBlock(devchain.nodeUrl)) >= minedAt + 2);
    for (const s of [stuck1, stuck2]) {
      expect(await receipt(s.hash)).toBeNull();
      expect(await known(s.hash)).toBeNull(); // replaced: gone from the pool for good
    }
    expect(await fullBlock()).toBeDefined(); // the load goes on
  });

  it('with congestion off, mines a 1 gwei transaction in the next block', async () => {
    devchain.setCongestion('off');
    expect(devchain.congestion).toBe('off');
    await waitFor('the load to leave the pool', async () => {
      const s = await rpc<{ pending: string; queued: string }>(devchain.nodeUrl, 'txpool_status');
      return BigInt(s.pending) + BigInt(s.queued) === 0n;
    });
    const sender = wallet(4);
    const tx = await sender.sendTransaction({
      to: devchain.accounts[9]!.address,
      value: 1n,
      type: 0,
      gasPrice: gwei('1'),
      gasLimit: 21_000,
    });
    const headAfterSend = await headBlock(devchain.nodeUrl);
    const r = await waitFor('the 1 gwei transaction', () => receipt(tx.hash));
    expect(Number(BigInt(r.blockNumber))).toBeLessThanOrEqual(headAfterSend + 1);
  });

  it('with congestion low, fills some blocks and still mines a 1 gwei transaction', async () => {
    devchain.setCongestion('low');
    await waitFor('a block full of load', fullBlock, { timeoutMs: 120_000 });
    const sender = wallet(5);
    const tx = await sender.sendTransaction({
      to: devchain.accounts[9]!.address,
      value: 1n,
      type: 0,
      gasPrice: gwei('1'),
      gasLimit: 21_000,
    });
    const r = await waitFor('the 1 gwei transaction under low', () => receipt(tx.hash), { timeoutMs: 120_000 });
    expect(r.status).toBe('0x1');
    devchain.setCongestion('high');
    await waitFor('a block full of load again', fullBlock, { timeoutMs: 120_000 });
  });
});
