// The chain watcher against a scripted chain (no node): deep reorganisations, a node that is down for a while, a
// jump of more blocks than one sync fetches, and the store's round hooks. Storage is a real SQLite database in memory.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../../src/lib/log.js';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { createTrackerEngine, type TrackerEngine } from '../../../src/service/tracker/tracker-engine.js';
import type { TrackerStore } from '../../../src/service/tracker/tracker-store.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { FakeChain, hash } from '../../support/chain/tracker-fake-chain.js';
import { waitFor } from '../../support/poll.js';

let engine: TrackerEngine | null = null;
afterEach(async () => {
  await engine?.stop();
  engine = null;
});

function start(chain: FakeChain, wrap: (s: TrackerStore) => TrackerStore = (s) => s, log: Logger = silentLogger) {
  const db = openDatabase(':memory:');
  const store = wrap(openSqliteTrackerStore(db));
  store.subscribe('c', 's', 60_000, 0);
  const sent: { type: string; blockHash?: string; blockNumber?: number; tx: string }[] = [];
  const withdrawn: string[] = [];
  engine = createTrackerEngine({
    store,
    rpc: chain,
    log,
    pollMs: 20,
    onDeliveries(created, gone) {
      for (const c of created) {
        for (const e of c.entries) {
          const p = JSON.parse(e.payload) as {
            type: string;
            result: { blockHash?: string; blockNumber?: number; transactionHash: string };
          };
          sent.push({ type: p.type, blockHash: p.result.blockHash, blockNumber: p.result.blockNumber, tx: p.result.transactionHash });
        }
      }
      for (const g of gone) withdrawn.push(g.ackId);
    },
  });
  return { engine, sent, withdrawn, db };
}

describe('the chain watcher', () => {
  it('follows a three-block reorganisation: the receipt moves to the new branch, the confirmation names it', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-a');
    const { engine, sent, db } = start(chain);
    await engine.start();
    await engine.track('c', tx, 4, 60_000);
    chain.mine('a');
    chain.mine('a', [tx]);
    chain.mine('a');
    await waitFor('the first receipt', () => sent.find((s) => s.type === 'receipt'));
    expect(sent[0]).toMatchObject({ type: 'receipt', blockNumber: 2, blockHash: hash('a-2') });
    chain.rewind(2);
    chain.mine('b');
    chain.mine('b', [tx]);
    chain.mine('b');
    await waitFor('the receipt from branch b', () => sent.filter((s) => s.type === 'receipt').length === 2);
    expect(sent[1]).toMatchObject({ type: 'receipt', blockNumber: 3, blockHash: hash('b-3') });
    // The undelivered receipt of branch a was withdrawn from the store.
    const stored = db.prepare("SELECT payload FROM tracker_message WHERE type = 'receipt'").all() as { payload: string }[];
    expect(stored.map((r) => JSON.parse(r.payload).result.blockHash)).toEqual([hash('b-3')]);
    for (let i = 0; i < 4; i++) chain.mine('b');
    await waitFor('the confirmation', () => sent.find((s) => s.type === 'confirmation'));
    expect(sent.filter((s) => s.type === 'confirmation')).toEqual([{ type: 'confirmation', blockNumber: 3, blockHash: hash('b-3'), tx }]);
  });

  it('keeps lookups across a node outage and reports the receipt once the node is back', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-b');
    const { engine, sent } = start(chain);
    await engine.start();
    chain.down = true;
    await engine.track('c', tx, 0, 60_000);
    chain.mine('a', [tx]);
    await new Promise((r) => setTimeout(r, 300));
    expect(sent).toEqual([]);
    chain.down = false;
    await waitFor('receipt and confirmation', () => sent.find((s) => s.type === 'confirmation'));
    expect(sent.map((s) => s.type)).toEqual(['receipt', 'confirmation']);
  });

  it('looks every tracked hash up after a jump of more blocks than one sync fetches', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-c');
    const { engine, sent } = start(chain);
    await engine.start();
    await engine.track('c', tx, 1000, 60_000);
    await new Promise((r) => setTimeout(r, 100));
    chain.mine('a', [tx]);
    for (let i = 0; i < 100; i++) chain.mine('a');
    await waitFor('the receipt from a skipped block', () => sent.find((s) => s.type === 'receipt'));
    expect(sent[0]).toMatchObject({ blockNumber: 1 });
  });

  it('does not follow the head with nothing open; a new tracking brings it up to date first', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-idle');
    const { engine, sent } = start(chain);
    await engine.start();
    const heads = () => chain.calls.get('eth_getBlockByNumber') ?? 0;
    const atStart = heads();
    // Twenty-five polling periods and ten blocks with nothing open: not one head read.
    for (let i = 0; i < 10; i++) chain.mine('a', i === 4 ? [tx] : []);
    await new Promise((r) => setTimeout(r, 500));
    expect(heads()).toBe(atStart);
    // Tracked now: found in block 5 and confirmed at once 5 blocks deep, the window brought up to the head (10).
    await engine.track('c', tx, 5, 60_000);
    await waitFor('receipt and confirmation', () => sent.find((s) => s.type === 'confirmation'));
    expect(sent.map((s) => [s.type, s.blockNumber])).toEqual([
      ['receipt', 5],
      ['confirmation', 5],
    ]);
    // Done: nothing open again, so later blocks are not followed.
    await engine.whenIdle();
    const atDone = heads();
    chain.mine('a');
    await new Promise((r) => setTimeout(r, 500));
    expect(heads()).toBe(atDone);
  });

  it('reports pending at the timeout when no block comes', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-d');
    const { engine, sent } = start(chain);
    await engine.start();
    await engine.track('c', tx, 2, 200);
    await waitFor('pending', () => sent.find((s) => s.type === 'pending'));
    expect(sent).toEqual([{ type: 'pending', blockHash: undefined, blockNumber: undefined, tx }]);
  });
});

describe('a chain that goes back without new blocks', () => {
  it('withdraws the receipt once the head drops below its block, even one the window never saw', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-e');
    const { engine, sent, db } = start(chain);
    await engine.start();
    await engine.track('c', tx, 5, 60_000);
    chain.mine('a');
    chain.mine('a', [tx]);
    await waitFor('the receipt', () => sent.find((s) => s.type === 'receipt'));
    chain.rewind(1);
    const stored = () => (db.prepare("SELECT count(*) AS n FROM tracker_message WHERE type = 'receipt'").get() as { n: number }).n;
    await waitFor('the receipt withdrawn', () => stored() === 0);
  });
});

describe('a chain that goes back after the window saw the block', () => {
  it('treats a known head below the tip as a reorganisation', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-f');
    const { engine, sent, db } = start(chain);
    await engine.start();
    chain.mine('a');
    chain.mine('a', [tx]);
    await new Promise((r) => setTimeout(r, 300));
    await engine.track('c', tx, 5, 60_000);
    await waitFor('the receipt', () => sent.find((s) => s.type === 'receipt'));
    chain.rewind(1);
    const stored = () => (db.prepare("SELECT count(*) AS n FROM tracker_message WHERE type = 'receipt'").get() as { n: number }).n;
    await waitFor('the receipt withdrawn', () => stored() === 0);
  });
});

describe("the store's round hooks", () => {
  /** Counts rounds begun and ended; `failEnd` makes every end throw like a checkpoint on a full disk. */
  function hooked(failEnd: boolean) {
    const counts = { begun: 0, ended: 0, open: 0, maxOpen: 0 };
    const wrap = (store: TrackerStore): TrackerStore => ({
      ...store,
      beginRound() {
        counts.begun++;
        counts.maxOpen = Math.max(counts.maxOpen, ++counts.open);
        return () => {
          counts.open--;
          counts.ended++;
          if (failEnd) throw new Error('database or disk is full');
        };
      },
    });
    return { counts, wrap };
  }

  it('begin only in rounds that look receipts up, end every one they begin (also failed ones), one at a time', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-g');
    const { counts, wrap } = hooked(false);
    const { engine, sent } = start(chain, wrap);
    await engine.start();
    // A hash no block holds keeps the head followed (with nothing open the watcher does not follow it); after its
    // first lookup, rounds with nothing to look up leave the store alone.
    await engine.track('c', hash('tx-g-never-mined'), 0, 60_000);
    await waitFor('the first lookup of the hash', () => counts.ended >= 1);
    const begunBefore = counts.begun;
    const headsBefore = chain.calls.get('eth_getBlockByNumber') ?? 0;
    chain.mine('a');
    await waitFor('rounds that follow the head', () => (chain.calls.get('eth_getBlockByNumber') ?? 0) >= headsBefore + 3);
    expect(counts.begun).toBe(begunBefore);
    // The node refuses receipts: each round begins, fails at the lookup, and still ends.
    chain.refuse.add('eth_getTransactionReceipt');
    await engine.track('c', tx, 0, 60_000);
    await waitFor('rounds that fail at the receipt lookup', () => counts.ended >= 2);
    expect(sent).toEqual([]);
    chain.refuse.clear();
    chain.mine('a', [tx]);
    await waitFor('receipt and confirmation', () => sent.find((s) => s.type === 'confirmation'));
    await engine.whenIdle();
    expect(counts.ended).toBe(counts.begun);
    expect(counts.open).toBe(0);
    expect(counts.maxOpen).toBe(1);
    // Done: later blocks have nothing to look up again.
    const begun = counts.begun;
    const heads = chain.calls.get('eth_getBlockByNumber') ?? 0;
    chain.mine('a');
    chain.mine('a');
    await waitFor('rounds after the confirmation', () => (chain.calls.get('eth_getBlockByNumber') ?? 0) >= heads + 2);
    expect(counts.begun).toBe(begun);
  });

  it('may throw at the end of a round: the watcher warns once per round and goes on', async () => {
    const chain = new FakeChain();
    const tx = hash('tx-h');
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (m: string) => void warnings.push(m), child: () => log };
    const { counts, wrap } = hooked(true);
    const { engine, sent } = start(chain, wrap, log);
    await engine.start();
    await engine.track('c', tx, 1, 60_000);
    chain.mine('a', [tx]);
    chain.mine('a');
    await waitFor('receipt and confirmation despite the failing ends', () => sent.find((s) => s.type === 'confirmation'));
    await engine.whenIdle();
    expect(sent.map((s) => s.type)).toEqual(['receipt', 'confirmation']);
    expect(warnings.length).toBe(counts.ended);
    expect(warnings[0]).toMatch(
      /could not checkpoint the tracker database after a watcher round .*is the disk full\?\): database or disk is full/,
    );
  });
});
