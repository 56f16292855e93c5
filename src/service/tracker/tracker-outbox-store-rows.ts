// The outbox offered to webhooks (tracker-outbox-store.ts) as both backends read it: the statements whose text is the
// same in both dialects (written with `?`, numbered for PostgreSQL by the store), and the row -> value mapping.
import type { HeldDelivery } from './tracker-outbox-store.js';

/** A held subscription is never idle: its owner ends it (the tracker prunes subscriptions unused for a week). */
export const NEVER_IDLE = Number.MAX_SAFE_INTEGER;

const DELIVERY_SELECT = `SELECT d.ack_id, m.message_id, m.seq, m.tx_hash, m.payload, m.created_at_ms, d.attempts, d.next_at_ms, d.lease_until_ms, d.replay
  FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq`;

/** Parameters in the order their `?` stand in the text. */
export const HELD_SQL = {
  /** (client, subscription, created, last used) */
  insertSub:
    'INSERT INTO tracker_subscription (client_id, subscription_id, ack_timeout_ms, created_at_ms, last_used_ms) VALUES (?, ?, 0, ?, ?) ON CONFLICT DO NOTHING',
  /** (client, subscription, client, kept type): un-sent deliveries of other types go, their seqs back. */
  dropUnsentExcept: `DELETE FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NULL
    AND seq IN (SELECT seq FROM tracker_message WHERE client_id = ? AND type <> ?) RETURNING seq`,
  /** (client, subscription, after seq, limit) */
  pending: `${DELIVERY_SELECT} WHERE d.client_id = ? AND d.subscription_id = ? AND d.seq > ? AND d.sent_at_ms IS NULL ORDER BY d.seq LIMIT ?`,
  /** (client, subscription) */
  countPending: 'SELECT count(*) AS n FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NULL',
  /** (client, subscription) */
  retryNow:
    'UPDATE tracker_delivery SET attempts = 0, next_at_ms = NULL WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NULL',
  /** (client, subscription, now): claims of the subscription that have not run out (index tracker_delivery_leased). */
  countHeld:
    'SELECT count(*) AS n FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? AND lease_until_ms > ? AND sent_at_ms IS NULL',
  releaseLeases: 'UPDATE tracker_delivery SET lease_until_ms = NULL WHERE lease_until_ms IS NOT NULL',
  /** (now, client, delivery) */
  markSent:
    'UPDATE tracker_delivery SET sent_at_ms = ?, lease_until_ms = NULL, attempts = coalesce(attempts, 0) + 1, next_at_ms = ' +
    'NULL WHERE client_id = ? AND ack_id = ?',
  /** (next try, client, delivery) */
  markFailed:
    'UPDATE tracker_delivery SET lease_until_ms = NULL, attempts = coalesce(attempts, 0) + 1, next_at_ms = ? WHERE client_id = ? AND ack_id = ?',
  replaySet: 'sent_at_ms = NULL, attempts = 0, next_at_ms = NULL, replay = 1',
  /** (message id, client) */
  seqOfMessage: 'SELECT seq FROM tracker_message WHERE message_id = ? AND client_id = ?',
  /** (client, subscription, from seq) */
  replayFrom:
    'UPDATE tracker_delivery SET sent_at_ms = NULL, attempts = 0, next_at_ms = NULL, replay = 1 WHERE client_id = ? AND ' +
    'subscription_id = ? AND sent_at_ms IS NOT NULL AND seq >= ?',
  /** (before): the pruned deliveries' seqs back. */
  pruneSent: 'DELETE FROM tracker_delivery WHERE sent_at_ms IS NOT NULL AND sent_at_ms < ? RETURNING seq',
} as const;

const CLAIM_HEAD = `UPDATE tracker_delivery SET lease_until_ms = ? WHERE client_id = ? AND ack_id IN (
  SELECT ack_id FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? AND ack_id IN`;
const CLAIM_TAIL = 'AND sent_at_ms IS NULL AND (lease_until_ms IS NULL OR lease_until_ms <= ?) ORDER BY seq LIMIT ?) RETURNING ack_id';
/**
 * A claim of at most `room` of the given deliveries, in store order (parameters: lease until, client, client,
 * subscription, the delivery ids, now, room), in each dialect's way of reading the ids from one parameter.
 */
export const CLAIM_SOME = {
  /** The ids as a JSON array. */
  sqlite: `${CLAIM_HEAD} (SELECT value FROM json_each(?)) ${CLAIM_TAIL}`,
  /** The ids as a text[] (`?` numbered by the store). */
  postgres: `${CLAIM_HEAD} (SELECT unnest(?::text[])) ${CLAIM_TAIL}`,
} as const;

export interface HeldDeliveryRow {
  ack_id: string;
  message_id: string;
  seq: number | string;
  tx_hash: string;
  payload: string;
  created_at_ms: number | string;
  attempts: number | null;
  next_at_ms: number | string | null;
  lease_until_ms: number | string | null;
  replay: number | null;
}

export const toHeldDelivery = (r: HeldDeliveryRow): HeldDelivery => ({
  deliveryId: r.ack_id,
  messageId: r.message_id,
  seq: Number(r.seq),
  txHash: r.tx_hash,
  payload: r.payload,
  createdAtMs: Number(r.created_at_ms),
  attempts: r.attempts ?? 0,
  nextAtMs: r.next_at_ms === null ? null : Number(r.next_at_ms),
  leaseUntilMs: r.lease_until_ms === null ? null : Number(r.lease_until_ms),
  replay: r.replay === 1,
});
