// The tracker's outbox as offered to webhooks, on the PostgreSQL database a fleet shares (the contract:
// ../tracker-outbox-store.ts). A claim is a conditional UPDATE, so of two instances reaching for one delivery only one
// sends it, and counts the subscription's live claims first, so a fleet keeps one limit of requests in flight; a
// client's first subscription takes its parked messages under the tracker's per-client lock.
import { numberedPlaceholders as pg } from '../../../lib/sql-placeholders.js';
import type { PgClient, PgPool } from '../../db/pg-pool.js';
import { orderedId } from '../tracker-ids.js';
import { insertMessages } from './tracker-store-postgres.js';
import { CLAIM_SOME, HELD_SQL, NEVER_IDLE, toHeldDelivery, type HeldDeliveryRow } from '../tracker-outbox-store-rows.js';
import type { HeldOutboxPostgres } from '../tracker-outbox-store.js';

type Client = PgClient | PgPool;
const SQL = Object.fromEntries(Object.entries(HELD_SQL).map(([k, v]) => [k, pg(v)])) as Record<keyof typeof HELD_SQL, string>;

/** The tracker's per-client lock (tracker-store-postgres.ts): parked messages go to exactly one first subscription. */
const lockClient = (c: Client, clientId: string) => c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [clientId]);

async function pruneSeqs(c: Client, seqs: readonly (number | string)[]): Promise<void> {
  if (seqs.length === 0) return;
  await c.query(
    `DELETE FROM tracker_message m WHERE m.seq = ANY($1::bigint[]) AND m.orphan = 0
       AND NOT EXISTS (SELECT 1 FROM tracker_delivery d WHERE d.seq = m.seq)`,
    [[...new Set(seqs.map(Number))]],
  );
}
const seqsOf = (r: { rows: { seq: string }[] }) => r.rows.map((x) => x.seq);

/** Calls that change more than one row take a transaction's client (the caller's), as the webhook stores pass. */
export const postgresHeldOutbox: HeldOutboxPostgres<Client> = {
  async subscribe(c, clientId, subscriptionId, nowMs) {
    await lockClient(c, clientId);
    const others = Number(
      (await c.query<{ n: string }>('SELECT count(*) AS n FROM tracker_subscription WHERE client_id = $1', [clientId])).rows[0]!.n,
    );
    await c.query(SQL.insertSub, [clientId, subscriptionId, nowMs, NEVER_IDLE]);
    if (others > 0) return;
    const orphans = await c.query<{ seq: string }>(
      'UPDATE tracker_message SET orphan = 0 WHERE client_id = $1 AND orphan = 1 RETURNING seq',
      [clientId],
    );
    const seqs = orphans.rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
    if (seqs.length === 0) return;
    await c.query(
      'INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) SELECT $1, a, $2, s FROM unnest($3::text[], $4::bigint[]) AS u(a, s)',
      [clientId, subscriptionId, seqs.map(() => orderedId()), seqs],
    );
  },
  async unsubscribe(c, clientId, subscriptionId) {
    const gone = await c.query<{ seq: string }>(
      'DELETE FROM tracker_delivery WHERE client_id = $1 AND subscription_id = $2 RETURNING seq',
      [clientId, subscriptionId],
    );
    await c.query('DELETE FROM tracker_subscription WHERE client_id = $1 AND subscription_id = $2', [clientId, subscriptionId]);
    await pruneSeqs(c, seqsOf(gone));
  },
  async unsubscribeKeeping(c, clientId, subscriptionId, keptType) {
    await lockClient(c, clientId);
    await c.query('DELETE FROM tracker_subscription WHERE client_id = $1 AND subscription_id = $2', [clientId, subscriptionId]);
    await pruneSeqs(c, seqsOf(await c.query<{ seq: string }>(SQL.dropUnsentExcept, [clientId, subscriptionId, clientId, keptType])));
  },
  pending: async (c, clientId, subscriptionId, afterSeq, limit) =>
    (await c.query<HeldDeliveryRow>(SQL.pending, [clientId, subscriptionId, afterSeq, limit])).rows.map(toHeldDelivery),
  countPending: async (c, clientId, subscriptionId) =>
    Number((await c.query<{ n: string }>(SQL.countPending, [clientId, subscriptionId])).rows[0]!.n),
  retryNow: async (c, clientId, subscriptionId) => void (await c.query(SQL.retryNow, [clientId, subscriptionId])),
  // Counted then claimed under the caller's lock on the webhook (each statement sees the claims committed before it).
  async claim(c, clientId, subscriptionId, deliveryIds, { nowMs, untilMs, maxHeld }) {
    const room = maxHeld - Number((await c.query<{ n: string }>(SQL.countHeld, [clientId, subscriptionId, nowMs])).rows[0]!.n);
    if (room <= 0 || deliveryIds.length === 0) return new Set<string>();
    const claimed = await c.query<{ ack_id: string }>(pg(CLAIM_SOME.postgres), [
      untilMs,
      clientId,
      clientId,
      subscriptionId,
      [...deliveryIds],
      nowMs,
      room,
    ]);
    return new Set(claimed.rows.map((r) => r.ack_id));
  },
  releaseLeases: async (c) => void (await c.query(SQL.releaseLeases)),
  async markSent(c, sent, nowMs) {
    if (sent.length === 0) return;
    await c.query(
      `UPDATE tracker_delivery t SET sent_at_ms = $1, lease_until_ms = NULL, attempts = coalesce(t.attempts, 0) + 1, next_at_ms = NULL
         FROM unnest($2::text[], $3::text[]) AS u(client_id, ack_id) WHERE t.client_id = u.client_id AND t.ack_id = u.ack_id`,
      [nowMs, sent.map((d) => d.clientId), sent.map((d) => d.deliveryId)],
    );
  },
  markFailed: async (c, clientId, deliveryId, nextAtMs) => void (await c.query(SQL.markFailed, [nextAtMs, clientId, deliveryId])),
  async replay(c, clientId, subscriptionId, range) {
    if ('fromMessageId' in range) {
      const seq = (await c.query<{ seq: string }>(SQL.seqOfMessage, [range.fromMessageId, clientId])).rows[0]?.seq;
      return seq === undefined ? null : ((await c.query(SQL.replayFrom, [clientId, subscriptionId, seq])).rowCount ?? 0);
    }
    const r = await c.query(
      `UPDATE tracker_delivery d SET ${HELD_SQL.replaySet} FROM tracker_message m WHERE m.seq = d.seq AND d.client_id = $1 AND d.subscription_id = $2
          AND d.sent_at_ms IS NOT NULL AND m.created_at_ms >= $3 AND m.created_at_ms <= $4`,
      [clientId, subscriptionId, range.fromMs, range.toMs],
    );
    return r.rowCount ?? 0;
  },
  async pruneSent(c, beforeMs) {
    const gone = seqsOf(await c.query<{ seq: string }>(SQL.pruneSent, [beforeMs]));
    await pruneSeqs(c, gone);
    return gone.length;
  },
  keptAbove: async (c, clientId, subscriptionId, type, block) =>
    (
      await c.query<{ tx_hash: string; payload: string }>(
        `SELECT m.tx_hash, m.payload FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
          WHERE d.client_id = $1 AND d.subscription_id = $2 AND m.type = $3 AND (m.payload::jsonb #>> '{result,blockNumber}')::bigint > $4 ORDER BY m.seq`,
        [clientId, subscriptionId, type, block],
      )
    ).rows.map((r) => ({ txHash: r.tx_hash, payload: r.payload })),
  async store(c, subscriptionId, messages, nowMs) {
    if (messages.length === 0) return;
    const ids = messages.map(() => orderedId(nowMs));
    const seqOf = await insertMessages(
      c,
      messages,
      ids,
      nowMs,
      messages.map(() => 0),
    );
    await c.query(
      'INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])',
      [
        messages.map((m) => m.clientId),
        messages.map(() => orderedId(nowMs)),
        messages.map(() => subscriptionId),
        ids.map((id) => seqOf.get(id)!),
      ],
    );
  },
};
