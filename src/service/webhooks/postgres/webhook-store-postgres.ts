// Webhooks in the PostgreSQL database a fleet shares (the contract: ../webhook-store.ts): the webhook table here, its
// deliveries through the tracker's outbox (postgresHeldOutbox: claims only one instance wins, within the webhook's
// fleet-wide limit of requests in flight, counted under a lock on the webhook's row) and address activity
// through the index's moves by owner, the outbox's calls inside this store's transactions.
import { numberedPlaceholders as pg } from '../../../lib/sql-placeholders.js';
import { migratePg } from '../../db/pg-migrate.js';
import { inTransaction, type PgPool } from '../../db/pg-pool.js';
import { openPostgresIndexMoves } from '../../indexer/postgres/indexer-moves-postgres.js';
import { postgresHeldOutbox as outbox } from '../../tracker/postgres/tracker-outbox-store-postgres.js';
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

/** The webhook table, this module's own (its deliveries are the tracker's: openPostgresTrackerStore first). */
export const webhookPgMigrations: readonly string[] = [
  `
  CREATE TABLE webhook (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    url TEXT NOT NULL,
    tracker_messages SMALLINT NOT NULL,
    addresses TEXT NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_until_ms BIGINT,
    state TEXT NOT NULL,
    failing_since_ms BIGINT,
    failures INTEGER NOT NULL,
    retry_at_ms BIGINT,
    last_error TEXT,
    last_attempt_ms BIGINT,
    last_success_ms BIGINT,
    activity_block BIGINT,
    created_at_ms BIGINT NOT NULL
  );
  CREATE INDEX webhook_client ON webhook (client_id);
  `,
  // The activity cursor keeps the index's hash of its block and its earlier positions (reorganisations: webhook-activity-reorg.ts).
  'ALTER TABLE webhook ADD COLUMN activity_hash TEXT, ADD COLUMN activity_marks TEXT',
];

export async function openPostgresWebhookStore(pool: PgPool): Promise<WebhookStore> {
  await migratePg(pool, 'webhooks', webhookPgMigrations);
  const moves = openPostgresIndexMoves(pool);
  const rows = async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[];

  return {
    create: (w) =>
      inTransaction(pool, async (c) => {
        await c.query(pg(WEBHOOK_INSERT), webhookValues(w));
        if (w.trackerMessages) await outbox.subscribe(c, w.clientId, subOf(w.id), w.createdAtMs);
      }),
    get: async (id) => {
      const r = (await rows<WebhookDbRow>('SELECT * FROM webhook WHERE id = $1', [id]))[0];
      return r ? toWebhook(r) : null;
    },
    listOfClient: async (clientId) =>
      (await rows<WebhookDbRow>('SELECT * FROM webhook WHERE client_id = $1 ORDER BY created_at_ms, id', [clientId])).map(toWebhook),
    countOfClient: async (clientId) =>
      Number((await rows<{ n: string }>('SELECT count(*) AS n FROM webhook WHERE client_id = $1', [clientId]))[0]!.n),
    all: async () => (await rows<WebhookDbRow>('SELECT * FROM webhook ORDER BY created_at_ms, id')).map(toWebhook),

    update: (id, patch) =>
      inTransaction(pool, async (c) => {
        const before = (await c.query<WebhookDbRow>('SELECT * FROM webhook WHERE id = $1 FOR UPDATE', [id])).rows[0];
        if (!before) return null;
        await c.query(pg(WEBHOOK_UPDATE), patchValues(id, patch));
        if (patch.activityBlock !== undefined)
          await c.query('UPDATE webhook SET activity_hash = NULL, activity_marks = NULL WHERE id = $1', [id]);
        if (patch.state === 'active') {
          await c.query(`UPDATE webhook SET ${RESUME_SET} WHERE id = $1`, [id]);
          await outbox.retryNow(c, before.client_id, subOf(id));
        }
        if (patch.trackerMessages === true && Number(before.tracker_messages) === 0)
          await outbox.subscribe(c, before.client_id, subOf(id), Date.now());
        if (patch.trackerMessages === false && Number(before.tracker_messages) === 1)
          await outbox.unsubscribeKeeping(c, before.client_id, subOf(id), 'activity');
        return toWebhook((await c.query<WebhookDbRow>('SELECT * FROM webhook WHERE id = $1', [id])).rows[0]!);
      }),

    remove: (id) =>
      inTransaction(pool, async (c) => {
        const w = (await c.query<WebhookDbRow>('DELETE FROM webhook WHERE id = $1 RETURNING *', [id])).rows[0];
        if (!w) return false;
        await outbox.unsubscribe(c, w.client_id, subOf(id));
        return true;
      }),

    pending: (webhookId, clientId, afterSeq, limit) => outbox.pending(pool, clientId, subOf(webhookId), afterSeq, limit),
    countPending: (webhookId, clientId) => outbox.countPending(pool, clientId, subOf(webhookId)),
    // The webhook's row is the lock: two instances never both count the same free room (a deleted webhook claims none).
    claim: (webhookId, clientId, deliveryIds, terms) =>
      inTransaction(pool, async (c) => {
        if ((await c.query('SELECT 1 FROM webhook WHERE id = $1 FOR UPDATE', [webhookId])).rowCount !== 1) return new Set<string>();
        return outbox.claim(c, clientId, subOf(webhookId), deliveryIds, terms);
      }),
    releaseLeases: () => outbox.releaseLeases(pool),

    markSent: (sent, nowMs) =>
      inTransaction(pool, async (c) => {
        if (sent.length === 0) return;
        // Webhook rows first, in one order, as a claim locks them before the deliveries: no two transactions wait in a cycle.
        for (const id of [...new Set(sent.map((d) => d.webhookId))].sort()) await c.query(pg(WEBHOOK_OK), [nowMs, nowMs, id]);
        await outbox.markSent(c, sent, nowMs);
      }),

    markFailed: (webhookId, clientId, deliveryId, f) =>
      inTransaction(pool, async (c) => {
        await c.query(pg(WEBHOOK_FAILED), [f.nowMs, f.retryAtMs, f.error, f.nowMs, f.failing ? 1 : 0, webhookId]);
        await outbox.markFailed(c, clientId, deliveryId, f.nextAtMs);
      }),

    replay: (webhookId, clientId, range) => outbox.replay(pool, clientId, subOf(webhookId), range),
    pruneSent: (beforeMs) => inTransaction(pool, (c) => outbox.pruneSent(c, beforeMs)),
    readActivity: (addresses, fromBlock, stepBlocks) => moves.movesOfOwners(addresses, fromBlock, stepBlocks),
    activityAbove: (webhookId, clientId, block) => outbox.keptAbove(pool, clientId, subOf(webhookId), 'activity', block),

    commitActivity: (webhookId, from, to, messages, nowMs) =>
      inTransaction(pool, async (c) => {
        const moved = await c.query(
          'UPDATE webhook SET activity_block = $1, activity_hash = $2, activity_marks = $3 WHERE id = $4 AND activity_block ' +
            'IS NOT DISTINCT FROM $5 AND activity_hash IS NOT DISTINCT FROM $6',
          [to.block, to.hash, marksJson(to.marks), webhookId, from.block, from.hash],
        );
        if (moved.rowCount !== 1) return false;
        await outbox.store(
          c,
          subOf(webhookId),
          messages.map((m) => ({ ...m, type: 'activity' })),
          nowMs,
        );
        return true;
      }),
  };
}
