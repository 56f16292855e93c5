// The tracker's store in the SQLite database of a single instance (the contract: ../tracker-store.ts).
import { deferCheckpoints, migrate, writeTransaction, type Db } from '../../../lib/sqlite.js';
import { orderedId } from '../tracker-ids.js';
import { receiptJson } from '../tracker-receipt-format.js';
import { IDLE_SUBSCRIPTIONS_PER_CALL, type TrackerStore, type WithdrawnDelivery } from '../tracker-store.js';
import { fanOut, rowToState, toEntry, type DeliveryRow, type TrackingRow } from '../tracker-store-rows.js';
import type { TrackingState } from '../tracker-watch-policy.js';

/** Exported for the test that upgrades an older database. */
export const trackerMigrations: readonly string[] = [
  `
  CREATE TABLE tracker_tracking (
    client_id TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    confirmation INTEGER NOT NULL,
    timeout_ms INTEGER NOT NULL,
    tracked_at_ms INTEGER NOT NULL,
    pending_sent INTEGER NOT NULL DEFAULT 0,
    receipt_json TEXT,
    tx_from TEXT,
    tx_nonce INTEGER,
    done_at_ms INTEGER,
    PRIMARY KEY (client_id, tx_hash)
  ) WITHOUT ROWID;
  CREATE INDEX tracker_tracking_done ON tracker_tracking (done_at_ms);
  CREATE TABLE tracker_subscription (
    client_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    ack_timeout_ms INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (client_id, subscription_id)
  ) WITHOUT ROWID;
  CREATE TABLE tracker_message (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    orphan INTEGER NOT NULL
  );
  CREATE INDEX tracker_message_orphan ON tracker_message (client_id, orphan);
  CREATE TABLE tracker_delivery (
    client_id TEXT NOT NULL,
    ack_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    seq INTEGER NOT NULL REFERENCES tracker_message (seq) ON DELETE CASCADE,
    PRIMARY KEY (client_id, ack_id)
  ) WITHOUT ROWID;
  CREATE INDEX tracker_delivery_sub ON tracker_delivery (client_id, subscription_id, seq);
  CREATE INDEX tracker_delivery_seq ON tracker_delivery (seq);
  `,
  // Withdrawing a reorganised receipt looks messages up by transaction.
  `CREATE INDEX tracker_message_tx ON tracker_message (client_id, tx_hash);`,
  // Trackings in tracking order instead of hash order: a block's receipts land on transactions tracked at about the
  // same time, so storing them rewrites a few neighbouring pages rather than one random page per transaction.
  `
  CREATE TABLE tracker_tracking_by_age (
    id INTEGER PRIMARY KEY,
    client_id TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    confirmation INTEGER NOT NULL,
    timeout_ms INTEGER NOT NULL,
    tracked_at_ms INTEGER NOT NULL,
    pending_sent INTEGER NOT NULL DEFAULT 0,
    receipt_json TEXT,
    tx_from TEXT,
    tx_nonce INTEGER,
    done_at_ms INTEGER,
    UNIQUE (client_id, tx_hash)
  );
  INSERT INTO tracker_tracking_by_age
    (client_id, tx_hash, confirmation, timeout_ms, tracked_at_ms, pending_sent, receipt_json, tx_from, tx_nonce, done_at_ms)
    SELECT client_id, tx_hash, confirmation, timeout_ms, tracked_at_ms, pending_sent, receipt_json, tx_from, tx_nonce, done_at_ms
    FROM tracker_tracking ORDER BY tracked_at_ms;
  DROP TABLE tracker_tracking;
  ALTER TABLE tracker_tracking_by_age RENAME TO tracker_tracking;
  CREATE INDEX tracker_tracking_done ON tracker_tracking (done_at_ms);
  `,
  // No index in random order on the hot path: a withdrawal finds the stale receipt message through the tracking row
  // (receipt_seq) instead of an index on (client_id, tx_hash), whose random keys made every stored and every acked
  // message rewrite a page of its own (storing a block's receipts took 20% longer with it).
  `
  ALTER TABLE tracker_tracking ADD COLUMN receipt_seq INTEGER;
  UPDATE tracker_tracking SET receipt_seq = (
    SELECT max(m.seq) FROM tracker_message m
    WHERE m.client_id = tracker_tracking.client_id AND m.tx_hash = tracker_tracking.tx_hash AND m.type = 'receipt'
  ) WHERE receipt_json IS NOT NULL AND done_at_ms IS NULL;
  DROP INDEX tracker_message_tx;
  `,
  // When a subscription was last bound or released: one unused for a week is deleted with its messages.
  `
  ALTER TABLE tracker_subscription ADD COLUMN last_used_ms INTEGER;
  UPDATE tracker_subscription SET last_used_ms = created_at_ms;
  `,
  // The sending state of a delivery whose subscriber sends it itself (a webhook, through tracker-outbox-store.ts; NULL
  // on the WebSocket's): sent and kept for replay, tries, next try, claimed by an instance until, sent again by a replay.
  `
  ALTER TABLE tracker_delivery ADD COLUMN sent_at_ms INTEGER;
  ALTER TABLE tracker_delivery ADD COLUMN attempts INTEGER;
  ALTER TABLE tracker_delivery ADD COLUMN next_at_ms INTEGER;
  ALTER TABLE tracker_delivery ADD COLUMN lease_until_ms INTEGER;
  ALTER TABLE tracker_delivery ADD COLUMN replay INTEGER;
  `,
  // A webhook's claims are counted at each claim: only the few deliveries claimed now, not the sent ones kept for replay.
  'CREATE INDEX tracker_delivery_leased ON tracker_delivery (client_id, subscription_id) WHERE lease_until_ms IS NOT NULL',
];

/** `runOwed`: runs the checkpoints a round put off (deferCheckpoints); by default on this connection, at the round's end. */
export function openSqliteTrackerStore(db: Db, runOwed?: (db: Db) => void): TrackerStore {
  migrate(db, 'tracker', trackerMigrations);
  const q = {
    getTracking: db.prepare('SELECT * FROM tracker_tracking WHERE client_id = ? AND tx_hash = ?'),
    insertTracking: db.prepare(
      'INSERT INTO tracker_tracking (client_id, tx_hash, confirmation, timeout_ms, tracked_at_ms) VALUES (?, ?, ?, ?, ?)',
    ),
    updateOptions: db.prepare('UPDATE tracker_tracking SET confirmation = ?, timeout_ms = ? WHERE client_id = ? AND tx_hash = ?'),
    saveTracking: db.prepare(
      'UPDATE tracker_tracking SET pending_sent = ?, receipt_json = ?, receipt_seq = ?, tx_from = ?, tx_nonce = ?, ' +
        'done_at_ms = ? WHERE client_id = ? AND tx_hash = ?',
    ),
    receiptSeqOf: db.prepare('SELECT receipt_seq FROM tracker_tracking WHERE client_id = ? AND tx_hash = ?').pluck(),
    openTrackings: db.prepare('SELECT * FROM tracker_tracking WHERE done_at_ms IS NULL'),
    pruneDone: db.prepare('DELETE FROM tracker_tracking WHERE done_at_ms IS NOT NULL AND done_at_ms < ?'),
    // A scan, once a minute: the table holds only un-acked and parked messages, and an index would cost every message.
    pruneOrphans: db.prepare('DELETE FROM tracker_message WHERE orphan = 1 AND created_at_ms < ?'),
    countOpen: db.prepare('SELECT count(*) AS n FROM tracker_tracking WHERE client_id = ? AND done_at_ms IS NULL'),
    subsOf: db.prepare('SELECT subscription_id FROM tracker_subscription WHERE client_id = ?'),
    getSub: db.prepare('SELECT ack_timeout_ms FROM tracker_subscription WHERE client_id = ? AND subscription_id = ?'),
    countSubs: db.prepare('SELECT count(*) AS n FROM tracker_subscription WHERE client_id = ?'),
    insertSub: db.prepare(
      'INSERT INTO tracker_subscription (client_id, subscription_id, ack_timeout_ms, created_at_ms, last_used_ms) VALUES (?, ?, ?, ?, ?)',
    ),
    updateSub: db.prepare(
      'UPDATE tracker_subscription SET ack_timeout_ms = ?, last_used_ms = ? WHERE client_id = ? AND subscription_id = ?',
    ),
    touchSub: db.prepare('UPDATE tracker_subscription SET last_used_ms = ? WHERE client_id = ? AND subscription_id = ?'),
    idleSubs: db.prepare(
      `SELECT client_id, subscription_id FROM tracker_subscription WHERE last_used_ms < ? LIMIT ${IDLE_SUBSCRIPTIONS_PER_CALL}`,
    ),
    deleteSub: db.prepare('DELETE FROM tracker_subscription WHERE client_id = ? AND subscription_id = ?'),
    deleteSubDeliveries: db.prepare('DELETE FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? RETURNING seq'),
    orphansOf: db.prepare('SELECT seq FROM tracker_message WHERE client_id = ? AND orphan = 1 ORDER BY seq'),
    clearOrphans: db.prepare('UPDATE tracker_message SET orphan = 0 WHERE client_id = ? AND orphan = 1'),
    insertMessage: db.prepare(
      'INSERT INTO tracker_message (message_id, client_id, tx_hash, type, payload, created_at_ms, orphan) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertDelivery: db.prepare('INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) VALUES (?, ?, ?, ?)'),
    deliveriesOf: db.prepare(
      `SELECT d.ack_id, m.message_id, m.seq, m.tx_hash, m.payload FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
       WHERE d.client_id = ? AND d.subscription_id = ? ORDER BY m.seq`,
    ),
    deliveriesPage: db.prepare(
      `SELECT d.ack_id, m.message_id, m.seq, m.tx_hash, m.payload FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
       WHERE d.client_id = ? AND d.subscription_id = ? AND d.seq > ? ORDER BY d.seq LIMIT ?`,
    ),
    ack: db.prepare('DELETE FROM tracker_delivery WHERE client_id = ? AND ack_id = ? RETURNING seq, subscription_id'),
    pruneMessage: db.prepare(
      'DELETE FROM tracker_message WHERE seq = ? AND orphan = 0 AND NOT EXISTS (SELECT 1 FROM tracker_delivery d WHERE d.seq = ?)',
    ),
    deliveriesOfSeq: db.prepare('SELECT ack_id, subscription_id FROM tracker_delivery WHERE seq = ? AND client_id = ?'),
    deleteOrphan: db.prepare('DELETE FROM tracker_message WHERE seq = ? AND orphan = 1'),
    deleteDelivery: db.prepare('DELETE FROM tracker_delivery WHERE client_id = ? AND ack_id = ?'),
    outboxDepth: db.prepare('SELECT count(*) AS n FROM tracker_delivery WHERE sent_at_ms IS NULL'),
  };

  function pruneSeqs(seqs: Iterable<number>): void {
    for (const s of seqs) q.pruneMessage.run(s, s);
  }

  return {
    async track(clientId, txHash, confirmation, timeoutMs, nowMs) {
      return writeTransaction(db, () => {
        const row = q.getTracking.get(clientId, txHash) as TrackingRow | undefined;
        if (!row) q.insertTracking.run(clientId, txHash, confirmation, timeoutMs, nowMs);
        else if (row.done_at_ms === null) q.updateOptions.run(confirmation, timeoutMs, clientId, txHash);
        return { state: rowToState(q.getTracking.get(clientId, txHash) as TrackingRow), created: !row };
      })();
    },

    countOpenTrackings: async (clientId) => (q.countOpen.get(clientId) as { n: number }).n,

    loadOpenTrackings: async () => (q.openTrackings.all() as TrackingRow[]).map(rowToState),

    async commitRound(states, withdrawals, messages, nowMs) {
      return writeTransaction(db, () => {
        // Withdrawals first: they read the receipt_seq that the tracking rows still hold.
        const withdrawn: WithdrawnDelivery[] = [];
        for (const w of withdrawals) {
          const seq = q.receiptSeqOf.get(w.clientId, w.txHash) as number | null | undefined;
          if (seq === null || seq === undefined) continue;
          const rows = q.deliveriesOfSeq.all(seq, w.clientId) as { ack_id: string; subscription_id: string }[];
          for (const r of rows) {
            q.deleteDelivery.run(w.clientId, r.ack_id);
            withdrawn.push({ clientId: w.clientId, subscriptionId: r.subscription_id, ackId: r.ack_id });
          }
          pruneSeqs([seq]);
          q.deleteOrphan.run(seq);
        }
        const subsOf = new Map<string, string[]>();
        for (const m of messages) {
          if (!subsOf.has(m.clientId))
            subsOf.set(
              m.clientId,
              (q.subsOf.all(m.clientId) as { subscription_id: string }[]).map((r) => r.subscription_id),
            );
        }
        const ids = messages.map(() => orderedId());
        const seqs = messages.map((m, i) =>
          Number(
            q.insertMessage.run(ids[i], m.clientId, m.txHash, m.type, m.payload, nowMs, subsOf.get(m.clientId)!.length === 0 ? 1 : 0)
              .lastInsertRowid,
          ),
        );
        const { rows, created, receiptSeqs } = fanOut(messages, ids, seqs, subsOf);
        for (const d of rows) q.insertDelivery.run(d.clientId, d.ackId, d.subscriptionId, d.seq);
        for (const s of states) {
          // A standing receipt keeps the seq of the message that reported it (null once withdrawn or ended).
          const receiptSeq =
            s.receipt && s.doneAtMs === null
              ? (receiptSeqs.get(s.clientId + '\u0000' + s.txHash) ?? q.receiptSeqOf.get(s.clientId, s.txHash) ?? null)
              : null;
          q.saveTracking.run(
            s.pendingSent ? 1 : 0,
            s.receipt ? receiptJson(s.receipt) : null,
            receiptSeq,
            s.from,
            s.nonce,
            s.doneAtMs,
            s.clientId,
            s.txHash,
          );
        }
        return { created, withdrawn };
      })();
    },

    async subscribe(clientId, subscriptionId, ackTimeoutMs, nowMs) {
      return writeTransaction(db, () => {
        const existing = q.getSub.get(clientId, subscriptionId);
        if (existing) {
          q.updateSub.run(ackTimeoutMs, nowMs, clientId, subscriptionId);
          return { created: false };
        }
        q.insertSub.run(clientId, subscriptionId, ackTimeoutMs, nowMs, nowMs);
        const orphans = q.orphansOf.all(clientId) as { seq: number }[];
        for (const o of orphans) q.insertDelivery.run(clientId, orderedId(), subscriptionId, o.seq);
        q.clearOrphans.run(clientId);
        return { created: true };
      })();
    },

    countSubscriptions: async (clientId) => (q.countSubs.get(clientId) as { n: number }).n,

    async unsubscribe(clientId, subscriptionId) {
      writeTransaction(db, () => {
        const seqs = (q.deleteSubDeliveries.all(clientId, subscriptionId) as { seq: number }[]).map((r) => r.seq);
        q.deleteSub.run(clientId, subscriptionId);
        pruneSeqs(new Set(seqs));
      })();
    },

    loadDeliveries: async (clientId, subscriptionId) => (q.deliveriesOf.all(clientId, subscriptionId) as DeliveryRow[]).map(toEntry),

    loadDeliveriesPage: async (clientId, subscriptionId, afterSeq, limit) =>
      (q.deliveriesPage.all(clientId, subscriptionId, afterSeq, limit) as DeliveryRow[]).map(toEntry),

    async touchSubscriptions(subs, nowMs) {
      writeTransaction(db, () => {
        for (const s of subs) q.touchSub.run(nowMs, s.clientId, s.subscriptionId);
      })();
    },

    idleSubscriptions: async (beforeMs) =>
      (q.idleSubs.all(beforeMs) as { client_id: string; subscription_id: string }[]).map((r) => ({
        clientId: r.client_id,
        subscriptionId: r.subscription_id,
      })),

    async ackMany(acks) {
      writeTransaction(db, () => {
        const seqs = new Set<number>();
        for (const a of acks) {
          const row = q.ack.get(a.clientId, a.ackId) as { seq: number } | undefined;
          if (row) seqs.add(row.seq);
        }
        pruneSeqs(seqs);
      })();
    },

    pruneDoneTrackings: async (beforeMs) => q.pruneDone.run(beforeMs).changes,

    pruneOrphans: async (beforeMs) => q.pruneOrphans.run(beforeMs).changes,

    outboxDepth: async () => (q.outboxDepth.get() as { n: number }).n,

    beginRound: () => deferCheckpoints(db, runOwed && (() => runOwed(db))),

    async loadTrackings(keys) {
      const out: TrackingState[] = [];
      for (const k of keys) {
        const row = q.getTracking.get(k.clientId, k.txHash) as TrackingRow | undefined;
        if (row && row.done_at_ms === null) out.push(rowToState(row));
      }
      return out;
    },
  };
}
