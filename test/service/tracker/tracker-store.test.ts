// The tracker store contract, run on both adapters (SQLite and PostgreSQL): trackings, fan-out to subscriptions,
// parked messages, acks, withdrawals, pages, idle subscriptions and pruning behave the same on either.
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackerStore } from '../../../src/service/tracker/tracker-store.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { openPostgresTrackerStore, trackerPgMigrations } from '../../../src/service/tracker/postgres/tracker-store-postgres.js';
import type { NewMessage } from '../../../src/service/tracker/tracker-store.js';
import { backends, type BackendPlace } from '../../support/service/store-backends.js';

const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const msg = (clientId: string, n: number, type: NewMessage['type'] = 'pending'): NewMessage => ({
  clientId,
  txHash: hash(n),
  type,
  payload: `{"type":"${type}","result":{"n":${n}}}`,
});
const payloadN = (p: string) => (JSON.parse(p) as { result: { n: number } }).result.n;

describe.each(backends)('tracker store on $name', (backend) => {
  const places: BackendPlace[] = [];
  afterEach(async () => {
    for (const p of places.splice(0)) await p.close();
  });
  async function open(): Promise<{ store: TrackerStore; place: BackendPlace }> {
    const place = await backend.fresh();
    places.push(place);
    const store = place.sqlite ? openSqliteTrackerStore(place.sqlite) : await openPostgresTrackerStore(place.pool!, 'test');
    return { store, place };
  }

  it('tracks once per client and hash: again keeps the start time and takes the new options; an ended one stays ended', async () => {
    const { store } = await open();
    const first = await store.track('c1', hash(1), 2, 5_000, 100);
    expect(first.created).toBe(true);
    expect(first.state).toMatchObject({
      clientId: 'c1',
      txHash: hash(1),
      confirmation: 2,
      timeoutMs: 5_000,
      trackedAtMs: 100,
      pendingSent: false,
      receipt: null,
      doneAtMs: null,
    });
    const again = await store.track('c1', hash(1), 6, 9_000, 500);
    expect(again).toMatchObject({ created: false, state: { confirmation: 6, timeoutMs: 9_000, trackedAtMs: 100 } });
    expect((await store.track('c2', hash(1), 1, 1_000, 0)).created).toBe(true);
    await store.commitRound([{ ...again.state, doneAtMs: 700 }], [], [], 700);
    expect((await store.track('c1', hash(1), 3, 3_000, 800)).state).toMatchObject({ doneAtMs: 700, confirmation: 6 });
    expect(await store.countOpenTrackings('c1')).toBe(0);
    expect(await store.countOpenTrackings('c2')).toBe(1);
    expect((await store.loadOpenTrackings()).map((s) => s.clientId)).toEqual(['c2']);
    expect(
      await store.loadTrackings([
        { clientId: 'c1', txHash: hash(1) },
        { clientId: 'c2', txHash: hash(1) },
        { clientId: 'c3', txHash: hash(1) },
      ]),
    ).toEqual([expect.objectContaining({ clientId: 'c2', txHash: hash(1) })]);
    expect(await store.pruneDoneTrackings(701)).toBe(1);
  });

  it('keeps sender, nonce, pending flag and receipt of a tracking', async () => {
    const { store } = await open();
    const { state } = await store.track('c1', hash(2), 1, 1_000, 0);
    const receipt = {
      transactionHash: hash(2),
      blockHash: hash(99),
      blockNumber: 7,
      transactionIndex: 0,
      from: '0x' + '11'.repeat(20),
      to: null,
      contractAddress: null,
      gasUsed: 21000,
      cumulativeGasUsed: 21000,
      effectiveGasPrice: '1',
      status: 1,
      type: 2,
      logs: [],
    };
    await store.commitRound([{ ...state, pendingSent: true, from: '0x' + '11'.repeat(20), nonce: 4, receipt }], [], [], 1);
    expect((await store.loadOpenTrackings())[0]).toEqual({ ...state, pendingSent: true, from: '0x' + '11'.repeat(20), nonce: 4, receipt });
  });

  it('fans messages out to every subscription in order, parks them without one, and hands parked ones to the first subscription', async () => {
    const { store } = await open();
    // No subscription yet: parked.
    expect((await store.commitRound([], [], [msg('c1', 1), msg('c1', 2)], 10)).created).toEqual([]);
    expect(await store.subscribe('c1', 'a', 10_000, 20)).toEqual({ created: true });
    expect(await store.subscribe('c1', 'a', 20_000, 30)).toEqual({ created: false });
    expect((await store.loadDeliveries('c1', 'a')).map((e) => payloadN(e.payload))).toEqual([1, 2]);
    await store.subscribe('c1', 'b', 10_000, 40);
    expect(await store.loadDeliveries('c1', 'b')).toEqual([]);
    expect(await store.countSubscriptions('c1')).toBe(2);

    const { created } = await store.commitRound([], [], [msg('c1', 3), msg('c2', 4), msg('c1', 5, 'receipt')], 50);
    const bySub = Object.fromEntries(created.map((g) => [g.subscriptionId, g.entries.map((e) => payloadN(e.payload))]));
    expect(bySub).toEqual({ a: [3, 5], b: [3, 5] });
    const a = await store.loadDeliveries('c1', 'a');
    expect(a.map((e) => payloadN(e.payload))).toEqual([1, 2, 3, 5]);
    // Store order is message order; the same message has one messageId and a different ackId per subscription.
    expect([...a.map((e) => e.seq)].sort((x, y) => x - y)).toEqual(a.map((e) => e.seq));
    const b = await store.loadDeliveries('c1', 'b');
    expect(b.map((e) => e.messageId)).toEqual(a.slice(2).map((e) => e.messageId));
    expect(new Set([...a, ...b].map((e) => e.ackId)).size).toBe(6);
    expect(await store.outboxDepth()).toBe(6);
    // Pages after a seq, at most `limit` each.
    const page1 = await store.loadDeliveriesPage('c1', 'a', 0, 3);
    expect(page1.map((e) => payloadN(e.payload))).toEqual([1, 2, 3]);
    expect((await store.loadDeliveriesPage('c1', 'a', page1[2]!.seq, 3)).map((e) => payloadN(e.payload))).toEqual([5]);
  });

  it("acks only the caller's own deliveries and drops a message once every subscription acked it", async () => {
    const { store } = await open();
    await store.subscribe('c1', 'a', 10_000, 0);
    await store.subscribe('c1', 'b', 10_000, 0);
    const { created } = await store.commitRound([], [], [msg('c1', 1)], 1);
    const [ga, gb] = created;
    await store.ackMany([{ clientId: 'c2', ackId: ga!.entries[0]!.ackId }]);
    expect(await store.outboxDepth()).toBe(2);
    await store.ackMany([
      { clientId: 'c1', ackId: ga!.entries[0]!.ackId },
      { clientId: 'c1', ackId: 'unknown' },
    ]);
    expect(await store.outboxDepth()).toBe(1);
    await store.ackMany([{ clientId: 'c1', ackId: gb!.entries[0]!.ackId }]);
    expect(await store.outboxDepth()).toBe(0);
    // A new subscription finds nothing: the message is gone, not parked.
    await store.subscribe('c1', 'c', 10_000, 2);
    expect(await store.loadDeliveries('c1', 'c')).toEqual([]);
  });

  it('withdraws a standing receipt from every subscription, and unsubscribing drops its deliveries', async () => {
    const { store } = await open();
    await store.subscribe('c1', 'a', 10_000, 0);
    await store.subscribe('c1', 'b', 10_000, 0);
    const { state } = await store.track('c1', hash(7), 1, 1_000, 0);
    const receipt = {
      transactionHash: hash(7),
      blockHash: hash(98),
      blockNumber: 3,
      transactionIndex: 0,
      from: '0x' + '11'.repeat(20),
      to: null,
      contractAddress: null,
      gasUsed: 1,
      cumulativeGasUsed: 1,
      effectiveGasPrice: '1',
      status: 1,
      type: 2,
      logs: [],
    };
    const mined = { ...state, receipt };
    const { created } = await store.commitRound([mined], [], [msg('c1', 7, 'receipt')], 1);
    const { withdrawn } = await store.commitRound([{ ...mined, receipt: null }], [{ clientId: 'c1', txHash: hash(7) }], [], 2);
    expect(withdrawn.map((w) => w.ackId).sort()).toEqual(created.map((g) => g.entries[0]!.ackId).sort());
    expect(await store.outboxDepth()).toBe(0);
    // Withdrawing again finds nothing standing.
    expect((await store.commitRound([], [{ clientId: 'c1', txHash: hash(7) }], [], 3)).withdrawn).toEqual([]);

    await store.commitRound([], [], [msg('c1', 8)], 4);
    await store.unsubscribe('c1', 'a');
    expect(await store.countSubscriptions('c1')).toBe(1);
    expect(await store.loadDeliveries('c1', 'a')).toEqual([]);
    expect((await store.loadDeliveries('c1', 'b')).map((e) => payloadN(e.payload))).toEqual([8]);
  });

  it('lists subscriptions unused since a time, and prunes parked messages by age', async () => {
    const { store } = await open();
    await store.subscribe('c1', 'old', 10_000, 100);
    await store.subscribe('c1', 'used', 10_000, 100);
    await store.touchSubscriptions([{ clientId: 'c1', subscriptionId: 'used' }], 5_000);
    expect(await store.idleSubscriptions(1_000)).toEqual([{ clientId: 'c1', subscriptionId: 'old' }]);
    await store.commitRound([], [], [msg('away', 1)], 1_000);
    await store.commitRound([], [], [msg('away', 2)], 3_000);
    expect(await store.pruneOrphans(2_000)).toBe(1);
    await store.subscribe('away', 's', 10_000, 4_000);
    expect((await store.loadDeliveries('away', 's')).map((e) => payloadN(e.payload))).toEqual([2]);
  });
});

describe('tracker store on postgres, shared by instances', () => {
  const places: BackendPlace[] = [];
  afterEach(async () => {
    for (const p of places.splice(0)) await p.close();
  });

  it('migrates once when several instances start together, and all of them see the same rows', async () => {
    const place = await backends[1]!.fresh();
    places.push(place);
    const stores = await Promise.all([1, 2, 3].map((i) => openPostgresTrackerStore(place.pool!, `i${i}`)));
    const versions = await place.pool!.query("SELECT version FROM schema_migrations WHERE module = 'tracker'");
    expect(versions.rows).toEqual([{ version: trackerPgMigrations.length }]);
    await stores[0]!.subscribe('c1', 's', 10_000, 0);
    await stores[1]!.commitRound([], [], [msg('c1', 1)], 1);
    const [entry] = await stores[2]!.loadDeliveries('c1', 's');
    expect(payloadN(entry!.payload)).toBe(1);
    await stores[2]!.ackMany([{ clientId: 'c1', ackId: entry!.ackId }]);
    expect(await stores[0]!.outboxDepth()).toBe(0);
  });

  it('never strands a message when a first subscription races a round that would park it', async () => {
    const place = await backends[1]!.fresh();
    places.push(place);
    const [a, b] = await Promise.all([openPostgresTrackerStore(place.pool!, 'a'), openPostgresTrackerStore(place.pool!, 'b')]);
    for (let i = 0; i < 20; i++) {
      const clientId = `race${i}`;
      await Promise.all([a.commitRound([], [], [msg(clientId, i)], i), b.subscribe(clientId, 's', 10_000, i)]);
      expect((await a.loadDeliveries(clientId, 's')).length).toBe(1);
    }
  });
});
