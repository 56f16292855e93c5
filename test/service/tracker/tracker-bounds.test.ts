// What one client can cost the tracker and its node: 20,000 random hashes no node has seen (the 100,000 with
// TXDESK_TRACKER_BOUNDS_HASHES) keep the JSON-RPC calls per block flat (sender lookups back off, at most a fixed number
// per round) and memory bounded, and a hash never seen ends with a final `pending` marked `expired` after the expiry
// time. A scripted chain counts every call; the clock is the test's; storage is real SQLite in memory.
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { createTrackerEngine, MAX_UNSEEN_LOOKUPS_PER_ROUND, type TrackerEngine } from '../../../src/service/tracker/tracker-engine.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { unseenLookupDelayMs } from '../../../src/service/tracker/tracker-watch-policy.js';
import { FakeChain, hash } from '../../support/chain/tracker-fake-chain.js';
import { waitFor } from '../../support/poll.js';

let engine: TrackerEngine | null = null;
afterEach(async () => {
  await engine?.stop();
  engine = null;
});

// A full collection before each heap reading, so the figures show what is kept, not what is garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Hashes the client tracks. The figure is 100,000 (TXDESK_TRACKER_BOUNDS_HASHES=100000; 31 CPU-s, most of it
 * the engine tracking them and walking them each round). 20,000 shows the same: more than the 30 blocks x
 * MAX_UNSEEN_LOOKUPS_PER_ROUND (15,000) lookups the run can make, so every block meets the cap, and 13 times what one
 * block would cost without it; the memory bound is per hash (64 MB per 100,000), so a leak per hash is caught alike.
 */
const HASHES = Number(process.env.TXDESK_TRACKER_BOUNDS_HASHES ?? 20_000);
const randomHash = () => `0x${randomBytes(32).toString('hex')}`;

function start(chain: FakeChain, clock: { t: number }, o: { unseenExpiryMs?: number } = {}) {
  const db = openDatabase(':memory:');
  const store = openSqliteTrackerStore(db);
  store.subscribe('c', 's', 60_000, 0);
  const sent: { type: string; expired?: boolean; tx: string }[] = [];
  engine = createTrackerEngine({
    store,
    rpc: chain,
    log: silentLogger,
    pollMs: 20,
    now: () => clock.t,
    ...(o.unseenExpiryMs !== undefined ? { unseenExpiryMs: o.unseenExpiryMs } : {}),
    onDeliveries(created) {
      for (const c of created) {
        for (const e of c.entries) {
          const p = JSON.parse(e.payload) as { type: string; result: { transactionHash: string; expired?: boolean } };
          sent.push({ type: p.type, tx: p.result.transactionHash, ...(p.result.expired ? { expired: true } : {}) });
        }
      }
    },
  });
  return { engine, store, sent, db };
}

/** One block every `stepMs` of the test's clock; returns the calls of each method the watcher made for it. */
async function nextBlock(
  chain: FakeChain,
  clock: { t: number },
  e: TrackerEngine,
  stepMs: number,
  txs: string[] = [],
): Promise<Map<string, number>> {
  const before = new Map(chain.calls);
  clock.t += stepMs;
  chain.mine('a', txs);
  // The watcher polls every 100 ms of real time; two ticks and an idle watcher mean the block was handled.
  await sleep(250);
  await e.whenIdle();
  return new Map([...chain.calls].map(([m, n]) => [m, n - (before.get(m) ?? 0)]));
}

describe('a client tracking hashes no node has seen', () => {
  it(`${HASHES.toLocaleString('en')} random hashes: calls per block stay flat, memory stays bounded`, { timeout: 300_000 }, async () => {
    const chain = new FakeChain();
    const clock = { t: 1_000_000 };
    const { engine: e, sent } = start(chain, clock);
    await e.start();
    const hashes = Array.from({ length: HASHES }, randomHash);
    for (const h of hashes) await e.track('c', h, 1, 1_000);
    expect(e.openCount('c')).toBe(HASHES);

    // The timeout passes: every hash is reported pending once (one receipt lookup each, as before).
    const perBlock: Map<string, number>[] = [];
    perBlock.push(await nextBlock(chain, clock, e, 2_000));
    await waitFor('a pending for every hash', () => sent.filter((s) => s.type === 'pending').length === HASHES, { timeoutMs: 120_000 });
    gc();
    const heapEarly = process.memoryUsage().heapUsed;

    // Then 30 blocks, 12 s apart (6 minutes): the node is asked about at most a fixed number of them per round.
    for (let i = 0; i < 30; i++) perBlock.push(await nextBlock(chain, clock, e, 12_000));
    const byHash = perBlock.slice(1).map((m) => m.get('eth_getTransactionByHash') ?? 0);
    const receipts = perBlock.slice(2).map((m) => m.get('eth_getTransactionReceipt') ?? 0);
    const total = perBlock.slice(1).map((m) => [...m.values()].reduce((a, b) => a + b, 0));
    process.stdout.write(
      `[tracker-bounds] ${HASHES} unseen hashes: calls per block after pending (by hash) ${byHash.join(',')}; ` +
        `receipts ${Math.max(...receipts)} max; all methods ${Math.max(...total)} max\n`,
    );
    // Each round asks about at most MAX_UNSEEN_LOOKUPS_PER_ROUND hashes; a block triggers at most a few rounds.
    for (const n of byHash) expect(n).toBeLessThanOrEqual(3 * MAX_UNSEEN_LOOKUPS_PER_ROUND);
    for (const n of total) expect(n).toBeLessThanOrEqual(3 * MAX_UNSEEN_LOOKUPS_PER_ROUND + 10);
    // Before the bounds every block cost one eth_getTransactionByHash per hash.
    expect(byHash.reduce((a, b) => a + b, 0)).toBeLessThan(30 * HASHES * 0.05);
    // No receipt lookups for hashes that are in no block.
    expect(Math.max(...receipts)).toBeLessThanOrEqual(10);

    // Memory: nothing per block accumulates.
    gc();
    const heapLate = process.memoryUsage().heapUsed;
    process.stdout.write(
      `[tracker-bounds] heap ${(heapEarly / 2 ** 20).toFixed(1)} -> ${(heapLate / 2 ** 20).toFixed(1)} MB over 30 blocks\n`,
    );
    expect(heapLate - heapEarly).toBeLessThan((64 * 2 ** 20 * HASHES) / 100_000);
    expect(e.unseenCount()).toBeLessThanOrEqual(HASHES);
  });

  it('ends a hash the node never showed after the expiry with a final pending marked expired; a mined one is unaffected', async () => {
    const chain = new FakeChain();
    const clock = { t: 5_000_000 };
    const { engine: e, sent, db } = start(chain, clock, { unseenExpiryMs: 60_000 });
    await e.start();
    const ghost = hash('ghost');
    const real = hash('real');
    await e.track('c', ghost, 1, 5_000);
    await e.track('c', real, 100, 5_000);
    await nextBlock(chain, clock, e, 10_000);
    await waitFor('both pending', () => sent.filter((s) => s.type === 'pending').length === 2);
    await nextBlock(chain, clock, e, 10_000, [real]);
    await waitFor('the receipt of the real one', () => sent.find((s) => s.type === 'receipt'));
    expect(sent.some((s) => s.expired)).toBe(false);
    // Past the expiry (60 s here; 1 h by default) the ghost ends; the real one, mined, keeps waiting for depth.
    for (let i = 0; i < 6 && !sent.some((s) => s.expired); i++) await nextBlock(chain, clock, e, 15_000);
    await waitFor('the expired pending', () => sent.find((s) => s.expired));
    expect(sent.filter((s) => s.expired)).toEqual([{ type: 'pending', tx: ghost, expired: true }]);
    expect(e.isTracked('c', ghost)).toBe(false);
    expect(e.isTracked('c', real)).toBe(true);
    const row = db.prepare('SELECT done_at_ms FROM tracker_tracking WHERE tx_hash = ?').get(ghost) as { done_at_ms: number | null };
    expect(row.done_at_ms).not.toBeNull();
  });

  it('backs off exponentially up to a cap', () => {
    expect([1, 2, 3, 4, 5, 12, 40].map((n) => unseenLookupDelayMs(n, 2_000, 600_000))).toEqual([
      2_000, 4_000, 8_000, 16_000, 32_000, 600_000, 600_000,
    ]);
  });
});
