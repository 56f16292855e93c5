// The webhook store contract on both backends: webhooks as tracker subscriptions, claims that only one caller wins,
// sent deliveries kept for replay, failures that turn a webhook failing, activity committed only from its cursor (block
// and hash), the index read for one scan step, and the cursor's hash added to webhooks stored before it existed.
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresTrackerStore } from '../../../src/service/tracker/postgres/tracker-store-postgres.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import type { NewMessage, TrackerStore } from '../../../src/service/tracker/tracker-store.js';
import { migrate } from '../../../src/lib/sqlite.js';
import { migratePg } from '../../../src/service/db/pg-migrate.js';
import { openPostgresWebhookStore, webhookPgMigrations } from '../../../src/service/webhooks/postgres/webhook-store-postgres.js';
import { openSqliteWebhookStore, webhookMigrations } from '../../../src/service/webhooks/sqlite/webhook-store-sqlite.js';
import type { WebhookRow, WebhookStore } from '../../../src/service/webhooks/webhook-store.js';
import { migratePostgresIndex, migrateSqliteIndex } from '../../../src/service/backend.js';
import { tokenKeys } from '../../../src/service/listing/listing-writer.js';
import { backends, type BackendPlace } from '../../support/service/store-backends.js';

const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const msg = (clientId: string, n: number, type: NewMessage['type'] = 'pending'): NewMessage => ({
  clientId,
  txHash: hash(n),
  type,
  payload: `{"type":"${type}","result":{"n":${n}}}`,
});
const nOf = (p: string) => (JSON.parse(p) as { result: { n: number } }).result.n;

const webhook = (id: string, clientId: string, over: Partial<WebhookRow> = {}): WebhookRow => ({
  id,
  clientId,
  url: 'https://example.com/hook',
  trackerMessages: true,
  addresses: [],
  secret: 's1',
  previousSecret: null,
  previousSecretUntilMs: null,
  state: 'active',
  failingSinceMs: null,
  failures: 0,
  retryAtMs: null,
  lastError: null,
  lastAttemptMs: null,
  lastSuccessMs: null,
  activityBlock: 10,
  activityHash: null,
  activityMarks: [],
  createdAtMs: 1_000,
  ...over,
});

describe.each(backends)('webhook store on $name', (backend) => {
  const places: BackendPlace[] = [];
  afterEach(async () => {
    for (const p of places.splice(0)) await p.close();
  });
  let lastPlace: BackendPlace;
  async function open(): Promise<{ tracker: TrackerStore; store: WebhookStore }> {
    const place = await backend.fresh();
    places.push(place);
    lastPlace = place;
    if (place.sqlite) return { tracker: openSqliteTrackerStore(place.sqlite), store: openSqliteWebhookStore(place.sqlite) };
    return { tracker: await openPostgresTrackerStore(place.pool!, 'test'), store: await openPostgresWebhookStore(place.pool!) };
  }

  it('a webhook with tracker messages is a subscription: it takes parked messages, then every new one, in order', async () => {
    const { tracker, store } = await open();
    await tracker.commitRound([], [], [msg('c1', 1), msg('c1', 2, 'receipt')], 5);
    await store.create(webhook('w1', 'c1'));
    await store.create(webhook('w2', 'c1', { trackerMessages: false, addresses: ['0x' + 'ab'.repeat(20)] }));
    const { created } = await tracker.commitRound([], [], [msg('c1', 3), msg('c2', 4)], 6);
    // The tracker's fan-out reaches the webhook like any subscription (the WebSocket hub ignores it: it is never bound).
    expect(created.map((g) => g.subscriptionId)).toEqual(['webhook/w1']);
    const pending = await store.pending('w1', 'c1', 0, 100);
    expect(pending.map((d) => nOf(d.payload))).toEqual([1, 2, 3]);
    expect(pending.every((d) => d.attempts === 0 && d.nextAtMs === null && d.leaseUntilMs === null && !d.replay)).toBe(true);
    expect(await store.pending('w2', 'c1', 0, 100)).toEqual([]);
    expect(await store.countPending('w1', 'c1')).toBe(3);
    expect(await store.pending('w1', 'c1', pending[1]!.seq, 100)).toHaveLength(1);
    // Never idle: the tracker's cleanup of unused subscriptions leaves it alone.
    expect((await tracker.idleSubscriptions(Date.now() + 365 * 86_400_000)).map((s) => s.subscriptionId)).not.toContain('webhook/w1');
    expect((await store.listOfClient('c1')).map((w) => w.id)).toEqual(['w1', 'w2']);
    expect(await store.countOfClient('c1')).toBe(2);
    expect(await store.get('w2')).toMatchObject({ trackerMessages: false, addresses: ['0x' + 'ab'.repeat(20)], activityBlock: 10 });
  });

  it('of two claims on one delivery one wins; a claim runs out; sent ones are kept (not outbox depth) until pruned', async () => {
    const { tracker, store } = await open();
    await store.create(webhook('w1', 'c1'));
    await tracker.commitRound([], [], [msg('c1', 1), msg('c1', 2)], 5);
    const [a, b] = await store.pending('w1', 'c1', 0, 10);
    const claim = (ids: string[], nowMs: number, untilMs: number, maxHeld = 8) => store.claim('w1', 'c1', ids, { nowMs, untilMs, maxHeld });
    const first = await claim([a!.deliveryId, b!.deliveryId], 100, 200);
    const second = await claim([a!.deliveryId], 150, 250);
    expect([...first].sort()).toEqual([a!.deliveryId, b!.deliveryId].sort());
    expect(second.size).toBe(0);
    expect((await claim([a!.deliveryId], 200, 300)).size).toBe(1); // the first claim ran out at 200
    await store.markSent([{ webhookId: 'w1', clientId: 'c1', deliveryId: a!.deliveryId }], 210);
    expect((await claim([a!.deliveryId], 400, 500)).size).toBe(0); // sent: never claimed again
    expect((await store.pending('w1', 'c1', 0, 10)).map((d) => d.deliveryId)).toEqual([b!.deliveryId]);
    expect(await tracker.outboxDepth()).toBe(1);
    expect(await store.get('w1')).toMatchObject({ lastSuccessMs: 210, failures: 0 });
    await store.releaseLeases();
    expect((await claim([b!.deliveryId], 150, 250)).size).toBe(1);
    expect(await store.pruneSent(211)).toBe(1);
    expect(await store.replay('w1', 'c1', { fromMs: 0, toMs: 10_000 })).toBe(0);
  });

  it('claims keep the webhook within maxHeld unexpired claims, whoever holds them, and take the oldest first', async () => {
    const { tracker, store } = await open();
    await store.create(webhook('w1', 'c1'));
    await store.create(webhook('w2', 'c1'));
    await tracker.commitRound(
      [],
      [],
      [1, 2, 3, 4, 5].map((n) => msg('c1', n)),
      5,
    );
    const ids = (await store.pending('w1', 'c1', 0, 10)).map((d) => d.deliveryId);
    const claim = (webhookId: string, of: string[], nowMs: number, maxHeld = 3) =>
      store.claim(webhookId, 'c1', of, { nowMs, untilMs: nowMs + 100, maxHeld });
    // Asked in any order, the oldest are claimed up to the room left: another caller's claims count too.
    expect([...(await claim('w1', [ids[1]!, ids[0]!], 100))].sort()).toEqual([ids[0]!, ids[1]!].sort());
    expect([...(await claim('w1', [ids[4]!, ids[3]!, ids[2]!], 110))]).toEqual([ids[2]!]);
    expect((await claim('w1', [ids[3]!], 120)).size).toBe(0);
    // Another webhook's deliveries are not counted, nor claimed through this one.
    const other = (await store.pending('w2', 'c1', 0, 10)).map((d) => d.deliveryId);
    expect((await claim('w2', other.slice(0, 3), 120)).size).toBe(3);
    expect((await claim('w1', [other[3]!], 120, 8)).size).toBe(0);
    // An answer frees its room; so does a claim that ran out (the first two, at 200).
    await store.markFailed('w1', 'c1', ids[2]!, { nowMs: 130, nextAtMs: 130, error: 'x', retryAtMs: 130, failing: false });
    expect([...(await claim('w1', [ids[3]!, ids[4]!], 140))]).toEqual([ids[3]!]);
    expect((await claim('w1', [ids[4]!, ids[2]!], 200)).size).toBe(2);
    // A removed webhook claims nothing.
    await store.remove('w1');
    expect((await claim('w1', [ids[4]!], 300)).size).toBe(0);
  });

  it('a failure schedules the delivery and counts against the webhook until a success; failing is sticky until resumed', async () => {
    const { tracker, store } = await open();
    await store.create(webhook('w1', 'c1'));
    await tracker.commitRound([], [], [msg('c1', 1)], 5);
    const [d] = await store.pending('w1', 'c1', 0, 10);
    await store.markFailed('w1', 'c1', d!.deliveryId, {
      nowMs: 100,
      nextAtMs: 1_100,
      error: 'the receiver answered 500',
      retryAtMs: 600,
      failing: false,
    });
    await store.markFailed('w1', 'c1', d!.deliveryId, { nowMs: 2_000, nextAtMs: 4_000, error: 'timeout', retryAtMs: 3_000, failing: true });
    expect(await store.get('w1')).toMatchObject({
      failingSinceMs: 100,
      failures: 2,
      retryAtMs: 3_000,
      lastError: 'timeout',
      lastAttemptMs: 2_000,
      state: 'failing',
    });
    expect((await store.pending('w1', 'c1', 0, 10))[0]).toMatchObject({ attempts: 2, nextAtMs: 4_000 });
    expect(await store.update('w1', { state: 'active' })).toMatchObject({
      state: 'active',
      failures: 0,
      failingSinceMs: null,
      retryAtMs: null,
    });
    // Resumed: the waiting deliveries' own backoff starts afresh too.
    expect((await store.pending('w1', 'c1', 0, 10))[0]).toMatchObject({ attempts: 0, nextAtMs: null });
    // A paused webhook does not turn failing (only an active one does).
    await store.update('w1', { state: 'paused' });
    await store.markFailed('w1', 'c1', d!.deliveryId, { nowMs: 5_000, nextAtMs: 6_000, error: 'x', retryAtMs: 6_000, failing: true });
    expect((await store.get('w1'))!.state).toBe('paused');
  });

  it('replays exactly a range of sent deliveries, or from a message on, with their delivery ids', async () => {
    const { tracker, store } = await open();
    await store.create(webhook('w1', 'c1'));
    for (const [i, at] of [
      [1, 1_000],
      [2, 2_000],
      [3, 3_000],
      [4, 4_000],
    ] as const)
      await tracker.commitRound([], [], [msg('c1', i)], at);
    const all = await store.pending('w1', 'c1', 0, 10);
    await store.markSent(
      all.map((d) => ({ webhookId: 'w1', clientId: 'c1', deliveryId: d.deliveryId })),
      5_000,
    );
    expect(await store.replay('w1', 'c1', { fromMs: 2_000, toMs: 3_000 })).toBe(2);
    const again = await store.pending('w1', 'c1', 0, 10);
    expect(again.map((d) => nOf(d.payload))).toEqual([2, 3]);
    expect(again.map((d) => d.deliveryId)).toEqual([all[1]!.deliveryId, all[2]!.deliveryId]);
    expect(again.every((d) => d.replay && d.attempts === 0)).toBe(true);
    expect(await store.replay('w1', 'c1', { fromMessageId: all[3]!.messageId })).toBe(1);
    expect((await store.pending('w1', 'c1', 0, 10)).map((d) => nOf(d.payload))).toEqual([2, 3, 4]);
    expect(await store.replay('w1', 'c1', { fromMessageId: 'nope' })).toBeNull();
    expect(await store.replay('w1', 'c2', { fromMessageId: all[0]!.messageId })).toBeNull(); // another client's message
  });

  it('activity is stored only from the cursor it was read at; removing a webhook takes its deliveries and messages', async () => {
    const { tracker, store } = await open();
    await store.create(webhook('w1', 'c1', { trackerMessages: false, addresses: ['0x' + '11'.repeat(20)], activityBlock: null }));
    const m = (n: number) => ({ webhookId: 'w1', clientId: 'c1', txHash: hash(n), payload: `{"type":"activity","result":{"n":${n}}}` });
    const at = (block: number | null, h: string | null, marks: { block: number; hash: string }[] = []) => ({ block, hash: h, marks });
    expect(await store.commitActivity('w1', at(null, null), at(20, hash(20)), [m(1), m(2)], 50)).toBe(true);
    expect(await store.commitActivity('w1', at(null, null), at(25, hash(25)), [m(3)], 60)).toBe(false); // someone moved it meanwhile
    // The same block with another hash is another cursor (a rollback set it back and the chain went on differently).
    expect(await store.commitActivity('w1', at(20, hash(99)), at(30, hash(30)), [m(3)], 60)).toBe(false);
    expect(await store.commitActivity('w1', at(20, hash(20)), at(30, hash(30), [{ block: 20, hash: hash(20) }]), [m(4)], 70)).toBe(true);
    expect((await store.pending('w1', 'c1', 0, 10)).map((d) => nOf(d.payload))).toEqual([1, 2, 4]);
    expect(await store.get('w1')).toMatchObject({
      activityBlock: 30,
      activityHash: hash(30),
      activityMarks: [{ block: 20, hash: hash(20) }],
    });
    expect(await tracker.outboxDepth()).toBe(3);
    // A cursor the owner set anew (addresses given to a webhook that watched none) starts with no hash and no marks.
    expect(await store.update('w1', { activityBlock: 40 })).toMatchObject({ activityBlock: 40, activityHash: null, activityMarks: [] });
    expect(await store.update('w1', { state: 'paused' })).toMatchObject({ activityBlock: 40, activityHash: null });
    expect(await store.remove('w1')).toBe(true);
    expect(await store.remove('w1')).toBe(false);
    expect(await tracker.outboxDepth()).toBe(0);
    expect(await store.all()).toEqual([]);
  });

  it('switching tracker messages off and on removes and restores the subscription; a rotation keeps the old secret', async () => {
    const { tracker, store } = await open();
    await store.create(webhook('w1', 'c1'));
    await tracker.commitRound([], [], [msg('c1', 9)], 4);
    await store.commitActivity(
      'w1',
      { block: 10, hash: null },
      { block: 11, hash: null, marks: [] },
      [{ webhookId: 'w1', clientId: 'c1', txHash: hash(8), payload: '{"type":"activity","result":{"n":8}}' }],
      4,
    );
    await store.update('w1', { trackerMessages: false, addresses: ['0x' + '22'.repeat(20)] });
    // The tracker's waiting messages go with the switch; address activity stays.
    expect((await store.pending('w1', 'c1', 0, 10)).map((d) => nOf(d.payload))).toEqual([8]);
    expect(await tracker.outboxDepth()).toBe(1);
    expect((await tracker.commitRound([], [], [msg('c1', 1)], 5)).created).toEqual([]);
    await store.update('w1', { trackerMessages: true });
    expect((await tracker.commitRound([], [], [msg('c1', 2)], 6)).created.map((g) => g.subscriptionId)).toEqual(['webhook/w1']);
    const rotated = await store.update('w1', { secret: 's2', previousSecret: 's1', previousSecretUntilMs: 9_000 });
    expect(rotated).toMatchObject({
      secret: 's2',
      previousSecret: 's1',
      previousSecretUntilMs: 9_000,
      addresses: ['0x' + '22'.repeat(20)],
    });
    expect(await store.update('nope', { state: 'paused' })).toBeNull();
  });

  it('reads one scan step of the index at once: its tip, the hashes at both ends and the moves into or out of watched addresses', async () => {
    const { store } = await open();
    const place = lastPlace;
    const [a, b, c] = ['0x' + 'aa'.repeat(20), '0x' + 'bb'.repeat(20), '0x' + 'cc'.repeat(20)];
    const dd = '0x' + 'dd'.repeat(20);
    const nft = '0x' + '11'.repeat(20);
    const multi = '0x' + '22'.repeat(20);
    const kId = (contract: string, id: bigint) => tokenKeys(Buffer.from(contract.slice(2), 'hex'), id).kId;
    const bh = (n: number) => '0x' + (0xb000 + n).toString(16).padStart(64, '0');
    // contract, id, from, to, amount, block, log index, sub
    const rows: [number, bigint, number | null, number | null, string | null, number, number, number][] = [
      [1, 7n, null, 1, null, 5, 0, 0], // mint to a
      [1, 8n, 2, 3, null, 6, 1, 0], // b -> c: not watched
      [2, 1n, 2, 1, '5', 7, 0, 0], // ERC-1155 batch b -> a, two ids
      [2, 2n, 2, 1, '7', 7, 0, 1],
      [1, 7n, 1, 3, null, 9, 0, 0], // a -> c
    ];
    // The index keeps the hash of every block with a move and of each range's ends; its tip is 12.
    const stored = [5, 6, 7, 9, 12];
    const sql = {
      accounts: 'INSERT INTO idx_accounts (id, address) VALUES (1, $a), (2, $b), (3, $c)',
      contracts:
        'INSERT INTO idx_contracts (id, address, addr, name, symbol, has_uri, first_block, standard) VALUES (1, $n, $na, ' +
        "'N', 'N', 0, 1, 'ERC721'), (2, $m, $ma, 'M', 'M', 0, 1, 'ERC1155')",
      transfer:
        'INSERT INTO idx_transfers (block, log_index, sub, contract_id, k_id, from_id, to_id, amount) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      block: 'INSERT INTO idx_blocks (number, hash, parent_hash) VALUES ($1, $2, NULL)',
      tip: "INSERT INTO idx_state (key, value) VALUES ('tip', $1)",
    };
    let setTip: () => Promise<void>;
    if (place.sqlite) {
      const db = place.sqlite;
      migrateSqliteIndex(db);
      db.prepare(sql.accounts.replace(/\$(\w+)/g, '@$1')).run({ a, b, c });
      db.prepare(sql.contracts.replace(/\$(\w+)/g, '@$1')).run({
        n: nft,
        na: Buffer.from(nft.slice(2), 'hex'),
        m: multi,
        ma: Buffer.from(multi.slice(2), 'hex'),
      });
      const ins = db.prepare(sql.transfer.replace(/\$\d/g, '?'));
      for (const [cid, id, f, t, amount, block, li, sub] of rows)
        ins.run(block, li, sub, cid, kId(cid === 1 ? nft : multi, id), f, t, amount);
      for (const n of stored) db.prepare(sql.block.replace(/\$\d/g, '?')).run(n, bh(n));
      setTip = async () => void db.prepare(sql.tip.replace('$1', '?')).run('12');
    } else {
      const pool = place.pool!;
      await migratePostgresIndex(pool);
      await pool.query('INSERT INTO idx_accounts (id, address) VALUES (1, $1), (2, $2), (3, $3)', [a, b, c]);
      await pool.query(
        'INSERT INTO idx_contracts (id, address, addr, name, symbol, has_uri, first_block, standard) VALUES (1, $1, $2, ' +
          "'N', 'N', 0, 1, 'ERC721'), (2, $3, $4, 'M', 'M', 0, 1, 'ERC1155')",
        [nft, Buffer.from(nft.slice(2), 'hex'), multi, Buffer.from(multi.slice(2), 'hex')],
      );
      for (const [cid, id, f, t, amount, block, li, sub] of rows)
        await pool.query(sql.transfer, [block, li, sub, cid, kId(cid === 1 ? nft : multi, id), f, t, amount]);
      for (const n of stored) await pool.query(sql.block, [n, bh(n)]);
      setTip = async () => void (await pool.query(sql.tip, ['12']));
    }
    // Nothing indexed yet: no tip, nothing to read.
    expect(await store.readActivity([a], 4, 3)).toEqual({ tip: null, fromHash: null, to: 4, toHash: null, moves: [] });
    await setTip();
    const mint = {
      block: 5,
      logIndex: 0,
      sub: 0,
      contract: nft,
      standard: 'ERC-721',
      tokenId: '7',
      from: null,
      to: a,
      amount: '1',
      blockHash: bh(5),
    };
    const batch = [
      { block: 7, logIndex: 0, sub: 0, contract: multi, standard: 'ERC-1155', tokenId: '1', from: b, to: a, amount: '5', blockHash: bh(7) },
      { block: 7, logIndex: 0, sub: 1, contract: multi, standard: 'ERC-1155', tokenId: '2', from: b, to: a, amount: '7', blockHash: bh(7) },
    ];
    const away = {
      block: 9,
      logIndex: 0,
      sub: 0,
      contract: nft,
      standard: 'ERC-721',
      tokenId: '7',
      from: a,
      to: c,
      amount: '1',
      blockHash: bh(9),
    };
    expect(await store.readActivity([a], 4, 3)).toEqual({ tip: 12, fromHash: null, to: 7, toHash: bh(7), moves: [mint, ...batch] });
    // Block 8 has no stored hash: the step goes on to 9, the next block that has one (no move lies between).
    expect(await store.readActivity([a], 4, 4)).toEqual({ tip: 12, fromHash: null, to: 9, toHash: bh(9), moves: [mint, ...batch, away] });
    // None within another step: it ends at the step, its hash unknown.
    expect(await store.readActivity([a], 9, 1)).toEqual({ tip: 12, fromHash: bh(9), to: 10, toHash: null, moves: [] });
    expect(await store.readActivity([c, dd], 0, 100)).toMatchObject({ to: 12, toHash: bh(12), moves: [{ block: 6 }, { block: 9 }] });
    expect((await store.readActivity([dd], 0, 100)).moves).toEqual([]);
    // At the tip, or above it (a webhook made while the index catches up, or the index rolled back under it).
    expect(await store.readActivity([a], 12, 5)).toEqual({ tip: 12, fromHash: bh(12), to: 12, toHash: bh(12), moves: [] });
    expect(await store.readActivity([a], 15, 5)).toEqual({ tip: 12, fromHash: null, to: 15, toHash: null, moves: [] });
  });

  it("keeps a webhook's activity messages above a block, sent or waiting, withdrawals too, for a rollback to read", async () => {
    const { tracker, store } = await open();
    await store.create(webhook('w1', 'c1', { addresses: ['0x' + '11'.repeat(20)] }));
    await store.create(webhook('w2', 'c1', { trackerMessages: false, addresses: ['0x' + '11'.repeat(20)] }));
    const act = (webhookId: string, n: number, block: number, removed = false) => ({
      webhookId,
      clientId: 'c1',
      txHash: hash(n),
      payload: JSON.stringify({ type: 'activity', result: { n, blockNumber: block, ...(removed ? { removed: true } : {}) } }),
    });
    await store.commitActivity(
      'w1',
      { block: 10, hash: null },
      { block: 20, hash: hash(20), marks: [] },
      [act('w1', 1, 12), act('w1', 2, 15), act('w1', 3, 20)],
      5,
    );
    await store.commitActivity('w2', { block: 10, hash: null }, { block: 20, hash: hash(20), marks: [] }, [act('w2', 4, 15)], 5);
    await tracker.commitRound([], [], [msg('c1', 5, 'receipt')], 6); // a tracker message: not activity
    await store.commitActivity(
      'w1',
      { block: 20, hash: hash(20) },
      { block: 14, hash: hash(14), marks: [] },
      [act('w1', 2, 15, true), act('w1', 3, 20, true)],
      7,
    );
    const [first] = await store.pending('w1', 'c1', 0, 1);
    await store.markSent([{ webhookId: 'w1', clientId: 'c1', deliveryId: first!.deliveryId }], 8);
    const above = await store.activityAbove('w1', 'c1', 12);
    expect(above.map((k) => [k.txHash, JSON.parse(k.payload).result])).toEqual([
      [hash(2), { n: 2, blockNumber: 15 }],
      [hash(3), { n: 3, blockNumber: 20 }],
      [hash(2), { n: 2, blockNumber: 15, removed: true }],
      [hash(3), { n: 3, blockNumber: 20, removed: true }],
    ]);
    expect((await store.activityAbove('w1', 'c1', 11)).map((k) => JSON.parse(k.payload).result.n)).toEqual([1, 2, 3, 2, 3]); // the sent one too
    expect((await store.activityAbove('w2', 'c1', -1)).map((k) => JSON.parse(k.payload).result.n)).toEqual([4]);
    expect(await store.activityAbove('w1', 'c1', 20)).toEqual([]);
  });

  it('a webhook stored before the cursor kept a hash reads with none and goes on from its block', async () => {
    const place = await backend.fresh();
    places.push(place);
    const v1 = [
      'INSERT INTO webhook (id, client_id, url, tracker_messages, addresses, secret, state, failures, activity_block, created_at_ms)',
      `VALUES ('old', 'c1', 'https://example.com/hook', 0, '["0x${'11'.repeat(20)}"]', 's', 'active', 0, 33, 1000)`,
    ].join(' ');
    let store: WebhookStore;
    if (place.sqlite) {
      openSqliteTrackerStore(place.sqlite);
      migrate(place.sqlite, 'webhooks', webhookMigrations.slice(0, 1));
      place.sqlite.exec(v1);
      store = openSqliteWebhookStore(place.sqlite);
    } else {
      await openPostgresTrackerStore(place.pool!, 'test');
      await migratePg(place.pool!, 'webhooks', webhookPgMigrations.slice(0, 1));
      await place.pool!.query(v1);
      store = await openPostgresWebhookStore(place.pool!);
    }
    expect(await store.get('old')).toMatchObject({ activityBlock: 33, activityHash: null, activityMarks: [] });
    expect(
      await store.commitActivity(
        'old',
        { block: 33, hash: null },
        { block: 40, hash: hash(40), marks: [{ block: 33, hash: hash(33) }] },
        [],
        5,
      ),
    ).toBe(true);
    expect(await store.get('old')).toMatchObject({
      activityBlock: 40,
      activityHash: hash(40),
      activityMarks: [{ block: 33, hash: hash(33) }],
    });
  });
});
