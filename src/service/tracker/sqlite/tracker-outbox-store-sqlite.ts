// The tracker's outbox as offered to webhooks, on SQLite (the contract: ../tracker-outbox-store.ts): the statements on
// the tracker's tables that a webhook store runs inside its own transaction on the same database.
import { writeTransaction, type Db } from '../../../lib/sqlite.js';
import { orderedId } from '../tracker-ids.js';
import { CLAIM_SOME, HELD_SQL, NEVER_IDLE, toHeldDelivery, type HeldDeliveryRow } from '../tracker-outbox-store-rows.js';
import type { HeldOutbox } from '../tracker-outbox-store.js';

/** Needs the tracker's tables (openSqliteTrackerStore first). */
export function sqliteHeldOutbox(db: Db): HeldOutbox {
  const q = {
    subCount: db.prepare('SELECT count(*) FROM tracker_subscription WHERE client_id = ?').pluck(),
    insertSub: db.prepare(HELD_SQL.insertSub),
    deleteSub: db.prepare('DELETE FROM tracker_subscription WHERE client_id = ? AND subscription_id = ?'),
    orphansOf: db.prepare('SELECT seq FROM tracker_message WHERE client_id = ? AND orphan = 1 ORDER BY seq').pluck(),
    clearOrphans: db.prepare('UPDATE tracker_message SET orphan = 0 WHERE client_id = ? AND orphan = 1'),
    insertDelivery: db.prepare('INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) VALUES (?, ?, ?, ?)'),
    deleteDeliveries: db.prepare('DELETE FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? RETURNING seq').pluck(),
    dropUnsentExcept: db.prepare(HELD_SQL.dropUnsentExcept).pluck(),
    pruneMessage: db.prepare(
      'DELETE FROM tracker_message WHERE seq = ? AND orphan = 0 AND NOT EXISTS (SELECT 1 FROM tracker_delivery d WHERE d.seq = ?)',
    ),
    pending: db.prepare(HELD_SQL.pending),
    countPending: db.prepare(HELD_SQL.countPending).pluck(),
    retryNow: db.prepare(HELD_SQL.retryNow),
    countHeld: db.prepare(HELD_SQL.countHeld).pluck(),
    claimSome: db.prepare(CLAIM_SOME.sqlite).pluck(),
    release: db.prepare(HELD_SQL.releaseLeases),
    sent: db.prepare(HELD_SQL.markSent),
    failed: db.prepare(HELD_SQL.markFailed),
    replayRange: db.prepare(
      `UPDATE tracker_delivery SET ${HELD_SQL.replaySet} WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NOT NULL
          AND seq IN (SELECT seq FROM tracker_message WHERE client_id = ? AND created_at_ms >= ? AND created_at_ms <= ?)`,
    ),
    seqOfMessage: db.prepare(HELD_SQL.seqOfMessage).pluck(),
    replayFrom: db.prepare(HELD_SQL.replayFrom),
    pruneSent: db.prepare(HELD_SQL.pruneSent).pluck(),
    keptAbove: db.prepare(
      `SELECT m.tx_hash, m.payload FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
        WHERE d.client_id = ? AND d.subscription_id = ? AND m.type = ? AND json_extract(m.payload, '$.result.blockNumber') > ? ORDER BY m.seq`,
    ),
    insertMessage: db.prepare(
      'INSERT INTO tracker_message (message_id, client_id, tx_hash, type, payload, created_at_ms, orphan) VALUES (?, ?, ?, ?, ?, ?, 0)',
    ),
  };
  const pruneSeqs = (seqs: Iterable<number>) => {
    for (const s of new Set(seqs)) q.pruneMessage.run(s, s);
  };
  // Each call is its own transaction, or a part of the caller's (better-sqlite3 nests them as savepoints).
  const tx = <A extends unknown[], R>(fn: (...a: A) => R) => writeTransaction(db, fn);

  return {
    subscribe: tx((clientId, subscriptionId, nowMs) => {
      const first = (q.subCount.get(clientId) as number) === 0;
      q.insertSub.run(clientId, subscriptionId, nowMs, NEVER_IDLE);
      if (!first) return;
      for (const seq of q.orphansOf.all(clientId) as number[]) q.insertDelivery.run(clientId, orderedId(), subscriptionId, seq);
      q.clearOrphans.run(clientId);
    }),
    unsubscribe: tx((clientId, subscriptionId) => {
      const seqs = q.deleteDeliveries.all(clientId, subscriptionId) as number[];
      q.deleteSub.run(clientId, subscriptionId);
      pruneSeqs(seqs);
    }),
    unsubscribeKeeping: tx((clientId, subscriptionId, keptType) => {
      q.deleteSub.run(clientId, subscriptionId);
      pruneSeqs(q.dropUnsentExcept.all(clientId, subscriptionId, clientId, keptType) as number[]);
    }),
    pending: (clientId, subscriptionId, afterSeq, limit) =>
      (q.pending.all(clientId, subscriptionId, afterSeq, limit) as HeldDeliveryRow[]).map(toHeldDelivery),
    countPending: (clientId, subscriptionId) => q.countPending.get(clientId, subscriptionId) as number,
    retryNow: (clientId, subscriptionId) => void q.retryNow.run(clientId, subscriptionId),
    claim: tx((clientId, subscriptionId, deliveryIds, { nowMs, untilMs, maxHeld }) => {
      const room = maxHeld - (q.countHeld.get(clientId, subscriptionId, nowMs) as number);
      if (room <= 0 || deliveryIds.length === 0) return new Set<string>();
      return new Set(q.claimSome.all(untilMs, clientId, clientId, subscriptionId, JSON.stringify(deliveryIds), nowMs, room) as string[]);
    }),
    releaseLeases: () => void q.release.run(),
    markSent: tx((sent, nowMs) => {
      for (const d of sent) q.sent.run(nowMs, d.clientId, d.deliveryId);
    }),
    markFailed: (clientId, deliveryId, nextAtMs) => void q.failed.run(nextAtMs, clientId, deliveryId),
    replay(clientId, subscriptionId, range) {
      if (!('fromMessageId' in range)) return q.replayRange.run(clientId, subscriptionId, clientId, range.fromMs, range.toMs).changes;
      const seq = q.seqOfMessage.get(range.fromMessageId, clientId) as number | undefined;
      return seq === undefined ? null : q.replayFrom.run(clientId, subscriptionId, seq).changes;
    },
    pruneSent: tx((beforeMs) => {
      const seqs = q.pruneSent.all(beforeMs) as number[];
      pruneSeqs(seqs);
      return seqs.length;
    }),
    keptAbove: (clientId, subscriptionId, type, block) =>
      (q.keptAbove.all(clientId, subscriptionId, type, block) as { tx_hash: string; payload: string }[]).map((r) => ({
        txHash: r.tx_hash,
        payload: r.payload,
      })),
    store: tx((subscriptionId, messages, nowMs) => {
      for (const m of messages) {
        const seq = Number(q.insertMessage.run(orderedId(nowMs), m.clientId, m.txHash, m.type, m.payload, nowMs).lastInsertRowid);
        q.insertDelivery.run(m.clientId, orderedId(nowMs), subscriptionId, seq);
      }
    }),
  };
}
