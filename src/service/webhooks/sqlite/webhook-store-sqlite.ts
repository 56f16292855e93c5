// Webhooks in the SQLite database of a single instance (the contract: ../webhook-store.ts): the webhook table here, its
// deliveries through the tracker's outbox (sqliteHeldOutbox) and address activity through the index's moves by owner,
// each call of theirs inside this store's transaction on the same database.
import { migrate, writeTransaction, type Db } from '../../../lib/sqlite.js';
import { openSqliteIndexMoves } from '../../indexer/sqlite/indexer-moves-sqlite.js';
import { sqliteHeldOutbox } from '../../tracker/sqlite/tracker-outbox-store-sqlite.js';
import {
  marksJson,
  patchValues,
  RESUME_SET,
  toWebhook,
  WEBHOOK_FAILED,
  WEBHOOK_INSERT,
  WEBHOOK_OK,
  WEBHOOK_UPDATE,
  webhookValues,
  type WebhookDbRow,
} from '../webhook-store-rows.js';
import { webhookSubscriptionId as subOf, type WebhookStore } from '../webhook-store.js';

/** The webhook table, this module's own (its deliveries are the tracker's: openSqliteTrackerStore first). */
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
  const outbox = sqliteHeldOutbox(db);
  const moves = openSqliteIndexMoves(db);
  const q = {
    insert: db.prepare(WEBHOOK_INSERT),
    update: db.prepare(WEBHOOK_UPDATE),
    resume: db.prepare(`UPDATE webhook SET ${RESUME_SET} WHERE id = ?`),
    get: db.prepare('SELECT * FROM webhook WHERE id = ?'),
    ofClient: db.prepare('SELECT * FROM webhook WHERE client_id = ? ORDER BY created_at_ms, id'),
    countOfClient: db.prepare('SELECT count(*) FROM webhook WHERE client_id = ?').pluck(),
    all: db.prepare('SELECT * FROM webhook ORDER BY created_at_ms, id'),
    deleteWebhook: db.prepare('DELETE FROM webhook WHERE id = ?'),
    webhookOk: db.prepare(WEBHOOK_OK),
    webhookFailed: db.prepare(WEBHOOK_FAILED),
    cursorMove: db.prepare(
      'UPDATE webhook SET activity_block = ?, activity_hash = ?, activity_marks = ? WHERE id = ? AND activity_block IS ? AND activity_hash IS ?',
    ),
    cursorRestart: db.prepare('UPDATE webhook SET activity_hash = NULL, activity_marks = NULL WHERE id = ?'),
  };

  return {
    async create(w) {
      writeTransaction(db, () => {
        q.insert.run(...webhookValues(w));
        if (w.trackerMessages) outbox.subscribe(w.clientId, subOf(w.id), w.createdAtMs);
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
      return writeTransaction(db, () => {
        const before = q.get.get(id) as WebhookDbRow | undefined;
        if (!before) return null;
        q.update.run(...patchValues(id, patch));
        if (patch.activityBlock !== undefined) q.cursorRestart.run(id);
        if (patch.state === 'active') {
          q.resume.run(id);
          outbox.retryNow(before.client_id, subOf(id));
        }
        if (patch.trackerMessages === true && before.tracker_messages === 0) outbox.subscribe(before.client_id, subOf(id), Date.now());
        if (patch.trackerMessages === false && before.tracker_messages === 1)
          outbox.unsubscribeKeeping(before.client_id, subOf(id), 'activity');
        return toWebhook(q.get.get(id) as WebhookDbRow);
      })();
    },

    async remove(id) {
      return writeTransaction(db, () => {
        const w = q.get.get(id) as WebhookDbRow | undefined;
        if (!w) return false;
        outbox.unsubscribe(w.client_id, subOf(id));
        q.deleteWebhook.run(id);
        return true;
      })();
    },

    pending: async (webhookId, clientId, afterSeq, limit) => outbox.pending(clientId, subOf(webhookId), afterSeq, limit),
    countPending: async (webhookId, clientId) => outbox.countPending(clientId, subOf(webhookId)),
    claim: async (webhookId, clientId, deliveryIds, terms) => outbox.claim(clientId, subOf(webhookId), deliveryIds, terms),
    releaseLeases: async () => outbox.releaseLeases(),

    async markSent(sent, nowMs) {
      writeTransaction(db, () => {
        outbox.markSent(sent, nowMs);
        for (const id of new Set(sent.map((d) => d.webhookId))) q.webhookOk.run(nowMs, nowMs, id);
      })();
    },

    async markFailed(webhookId, clientId, deliveryId, f) {
      writeTransaction(db, () => {
        outbox.markFailed(clientId, deliveryId, f.nextAtMs);
        q.webhookFailed.run(f.nowMs, f.retryAtMs, f.error, f.nowMs, f.failing ? 1 : 0, webhookId);
      })();
    },

    replay: async (webhookId, clientId, range) => outbox.replay(clientId, subOf(webhookId), range),
    pruneSent: async (beforeMs) => outbox.pruneSent(beforeMs),
    readActivity: (addresses, fromBlock, stepBlocks) => moves.movesOfOwners(addresses, fromBlock, stepBlocks),
    activityAbove: async (webhookId, clientId, block) => outbox.keptAbove(clientId, subOf(webhookId), 'activity', block),

    async commitActivity(webhookId, from, to, messages, nowMs) {
      return writeTransaction(db, () => {
        if (q.cursorMove.run(to.block, to.hash, marksJson(to.marks), webhookId, from.block, from.hash).changes !== 1) return false;
        outbox.store(
          subOf(webhookId),
          messages.map((m) => ({ ...m, type: 'activity' })),
          nowMs,
        );
        return true;
      })();
    },
  };
}
