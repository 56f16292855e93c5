// WAL checkpoints while the indexer catches up (indexer/sqlite/indexer-store-sqlite.ts): held over many ranges, then one checkpoint puts
// the writes into the database file itself; released when the indexer reaches the head or stops. With the built code,
// the owed checkpoints run on their own thread (lib/sqlite-checkpointer.ts), every OWN_CHECKPOINT_EVERY-th on the
// writer's connection.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import type * as CheckpointerModule from '../../../src/lib/sqlite-checkpointer.js';
import type * as BackendModule from '../../../src/service/backend.js';
import type * as StoreModule from '../../../src/service/indexer/sqlite/indexer-store-sqlite.js';
import type * as TrackerStoreModule from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { ensureCoreBuilt } from '../../support/app/core-build.js';
import type { Batch } from '../../../src/service/indexer/indexer-apply.js';
import { sqliteIndexStore } from '../../../src/service/backend.js';
import type { IndexStore } from '../../../src/service/indexer/indexer-store.js';
import { waitFor } from '../../support/poll.js';

const ZERO = '0x' + '0'.repeat(40);
const CONTRACT = '0x' + 'c'.repeat(40);
const owner = (i: number) => '0x' + (0x1000 + i).toString(16).padStart(40, '0');

let dir: string;
let db: Db;
let store: IndexStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'txdesk-checkpoints-'));
  db = openDatabase(join(dir, 'index.db'));
  store = sqliteIndexStore(db, undefined, 5);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Block `b` mints three tokens. */
function mints(b: number): Batch {
  const logs = [0, 1, 2].map((i) => ({
    block: b,
    logIndex: i,
    blockHash: `0x${b}`,
    contract: CONTRACT,
    id: BigInt(b * 10 + i),
    from: ZERO,
    to: owner(i),
  }));
  const newContracts = new Map(
    b === 1 ? [[CONTRACT, { name: 'N', symbol: 'S', totalSupply: null, hasUri: true, standard: 'ERC721' as const }]] : [],
  );
  return {
    from: b,
    to: b,
    headers: [],
    logs,
    newContracts,
    uris: new Map([[CONTRACT, new Map(logs.map((l) => [l.id, 'ipfs://x']))]]),
    supplies: new Map(),
  };
}

/** The tip as the database file alone holds it, without its WAL: what a checkpoint has copied there. */
function tipInFile(): number | null {
  const copy = join(dir, `copy-${Math.random()}.db`);
  copyFileSync(join(dir, 'index.db'), copy);
  const c = openDatabase(copy);
  try {
    const has = c.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'idx_state'").pluck().get() as number;
    const v = has ? (c.prepare("SELECT value FROM idx_state WHERE key = 'tip'").pluck().get() as string | undefined) : undefined;
    return v === undefined ? null : Number(v);
  } finally {
    c.close();
  }
}

const autoCheckpoint = () => db.pragma('wal_autocheckpoint', { simple: true });

async function write(b: number, behind: boolean): Promise<void> {
  await store.apply(mints(b), b - 1);
  store.catchingUp!(behind);
}

it('holds checkpoints while behind, checkpoints once per bound of moves, and lets go at the head', async () => {
  expect(autoCheckpoint()).toBe(1000);
  // Behind after block 1: the hold begins (block 1's moves were written before it).
  await write(1, true);
  expect(autoCheckpoint()).toBe(0);
  await write(2, true);
  // 3 moves held, under the bound of 5: block 2 is in the WAL only.
  expect(tipInFile()).not.toBe(2);
  await write(3, true);
  // 6 moves: one checkpoint copied blocks 2 and 3 into the file, and a new hold begins.
  expect(tipInFile()).toBe(3);
  expect(autoCheckpoint()).toBe(0);
  await write(4, true);
  expect(tipInFile()).toBe(3);
  // At the head: released, the owed checkpoint runs, SQLite's own threshold is back.
  await write(5, false);
  expect(tipInFile()).toBe(5);
  expect(autoCheckpoint()).toBe(1000);
  expect(await store.tip()).toBe(5);
});

it('a stop while behind (catchingUp(false)) restores the threshold and checkpoints', async () => {
  await write(1, true);
  await write(2, true);
  await write(3, true);
  expect(autoCheckpoint()).toBe(0);
  store.catchingUp!(false);
  expect(autoCheckpoint()).toBe(1000);
  expect(tipInFile()).toBe(3);
  // Told again that it is not behind: nothing held, nothing to do.
  store.catchingUp!(false);
  expect(autoCheckpoint()).toBe(1000);
});

describe('owed checkpoints on their own thread (built code)', () => {
  let built: { backend: typeof BackendModule; store: typeof StoreModule; checkpointer: typeof CheckpointerModule };
  let checkpointer: CheckpointerModule.Checkpointer | null = null;

  beforeEach(async () => {
    ensureCoreBuilt();
    const dist = join(import.meta.dirname, '..', '..', '..', 'dist');
    built = {
      backend: (await import(join(dist, 'service', 'backend.js'))) as typeof BackendModule,
      store: (await import(join(dist, 'service', 'indexer', 'sqlite', 'indexer-store-sqlite.js'))) as typeof StoreModule,
      checkpointer: (await import(join(dist, 'lib', 'sqlite-checkpointer.js'))) as typeof CheckpointerModule,
    };
    store = built.backend.sqliteIndexStore(db, undefined, 5);
  });
  afterEach(async () => {
    await checkpointer?.stop();
    checkpointer = null;
  });

  it('runs the owed checkpoints on the thread, every OWN_CHECKPOINT_EVERY-th on the writer, and the last one at the head on the thread', async () => {
    checkpointer = built.checkpointer.startCheckpointer(join(dir, 'index.db'), silentLogger);
    expect(checkpointer).not.toBeNull();
    store.useCheckpointer!(checkpointer);
    const every = built.store.OWN_CHECKPOINT_EVERY;
    let block = 0;
    // Two blocks (6 moves) per owed checkpoint, the bound being 5.
    const owe = async () => {
      await write(++block, true);
      await write(++block, true);
    };
    await write(++block, true);
    for (let owed = 1; owed <= every; owed++) {
      await owe();
      if (owed === every) {
        // The writer's own turn: done before the write returned, the thread not asked.
        expect(tipInFile()).toBe(block);
        expect(checkpointer!.runs).toBe(every - 1);
      } else {
        await checkpointer!.idle();
        expect(tipInFile(), `owed checkpoint ${owed}`).toBe(block);
        expect(checkpointer!.runs).toBe(owed);
      }
    }
    await write(++block, false);
    expect(autoCheckpoint()).toBe(1000);
    await checkpointer!.idle();
    expect(checkpointer!.runs).toBe(every);
    expect(tipInFile()).toBe(block);
  });

  it('checkpoints on the writer once the thread has failed, and says so once', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (m: string) => void warnings.push(m), child: () => log };
    // A file the thread cannot open: it fails at start.
    checkpointer = built.checkpointer.startCheckpointer(join(dir, 'missing', 'index.db'), log);
    store.useCheckpointer!(checkpointer);
    await waitFor('the checkpoint thread to fail and say so', () => !checkpointer!.usable, { timeoutMs: 10_000, everyMs: 20 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the WAL checkpoint thread failed; the writer checkpoints on its own connection from now on/);
    await write(1, true);
    await write(2, true);
    await write(3, true);
    expect(tipInFile()).toBe(3);
    expect(checkpointer!.runs).toBe(0);
  });
});

describe("the tracker's owed checkpoints on a thread (built code)", () => {
  it('starts no thread until a round owes one, then runs them there, not on the round connection', async () => {
    ensureCoreBuilt();
    const dist = join(import.meta.dirname, '..', '..', '..', 'dist');
    const { checkpointsOnThread } = (await import(join(dist, 'lib', 'sqlite-checkpointer.js'))) as typeof CheckpointerModule;
    const { openSqliteTrackerStore } = (await import(
      join(dist, 'service', 'tracker', 'sqlite', 'tracker-store-sqlite.js')
    )) as typeof TrackerStoreModule;
    const checkpoints = checkpointsOnThread(join(dir, 'index.db'), silentLogger);
    const onConnection: string[] = [];
    const tracker = openSqliteTrackerStore(db, (d) => {
      onConnection.push('owed');
      checkpoints.runOwed(d);
    });
    try {
      expect(checkpoints.thread).toBeNull();
      // A round that stores something: SQLite's own checkpoints wait for its end, which runs the owed one.
      const endRound = tracker.beginRound!();
      expect(autoCheckpoint()).toBe(0);
      await store.apply(mints(1), 0);
      expect(tipInFile()).toBeNull(); // in the WAL only
      endRound();
      expect(autoCheckpoint()).toBe(1000);
      expect(onConnection).toEqual(['owed']);
      const thread = checkpoints.thread;
      expect(thread?.usable).toBe(true);
      await thread!.idle();
      expect(thread!.runs).toBe(1);
      expect(tipInFile()).toBe(1);
    } finally {
      await checkpoints.stop();
    }
  });
});
