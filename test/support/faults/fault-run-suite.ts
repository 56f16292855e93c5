// The randomized fault run as a test suite (test/support/faults/fault-run.js, seeded): transactions sent to a `txdesk serve`
// child under congestion, with node refusals, dropped transactions, reorganisations (some deeper than the
// confirmations), node restarts that lose the pool and SIGKILLs of the app mixed in. Every nonce settles: one
// confirmed record each, the others replaced, none skipped or reused. Used by the npm test and soak variants.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRpcFaults, type RpcFaults } from './fault-proxy.js';
import { runFaultRun } from './fault-run.js';
import { ensureCoreBuilt } from '../app/core-build.js';
import { expectCleanEndState, startTestChain, type TestChain } from '../chain/core-chain.js';

const script = join(import.meta.dirname, '..', 'app', 'core-serve-child.mjs');

/** Registers the suite: one run of `txs` transactions per seed, on one congested chain. */
export function faultRunSuite(txs: number, seeds: number[]): void {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-fault-run-'));
  let chain: TestChain;
  let node: RpcFaults;

  beforeAll(async () => {
    ensureCoreBuilt();
    chain = await startTestChain({ congestion: 'high' });
    node = await startRpcFaults(chain.dev.devchain.nodeUrl);
  });

  afterAll(async () => {
    await node?.close();
    await chain?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('randomized fault run', { timeout: 600_000 }, () => {
    for (const SEED of seeds) {
      it(`${txs} transactions under faults (seed ${SEED}): every nonce settles`, async () => {
        const wallet = Wallet.createRandom();
        await chain.dev.devchain.fund(wallet.address, 10n ** 18n);
        const address = wallet.address.toLowerCase();
        const run = await runFaultRun({
          seed: SEED,
          transactions: txs,
          nodeUrl: chain.dev.devchain.nodeUrl,
          node,
          env: {
            ...process.env,
            ...chain.env,
            NODE_ENDPOINT: node.url,
            PRIVATE_KEY: wallet.privateKey,
            TXDESK_DATA_DIR: join(dir, `seed-${SEED}`),
            TXDESK_LOG: '',
          },
          script,
          policy: { pricing: 'seed', timeoutMs: 2_000, confirmations: 2 },
        });
        const kinds = new Set(run.faults.map((f) => f.kind));
        for (const k of ['refusal', 'drop', 'drop-all', 'reorg', 'node-restart', 'app-kill'])
          expect(kinds, `the run includes a ${k}`).toContain(k);
        const hashes = new Set(run.records.map((r) => r.transactionHash));
        for (const h of run.acknowledged) expect(hashes.has(h), `acknowledged ${h} is stored`).toBe(true);
        const nonces = new Set(run.records.map((r) => r.nonce)).size;
        expect(nonces).toBeGreaterThanOrEqual(txs);
        await expectCleanEndState(chain, run.records, nonces, address);
        for (const r of run.records) expect(r.problem).toBeNull();
      });
    }
  });
}
