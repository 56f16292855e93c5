// Webhooks in the PostgreSQL database a fleet shares, beside the tracker's outbox (the contract: ../webhook-store.ts).
// What it adds for a fleet: a claim is a conditional UPDATE, so of two instances reaching for one delivery only one
// sends it; a client's first subscription takes its parked messages under the same per-client lock as the tracker's.
import { migratePg } from '../../db/pg-migrate.js';
import { inTransaction, type PgClient, type PgPool } from '../../db/pg-pool.js';
import { orderedId } from '../../tracker/tracker-ids.js';
import {
  ACTIVITY_ABOVE_POSTGRES,
  BLOCK_HASH_POSTGRES,
  DROP_TRACKER_DELIVERIES_POSTGRES,
  FIRST_STORED_POSTGRES,
  INDEX_TIP_SQL,
  marksJson,
  MOVES_POSTGRES,
  RESUME_DELIVERIES_POSTGRES,
  patchValues,
  PENDING_SELECT,
  RESUME_SET,
  stepEnds,
  toMove,
  toPending,
  toWebhook,
  WEBHOOK_INSERT_POSTGRES,
  WEBHOOK_UPDATE_POSTGRES,
  webhookValues,
  type MoveDbRow,
  type PendingDbRow,
  type WebhookDbRow,
} from '../webhook-store-rows.js';
import { NEVER_IDLE, webhookSubscriptionId, type ActivitySpan, type WebhookStore } from '../webhook-store.js';

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

/** The tracker's per-client lock (tracker-store-postgres.ts): parked messages go to exactly one first subscription. */
const lockClient = (c: PgClient, clientId: string) => c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [clientId]);

async function pruneSeqs(c: PgClient, seqs: readonly (number | string)[]): Promise<void> {
  if (seqs.length === 0) return;
  await c.query(
    `DELETE FROM tracker_message m WHERE m.seq = ANY($1::bigint[]) AND m.orphan = 0
       AND NOT EXISTS (SELECT 1 FROM tracker_delivery d WHERE d.seq = m.seq)`,
    [[...new Set(seqs.map(Number))]],
  );
}

async function subscribe(c: PgClient, clientId: string, webhookId: string, nowMs: number): Promise<void> {
  await lockClient(c, clientId);
  const subId = webhookSubscriptionId(webhookId);
  const others = Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM tracker_subscription WHERE client_id = $1', [clientId])).rows[0]!.n);
  await c.query(
    'INSERT INTO tracker_subscription (client_id, subscription_id, ack_timeout_ms, created_at_ms, last_used_ms) VALUES ($1, $2, 0, $3, $4) ON CONFLICT DO NOTHING',
    [clientId, subId, nowMs, NEVER_IDLE],
  );
  if (others > 0) return;
  const orphans = await c.query<{ seq: string }>('UPDATE tracker_message SET orphan = 0 WHERE client_id = $1 AND orphan = 1 RETURNING seq', [clientId]);
  const seqs = orphans.rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
  if (seqs.length > 0) {
    await c.query('INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) SELECT $1, a, $2, s FROM unnest($3::text[], $4::bigint[]) AS u(a, s)', [
      clientId,
      subId,
      seqs.map(() => orderedId()),
      seqs,
    ]);
  }
}

export async function openPostgresWebhookStore(pool: PgPool): Promise<WebhookStore> {
  await migratePg(pool, 'webhooks', webhookPgMigrations);
  const rows = async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[];

  return {
    create: (w) =>
      inTransaction(pool, async (c) => {
        await c.query(WEBHOOK_INSERT_POSTGRES, webhookValues(w));
        if (w.trackerMessages) await subscribe(c, w.clientId, w.id, w.createdAtMs);
      }),
    get: async (id) => {
      const r = (await rows<WebhookDbRow>('SELECT * FROM webhook WHERE id = $1', [id]))[0];
      return r ? toWebhook(r) : null;
    },
    listOfClient: async (clientId) => (await rows<WebhookDbRow>('SELECT * FROM webhook WHERE client_id = $1 ORDER BY created_at_ms, id', [clientId])).map(toWebhook),
    countOfClient: async (clientId) => Number((await rows<{ n: string }>('SELECT count(*) AS n FROM webhook WHERE client_id = $1', [clientId]))[0]!.n),
    all: async () => (await rows<WebhookDbRow>('SELECT * FROM webhook ORDER BY created_at_ms, id')).map(toWebhook),

    update: (id, patch) =>
      inTransaction(pool, async (c) => {
        const before = (await c.query<WebhookDbRow>('SELECT * FROM webhook WHERE id = $1 FOR UPDATE', [id])).rows[0];
        if (!before) return null;
        const subId = webhookSubscriptionId(id);
        await c.query(WEBHOOK_UPDATE_POSTGRES, patchValues(id, patch));
        if (patch.activityBlock !== undefined) await c.query('UPDATE webhook SET activity_hash = NULL, activity_marks = NULL WHERE id = $1', [id]);
        if (patch.state === 'active') {
          await c.query(`UPDATE webhook SET ${RESUME_SET} WHERE id = $1`, [id]);
          await c.query(RESUME_DELIVERIES_POSTGRES, [before.client_id, subId]);
        }
        if (patch.trackerMessages === true && Number(before.tracker_messages) === 0) await subscribe(c, before.client_id, id, Date.now());
        if (patch.trackerMessages === false && Number(before.tracker_messages) === 1) {
          await lockClient(c, before.client_id);
          await c.query('DELETE FROM tracker_subscription WHERE client_id = $1 AND subscription_id = $2', [before.client_id, subId]);
          const gone = await c.query<{ seq: string }>(DROP_TRACKER_DELIVERIES_POSTGRES, [before.client_id, subId]);
          await pruneSeqs(c, gone.rows.map((r) => r.seq));
        }
        return toWebhook((await c.query<WebhookDbRow>('SELECT * FROM webhook WHERE id = $1', [id])).rows[0]!);
      }),

    remove: (id) =>
      inTransaction(pool, async (c) => {
        const w = (await c.query<WebhookDbRow>('DELETE FROM webhook WHERE id = $1 RETURNING *', [id])).rows[0];
        if (!w) return false;
        const subId = webhookSubscriptionId(id);
        const gone = await c.query<{ seq: string }>('DELETE FROM tracker_delivery WHERE client_id = $1 AND subscription_id = $2 RETURNING seq', [w.client_id, subId]);
        await c.query('DELETE FROM tracker_subscription WHERE client_id = $1 AND subscription_id = $2', [w.client_id, subId]);
        await pruneSeqs(c, gone.rows.map((r) => r.seq));
        return true;
      }),

    pending: async (webhookId, clientId, afterSeq, limit) =>
      (
        await rows<PendingDbRow>(`${PENDING_SELECT} WHERE d.client_id = $1 AND d.subscription_id = $2 AND d.seq > $3 AND d.sent_at_ms IS NULL ORDER BY d.seq LIMIT $4`, [
          clientId,
          webhookSubscriptionId(webhookId),
          afterSeq,
          limit,
        ])
      ).map(toPending),
    countPending: async (webhookId, clientId) =>
      Number(
        (await rows<{ n: string }>('SELECT count(*) AS n FROM tracker_delivery WHERE client_id = $1 AND subscription_id = $2 AND sent_at_ms IS NULL', [clientId, webhookSubscriptionId(webhookId)]))[0]!.n,
      ),

    async claim(clientId, deliveryIds, nowMs, leaseUntilMs) {
      if (deliveryIds.length === 0) return new Set();
      const claimed = await rows<{ ack_id: string }>(
        `UPDATE tracker_delivery SET lease_until_ms = $1 WHERE client_id = $2 AND ack_id = ANY($3::text[]) AND sent_at_ms IS NULL
            AND (lease_until_ms IS NULL OR lease_until_ms <= $4) RETURNING ack_id`,
        [leaseUntilMs, clientId, [...deliveryIds], nowMs],
      );
      return new Set(claimed.map((r) => r.ack_id));
    },

    async releaseLeases() {
      await pool.query('UPDATE tracker_delivery SET lease_until_ms = NULL WHERE lease_until_ms IS NOT NULL');
    },

    async markSent(sent, nowMs) {
      if (sent.length === 0) return;
      await pool.query(
        `WITH d AS (
           UPDATE tracker_delivery t SET sent_at_ms = $1, lease_until_ms = NULL, attempts = coalesce(t.attempts, 0) + 1, next_at_ms = NULL
             FROM unnest($2::text[], $3::text[]) AS u(client_id, ack_id) WHERE t.client_id = u.client_id AND t.ack_id = u.ack_id
         )
         UPDATE webhook SET failing_since_ms = NULL, failures = 0, retry_at_ms = NULL, last_error = NULL, last_attempt_ms = $1, last_success_ms = $1
          WHERE id = ANY($4::text[])`,
        [nowMs, sent.map((d) => d.clientId), sent.map((d) => d.deliveryId), [...new Set(sent.map((d) => d.webhookId))]],
      );
    },

    async markFailed(webhookId, clientId, deliveryId, f) {
      await pool.query(
        `WITH d AS (UPDATE tracker_delivery SET lease_until_ms = NULL, attempts = coalesce(attempts, 0) + 1, next_at_ms = $1 WHERE client_id = $2 AND ack_id = $3)
         UPDATE webhook SET failing_since_ms = coalesce(failing_since_ms, $4), failures = failures + 1, retry_at_ms = $5, last_error = $6, last_attempt_ms = $4,
                state = CASE WHEN $7 AND state = 'active' THEN 'failing' ELSE state END WHERE id = $8`,
        [f.nextAtMs, clientId, deliveryId, f.nowMs, f.retryAtMs, f.error, f.failing, webhookId],
      );
    },

    async replay(webhookId, clientId, range) {
      const subId = webhookSubscriptionId(webhookId);
      const set = 'SET sent_at_ms = NULL, attempts = 0, next_at_ms = NULL, replay = 1';
      if ('fromMessageId' in range) {
        const seq = (await rows<{ seq: string }>('SELECT seq FROM tracker_message WHERE message_id = $1 AND client_id = $2', [range.fromMessageId, clientId]))[0]?.seq;
        if (seq === undefined) return null;
        const r = await pool.query(`UPDATE tracker_delivery ${set} WHERE client_id = $1 AND subscription_id = $2 AND sent_at_ms IS NOT NULL AND seq >= $3`, [clientId, subId, seq]);
        return r.rowCount ?? 0;
      }
      const r = await pool.query(
        `UPDATE tracker_delivery d ${set} FROM tracker_message m WHERE m.seq = d.seq AND d.client_id = $1 AND d.subscription_id = $2 AND d.sent_at_ms IS NOT NULL
            AND m.created_at_ms >= $3 AND m.created_at_ms <= $4`,
        [clientId, subId, range.fromMs, range.toMs],
      );
      return r.rowCount ?? 0;
    },

    pruneSent: (beforeMs) =>
      inTransaction(pool, async (c) => {
        const gone = await c.query<{ seq: string }>('DELETE FROM tracker_delivery WHERE sent_at_ms IS NOT NULL AND sent_at_ms < $1 RETURNING seq', [beforeMs]);
        await pruneSeqs(c, gone.rows.map((r) => r.seq));
        return gone.rows.length;
      }),

    readActivity: (addresses, fromBlock, stepBlocks) =>
      inTransaction(pool, async (c): Promise<ActivitySpan> => {
        // One snapshot of the index for every read: another instance may commit a range or a rollback between them.
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const tipText = (await c.query<{ value: string }>(INDEX_TIP_SQL)).rows[0]?.value;
        if (tipText === undefined) return { tip: null, fromHash: null, to: fromBlock, toHash: null, moves: [] };
        const tip = Number(tipText);
        const hashOf = async (block: number) => (block > tip ? null : ((await c.query<{ hash: string }>(BLOCK_HASH_POSTGRES, [block])).rows[0]?.hash ?? null));
        const fromHash = await hashOf(fromBlock);
        const ends = stepEnds(tip, fromBlock, stepBlocks);
        if (!ends) return { tip, fromHash, to: fromBlock, toHash: fromHash, moves: [] };
        const stored = (await c.query<{ number: string; hash: string }>(FIRST_STORED_POSTGRES, [ends.target, ends.upTo])).rows[0];
        const to = stored ? Number(stored.number) : ends.target;
        const moves = (await c.query<MoveDbRow>(MOVES_POSTGRES, [fromBlock, to, [...addresses]])).rows.map(toMove);
        return { tip, fromHash, to, toHash: stored ? stored.hash : await hashOf(to), moves };
      }),

    activityAbove: async (webhookId, clientId, block) =>
      (await rows<{ tx_hash: string; payload: string }>(ACTIVITY_ABOVE_POSTGRES, [clientId, webhookSubscriptionId(webhookId), block])).map((r) => ({ txHash: r.tx_hash, payload: r.payload })),

    commitActivity: (webhookId, from, to, messages, nowMs) =>
      inTransaction(pool, async (c) => {
        const moved = await c.query(
          'UPDATE webhook SET activity_block = $1, activity_hash = $2, activity_marks = $3 WHERE id = $4 AND activity_block IS NOT DISTINCT FROM $5 AND activity_hash IS NOT DISTINCT FROM $6',
          [to.block, to.hash, marksJson(to.marks), webhookId, from.block, from.hash],
        );
        if (moved.rowCount !== 1) return false;
        if (messages.length === 0) return true;
        const subId = webhookSubscriptionId(webhookId);
        const ids = messages.map(() => orderedId(nowMs));
        const inserted = await c.query<{ seq: string; message_id: string }>(
          `INSERT INTO tracker_message (message_id, client_id, tx_hash, type, payload, created_at_ms, orphan)
           SELECT u.message_id, u.client_id, u.tx_hash, 'activity', u.payload, $5, 0
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u(message_id, client_id, tx_hash, payload, n)
            ORDER BY u.n
           RETURNING seq, message_id`,
          [ids, messages.map((m) => m.clientId), messages.map((m) => m.txHash), messages.map((m) => m.payload), nowMs],
        );
        const seqOf = new Map(inserted.rows.map((r) => [r.message_id, r.seq]));
        await c.query('INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])', [
          messages.map((m) => m.clientId),
          messages.map(() => orderedId(nowMs)),
          messages.map(() => subId),
          ids.map((id) => seqOf.get(id)!),
        ]);
        return true;
      }),
  };
}
