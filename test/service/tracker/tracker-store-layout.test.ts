// The storage choices made for the watcher's hot path: time-ordered ids, receipts serialized once, the migration of a
// version-2 database (trackings keyed by hash) to trackings in tracking order, withdrawals through receipt_seq, the
// age limit of parked messages, and WAL checkpoints put off until a watcher round ends.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deferCheckpoints, migrate, openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { orderedId } from '../../../src/service/tracker/tracker-ids.js';
import { parseReceiptJson, payloadJson, receiptJson } from '../../../src/service/tracker/tracker-receipt-format.js';
import { openSqliteTrackerStore, trackerMigrations } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import type { TrackerReceipt } from '@txdesk/tracker/tracker-wire';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const receipt: TrackerReceipt = {
  transactionHash: '0x' + 'aa'.repeat(32),
  blockHash: '0x' + 'bb'.repeat(32),
  blockNumber: 7,
  transactionIndex: 0,
  from: '0x' + '11'.repeat(20),
  to: null,
  contractAddress: '0x' + '22'.repeat(20),
  gasUsed: 21000,
  cumulativeGasUsed: 21000,
  effectiveGasPrice: '3000000000',
  status: 1,
  type: 2,
  logs: [],
};

describe('orderedId', () => {
  it('gives unique UUIDv7 strings in creation order, also within one millisecond and past 4096 per millisecond', () => {
    const ids = Array.from({ length: 10_000 }, () => orderedId(1_700_000_000_000));
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // A clock that steps back does not break the order either.
    const later = orderedId(1_600_000_000_000);
    expect(later > ids[ids.length - 1]!).toBe(true);
  });
});

describe('receipt JSON', () => {
  it('serializes payloads exactly as JSON.stringify does', () => {
    for (const type of ['receipt', 'confirmation'] as const) {
      expect(payloadJson({ type, result: receipt })).toBe(JSON.stringify({ type, result: receipt }));
    }
    const pending = { type: 'pending' as const, result: { transactionHash: receipt.transactionHash, confirmation: 6, timeout: 10000 } };
    expect(payloadJson(pending)).toBe(JSON.stringify(pending));
    const parsed = parseReceiptJson(receiptJson(receipt));
    expect(parsed).toEqual(receipt);
    expect(receiptJson(parsed)).toBe(JSON.stringify(receipt));
  });
});

describe('tracker store migration', () => {
  it('moves trackings of a version-2 database to the tracking-ordered table, keeping every field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-layout-'));
    dirs.push(dir);
    const file = join(dir, 'service.sqlite');
    const old = openDatabase(file);
    migrate(old, 'tracker', trackerMigrations.slice(0, 2));
    const insert = old.prepare('INSERT INTO tracker_tracking VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run('c1', '0x' + 'ff'.repeat(32), 3, 5000, 200, 1, null, '0x' + '33'.repeat(20), 4, null);
    insert.run('c1', '0x' + '01'.repeat(32), 6, 10000, 100, 0, JSON.stringify(receipt), null, null, null);
    insert.run('c2', '0x' + '02'.repeat(32), 1, 10000, 300, 0, null, null, null, 400);
    old.close();

    const db = openDatabase(file);
    const store = openSqliteTrackerStore(db);
    const open = await store.loadOpenTrackings();
    // Oldest tracking first: the order the new table keeps.
    expect(open.map((s) => s.txHash)).toEqual(['0x' + '01'.repeat(32), '0x' + 'ff'.repeat(32)]);
    expect(open[0]).toMatchObject({ clientId: 'c1', confirmation: 6, timeoutMs: 10000, trackedAtMs: 100, pendingSent: false, receipt });
    expect(open[1]).toMatchObject({
      confirmation: 3,
      timeoutMs: 5000,
      pendingSent: true,
      receipt: null,
      from: '0x' + '33'.repeat(20),
      nonce: 4,
    });
    // Tracking again is still idempotent on (clientId, hash), and an ended one stays ended.
    expect((await store.track('c1', '0x' + '01'.repeat(32), 2, 7000, 999)).created).toBe(false);
    expect((await store.track('c2', '0x' + '02'.repeat(32), 2, 7000, 999)).state.doneAtMs).toBe(400);
    expect((await store.track('c2', '0x' + '03'.repeat(32), 2, 7000, 999)).created).toBe(true);
    expect(await store.pruneDoneTrackings(1000)).toBe(1);
    db.close();
  });

  it('lets a version-3 database withdraw a receipt reported before the upgrade', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-layout-'));
    dirs.push(dir);
    const file = join(dir, 'service.sqlite');
    const old = openDatabase(file);
    migrate(old, 'tracker', trackerMigrations.slice(0, 3));
    const hash = receipt.transactionHash;
    old.prepare('INSERT INTO tracker_subscription VALUES (?, ?, ?, ?)').run('c1', 's1', 10000, 0);
    old
      .prepare(
        'INSERT INTO tracker_tracking (client_id, tx_hash, confirmation, timeout_ms, tracked_at_ms, receipt_json) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run('c1', hash, 6, 10000, 100, JSON.stringify(receipt));
    const seq = old
      .prepare(
        'INSERT INTO tracker_message (message_id, client_id, tx_hash, type, payload, created_at_ms, orphan) VALUES (?, ?, ?, ?, ?, ?, 0)',
      )
      .run(orderedId(), 'c1', hash, 'receipt', payloadJson({ type: 'receipt', result: receipt }), 100).lastInsertRowid;
    old.prepare('INSERT INTO tracker_delivery VALUES (?, ?, ?, ?)').run('c1', 'ack-1', 's1', seq);
    old.close();

    const db = openDatabase(file);
    const store = openSqliteTrackerStore(db);
    const [state] = await store.loadOpenTrackings();
    const { withdrawn } = await store.commitRound([{ ...state!, receipt: null }], [{ clientId: 'c1', txHash: hash }], [], 200);
    expect(withdrawn).toEqual([{ clientId: 'c1', subscriptionId: 's1', ackId: 'ack-1' }]);
    expect(await store.loadDeliveries('c1', 's1')).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM tracker_message').get()).toEqual({ n: 0 });
    db.close();
  });

  it('withdraws a receipt parked for a client without subscriptions, and forgets a withdrawn receipt once re-mined', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-layout-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'service.sqlite'));
    const store = openSqliteTrackerStore(db);
    const hash = receipt.transactionHash;
    const messages = () => db.prepare('SELECT type, orphan FROM tracker_message ORDER BY seq').all();
    const { state } = await store.track('c9', hash, 6, 10000, 0);
    const mined = { ...state, receipt };
    await store.commitRound(
      [mined],
      [],
      [{ clientId: 'c9', txHash: hash, type: 'receipt', payload: payloadJson({ type: 'receipt', result: receipt }) }],
      1,
    );
    expect(messages()).toEqual([{ type: 'receipt', orphan: 1 }]);
    await store.commitRound([{ ...mined, receipt: null }], [{ clientId: 'c9', txHash: hash }], [], 2);
    expect(messages()).toEqual([]);
    // Mined again: the new receipt is the one a later withdrawal removes.
    const again = { ...receipt, blockHash: '0x' + 'cc'.repeat(32) };
    await store.commitRound(
      [{ ...mined, receipt: again }],
      [],
      [{ clientId: 'c9', txHash: hash, type: 'receipt', payload: payloadJson({ type: 'receipt', result: again }) }],
      3,
    );
    expect(messages()).toEqual([{ type: 'receipt', orphan: 1 }]);
    await store.commitRound([{ ...mined, receipt: null }], [{ clientId: 'c9', txHash: hash }], [], 4);
    expect(messages()).toEqual([]);
    db.close();
  });

  it('prunes parked messages of clients without a subscription by age, and nothing a subscription waits for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-layout-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'service.sqlite'));
    const store = openSqliteTrackerStore(db);
    await store.subscribe('subscribed', 's1', 10000, 0);
    const park = async (clientId: string, byte: string, atMs: number) => {
      const { state } = await store.track(clientId, '0x' + byte.repeat(32), 6, 10000, atMs);
      await store.commitRound(
        [{ ...state, pendingSent: true }],
        [],
        [{ clientId, txHash: state.txHash, type: 'pending', payload: '{}' }],
        atMs,
      );
    };
    await park('away', 'a1', 1_000);
    await park('away', 'a2', 5_000);
    await park('subscribed', 'b1', 1_000);
    const left = () =>
      db.prepare('SELECT client_id AS c, tx_hash AS t FROM tracker_message ORDER BY seq').all() as { c: string; t: string }[];
    expect(await store.pruneOrphans(2_000)).toBe(1);
    expect(left().map((r) => [r.c, r.t.slice(2, 4)])).toEqual([
      ['away', 'a2'],
      ['subscribed', 'b1'],
    ]);
    db.close();
  });
});

describe('WAL checkpoints during a watcher round', () => {
  /** A database file whose rows only reach the main file through a checkpoint (WAL mode, 4 KiB pages). */
  function walDatabase(): { db: Db; file: string } {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-wal-'));
    dirs.push(dir);
    const file = join(dir, 'service.sqlite');
    const db = openDatabase(file);
    db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    return { db, file };
  }
  /** About 3,000 pages in 60 commits: three times SQLite's automatic checkpoint threshold. */
  function write(db: Db): void {
    const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
    const commit = db.transaction(() => {
      for (let i = 0; i < 50; i++) insert.run('x'.repeat(4000));
    });
    for (let i = 0; i < 60; i++) commit();
  }
  const mainFileBytes = (file: string) => statSync(file).size;

  it('happen inside commits without a hold (the control), only at the release with one, and the threshold comes back', () => {
    const control = walDatabase();
    write(control.db);
    expect(mainFileBytes(control.file)).toBeGreaterThan(4_000_000);
    control.db.close();

    const { db, file } = walDatabase();
    const release = deferCheckpoints(db);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    write(db);
    // Twelve megabytes written, none of it copied back yet.
    expect(mainFileBytes(file)).toBeLessThan(1_000_000);
    expect(db.prepare('SELECT count(*) FROM filler').pluck().get() as number).toBe(3000);
    release();
    expect(mainFileBytes(file)).toBeGreaterThan(12_000_000);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    db.close();
  });

  it('nest: the last release restores the threshold and checkpoints; a second call of a release changes nothing', () => {
    const { db, file } = walDatabase();
    const outer = deferCheckpoints(db);
    const inner = deferCheckpoints(db);
    write(db);
    outer();
    outer();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(mainFileBytes(file)).toBeLessThan(1_000_000);
    inner();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(mainFileBytes(file)).toBeGreaterThan(12_000_000);
    db.close();
  });

  it('cost nothing when the round wrote nothing: no checkpoint at the release', () => {
    const { db, file } = walDatabase();
    db.pragma('wal_autocheckpoint = 100000');
    write(db);
    const before = mainFileBytes(file);
    expect(before).toBeLessThan(1_000_000);
    deferCheckpoints(db)();
    expect(mainFileBytes(file)).toBe(before);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(100000);
    db.close();
  });

  it('are put off by the SQLite tracker store for as long as a round lasts', async () => {
    const { db, file } = walDatabase();
    const store = openSqliteTrackerStore(db);
    const end = store.beginRound!();
    write(db);
    expect(mainFileBytes(file)).toBeLessThan(1_000_000);
    end();
    expect(mainFileBytes(file)).toBeGreaterThan(12_000_000);
    db.close();
  });
});
