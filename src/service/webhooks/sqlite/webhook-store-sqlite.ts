// Webhooks in the SQLite database of a single instance, beside the tracker's outbox (the contract: ../webhook-store.ts).
import type { Statement } from 'better-sqlite3';
import { migrate, type Db } from '../../../lib/sqlite.js';
import { orderedId } from '../../tracker/tracker-ids.js';
import {
  ACTIVITY_ABOVE_SQLITE,
  BLOCK_HASH_SQLITE,
  DROP_TRACKER_DELIVERIES_SQLITE,
  FIRST_STORED_SQLITE,
  INDEX_TIP_SQL,
  marksJson,
  MOVES_SQLITE,
  RESUME_DELIVERIES_SQLITE,
  patchValues,
  PENDING_SELECT,
  RESUME_SET,
  stepEnds,
  toMove,
  toPending,
  toWebhook,
  WEBHOOK_INSERT_SQLITE,
  WEBHOOK_UPDATE_SQLITE,
  webhookValues,
  type MoveDbRow,
  type PendingDbRow,
  type WebhookDbRow,
} from '../webhook-store-rows.js';
import { NEVER_IDLE, webhookSubscriptionId, type ActivitySpan, type WebhookStore } from '../webhook-store.js';

/** Needs the tracker's tables (openSqliteTrackerStore first): a delivery to a webhook is a tracker_delivery row. */
export const webhookMigrations: readonly string[] = [
  `
  CREATE TABLE webhook (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    url TEXT NOT NULL,
    tracker_messages INTEGER NOT NULL,
    addresses TEXT NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_until_ms INTEGER,
    state TEXT NOT NULL,
    failing_since_ms INTEGER,
    failures INTEGER NOT NULL,
    retry_at_ms INTEGER,
    last_error TEXT,
    last_attempt_ms INTEGER,
    last_success_ms INTEGER,
    activity_block INTEGER,
    created_at_ms INTEGER NOT NULL
  );
  CREATE INDEX webhook_client ON webhook (client_id);
  `,
  // The activity cursor keeps the index's hash of its block and its earlier positions (reorganisations: webhook-activity-reorg.ts).
  `
  ALTER TABLE webhook ADD COLUMN activity_hash TEXT;
  ALTER TABLE webhook ADD COLUMN activity_marks TEXT;
  `,
];

export function openSqliteWebhookStore(db: Db): WebhookStore {
  migrate(db, 'webhooks', webhookMigrations);
  const q = {
    insert: db.prepare(WEBHOOK_INSERT_SQLITE),
    update: db.prepare(WEBHOOK_UPDATE_SQLITE),
    resume: db.prepare(`UPDATE webhook SET ${RESUME_SET} WHERE id = ?`),
    resumeDeliveries: db.prepare(RESUME_DELIVERIES_SQLITE),
    dropTrackerDeliveries: db.prepare(DROP_TRACKER_DELIVERIES_SQLITE).pluck(),
    get: db.prepare('SELECT * FROM webhook WHERE id = ?'),
    ofClient: db.prepare('SELECT * FROM webhook WHERE client_id = ? ORDER BY created_at_ms, id'),
    countOfClient: db.prepare('SELECT count(*) FROM webhook WHERE client_id = ?').pluck(),
    all: db.prepare('SELECT * FROM webhook ORDER BY created_at_ms, id'),
    subCount: db.prepare('SELECT count(*) FROM tracker_subscription WHERE client_id = ?').pluck(),
    insertSub: db.prepare('INSERT OR IGNORE INTO tracker_subscription (client_id, subscription_id, ack_timeout_ms, created_at_ms, last_used_ms) VALUES (?, ?, 0, ?, ?)'),
    deleteSub: db.prepare('DELETE FROM tracker_subscription WHERE client_id = ? AND subscription_id = ?'),
    orphansOf: db.prepare('SELECT seq FROM tracker_message WHERE client_id = ? AND orphan = 1 ORDER BY seq').pluck(),
    clearOrphans: db.prepare('UPDATE tracker_message SET orphan = 0 WHERE client_id = ? AND orphan = 1'),
    insertDelivery: db.prepare('INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) VALUES (?, ?, ?, ?)'),
    deleteDeliveries: db.prepare('DELETE FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? RETURNING seq').pluck(),
    deleteWebhook: db.prepare('DELETE FROM webhook WHERE id = ?'),
    pruneMessage: db.prepare('DELETE FROM tracker_message WHERE seq = ? AND orphan = 0 AND NOT EXISTS (SELECT 1 FROM tracker_delivery d WHERE d.seq = ?)'),
    pending: db.prepare(`${PENDING_SELECT} WHERE d.client_id = ? AND d.subscription_id = ? AND d.seq > ? AND d.sent_at_ms IS NULL ORDER BY d.seq LIMIT ?`),
    countPending: db.prepare('SELECT count(*) FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NULL').pluck(),
    claim: db.prepare(
      'UPDATE tracker_delivery SET lease_until_ms = ? WHERE client_id = ? AND ack_id = ? AND sent_at_ms IS NULL AND (lease_until_ms IS NULL OR lease_until_ms <= ?)',
    ),
    release: db.prepare('UPDATE tracker_delivery SET lease_until_ms = NULL WHERE lease_until_ms IS NOT NULL'),
    sent: db.prepare('UPDATE tracker_delivery SET sent_at_ms = ?, lease_until_ms = NULL, attempts = coalesce(attempts, 0) + 1, next_at_ms = NULL WHERE client_id = ? AND ack_id = ?'),
    webhookOk: db.prepare('UPDATE webhook SET failing_since_ms = NULL, failures = 0, retry_at_ms = NULL, last_error = NULL, last_attempt_ms = ?, last_success_ms = ? WHERE id = ?'),
    failed: db.prepare('UPDATE tracker_delivery SET lease_until_ms = NULL, attempts = coalesce(attempts, 0) + 1, next_at_ms = ? WHERE client_id = ? AND ack_id = ?'),
    webhookFailed: db.prepare(
      `UPDATE webhook SET failing_since_ms = coalesce(failing_since_ms, ?), failures = failures + 1, retry_at_ms = ?, last_error = ?, last_attempt_ms = ?,
         state = CASE WHEN ? = 1 AND state = 'active' THEN 'failing' ELSE state END WHERE id = ?`,
    ),
    replayRange: db.prepare(
      `UPDATE tracker_delivery SET sent_at_ms = NULL, attempts = 0, next_at_ms = NULL, replay = 1
        WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NOT NULL
          AND seq IN (SELECT seq FROM tracker_message WHERE client_id = ? AND created_at_ms >= ? AND created_at_ms <= ?)`,
    ),
    seqOfMessage: db.prepare('SELECT seq FROM tracker_message WHERE message_id = ? AND client_id = ?').pluck(),
    replayFrom: db.prepare(
      'UPDATE tracker_delivery SET sent_at_ms = NULL, attempts = 0, next_at_ms = NULL, replay = 1 WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NOT NULL AND seq >= ?',
    ),
    pruneSent: db.prepare('DELETE FROM tracker_delivery WHERE sent_at_ms IS NOT NULL AND sent_at_ms < ? RETURNING seq').pluck(),
    cursorMove: db.prepare('UPDATE webhook SET activity_block = ?, activity_hash = ?, activity_marks = ? WHERE id = ? AND activity_block IS ? AND activity_hash IS ?'),
    cursorRestart: db.prepare('UPDATE webhook SET activity_hash = NULL, activity_marks = NULL WHERE id = ?'),
    activityAbove: db.prepare(ACTIVITY_ABOVE_SQLITE),
    insertMessage: db.prepare(
      "INSERT INTO tracker_message (message_id, client_id, tx_hash, type, payload, created_at_ms, orphan) VALUES (?, ?, ?, 'activity', ?, ?, 0)",
    ),
  };
  // Prepared at first use: the index's tables are made by the index store, which need not be opened before this one.
  let indexReads: Record<'tip' | 'hash' | 'firstStored' | 'moves', Statement<unknown[]>> | undefined;
  const pruneSeqs = (seqs: Iterable<number>) => {
    for (const s of new Set(seqs)) q.pruneMessage.run(s, s);
  };
  /** Subscribes the webhook to its client's tracker messages; a client's first subscription takes the parked ones. */
  const subscribe = (clientId: string, webhookId: string, nowMs: number) => {
    const first = (q.subCount.get(clientId) as number) === 0;
    const subId = webhookSubscriptionId(webhookId);
    q.insertSub.run(clientId, subId, nowMs, NEVER_IDLE);
    if (!first) return;
    for (const seq of q.orphansOf.all(clientId) as number[]) q.insertDelivery.run(clientId, orderedId(), subId, seq);
    q.clearOrphans.run(clientId);
  };

  return {
    async create(w) {
      db.transaction(() => {
        q.insert.run(...webhookValues(w));
        if (w.trackerMessages) subscribe(w.clientId, w.id, w.createdAtMs);
      })();
    },
    get: async (id) => {
      const r = q.get.get(id) as WebhookDbRow | undefined;
      return r ? toWebhook(r) : null;
    },
    listOfClient: async (clientId) => (q.ofClient.all(clientId) as WebhookDbRow[]).map(toWebhook),
    countOfClient: async (clientId) => q.countOfClient.get(clientId) as number,
    all: async () => (q.all.all() as WebhookDbRow[]).map(toWebhook),

    async update(id, patch) {
      return db.transaction(() => {
        const before = q.get.get(id) as WebhookDbRow | undefined;
        if (!before) return null;
        const subId = webhookSubscriptionId(id);
        q.update.run(...patchValues(id, patch));
        if (patch.activityBlock !== undefined) q.cursorRestart.run(id);
        if (patch.state === 'active') {
          q.resume.run(id);
          q.resumeDeliveries.run(before.client_id, subId);
        }
        if (patch.trackerMessages === true && before.tracker_messages === 0) subscribe(before.client_id, id, Date.now());
        if (patch.trackerMessages === false && before.tracker_messages === 1) {
          q.deleteSub.run(before.client_id, subId);
          pruneSeqs(q.dropTrackerDeliveries.all(before.client_id, subId, before.client_id) as number[]);
        }
        return toWebhook(q.get.get(id) as WebhookDbRow);
      })();
    },

    async remove(id) {
      return db.transaction(() => {
        const w = q.get.get(id) as WebhookDbRow | undefined;
        if (!w) return false;
        const subId = webhookSubscriptionId(id);
        const seqs = q.deleteDeliveries.all(w.client_id, subId) as number[];
        q.deleteSub.run(w.client_id, subId);
        q.deleteWebhook.run(id);
        pruneSeqs(seqs);
        return true;
      })();
    },

    pending: async (webhookId, clientId, afterSeq, limit) =>
      (q.pending.all(clientId, webhookSubscriptionId(webhookId), afterSeq, limit) as PendingDbRow[]).map(toPending),
    countPending: async (webhookId, clientId) => q.countPending.get(clientId, webhookSubscriptionId(webhookId)) as number,

    async claim(clientId, deliveryIds, nowMs, leaseUntilMs) {
      return db.transaction(() => new Set(deliveryIds.filter((id) => q.claim.run(leaseUntilMs, clientId, id, nowMs).changes === 1)))();
    },

    async releaseLeases() {
      q.release.run();
    },

    async markSent(sent, nowMs) {
      db.transaction(() => {
        for (const d of sent) q.sent.run(nowMs, d.clientId, d.deliveryId);
        for (const id of new Set(sent.map((d) => d.webhookId))) q.webhookOk.run(nowMs, nowMs, id);
      })();
    },

    async markFailed(webhookId, clientId, deliveryId, f) {
      db.transaction(() => {
        q.failed.run(f.nextAtMs, clientId, deliveryId);
        q.webhookFailed.run(f.nowMs, f.retryAtMs, f.error, f.nowMs, f.failing ? 1 : 0, webhookId);
      })();
    },

    async replay(webhookId, clientId, range) {
      const subId = webhookSubscriptionId(webhookId);
      if ('fromMessageId' in range) {
        const seq = q.seqOfMessage.get(range.fromMessageId, clientId) as number | undefined;
        if (seq === undefined) return null;
        return q.replayFrom.run(clientId, subId, seq).changes;
      }
      return q.replayRange.run(clientId, subId, clientId, range.fromMs, range.toMs).changes;
    },

    async pruneSent(beforeMs) {
      return db.transaction(() => {
        const seqs = q.pruneSent.all(beforeMs) as number[];
        pruneSeqs(seqs);
        return seqs.length;
      })();
    },

    async readActivity(addresses, fromBlock, stepBlocks) {
      indexReads ??= {
        tip: db.prepare(INDEX_TIP_SQL).pluck(),
        hash: db.prepare(BLOCK_HASH_SQLITE).pluck(),
        firstStored: db.prepare(FIRST_STORED_SQLITE),
        moves: db.prepare(MOVES_SQLITE),
      };
      const r = indexReads;
      // One read transaction: the index's writer commits between statements otherwise.
      return db.transaction((): ActivitySpan => {
        const tipText = r.tip.get() as string | undefined;
        if (tipText === undefined) return { tip: null, fromHash: null, to: fromBlock, toHash: null, moves: [] };
        const tip = Number(tipText);
        const hashOf = (block: number) => (block > tip ? null : ((r.hash.get(block) as string | undefined) ?? null));
        const fromHash = hashOf(fromBlock);
        const ends = stepEnds(tip, fromBlock, stepBlocks);
        if (!ends) return { tip, fromHash, to: fromBlock, toHash: fromHash, moves: [] };
        const stored = r.firstStored.get(ends.target, ends.upTo) as { number: number; hash: string } | undefined;
        const to = stored?.number ?? ends.target;
        const moves = (r.moves.all(JSON.stringify(addresses), fromBlock, to) as MoveDbRow[]).map(toMove);
        return { tip, fromHash, to, toHash: stored?.hash ?? hashOf(to), moves };
      })();
    },

    activityAbove: async (webhookId, clientId, block) =>
      (q.activityAbove.all(clientId, webhookSubscriptionId(webhookId), block) as { tx_hash: string; payload: string }[]).map((r) => ({ txHash: r.tx_hash, payload: r.payload })),

    async commitActivity(webhookId, from, to, messages, nowMs) {
      return db.transaction(() => {
        if (q.cursorMove.run(to.block, to.hash, marksJson(to.marks), webhookId, from.block, from.hash).changes !== 1) return false;
        const subId = webhookSubscriptionId(webhookId);
        for (const m of messages) {
          const seq = Number(q.insertMessage.run(orderedId(nowMs), m.clientId, m.txHash, m.payload, nowMs).lastInsertRowid);
          q.insertDelivery.run(m.clientId, orderedId(nowMs), subId, seq);
        }
        return true;
      })();
    },
  };
}
