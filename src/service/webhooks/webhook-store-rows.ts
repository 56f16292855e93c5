// The webhook rows as both backends read them, and how they become the deliverer's values.
import { tokenIdFromKey } from '../listing/listing-keys.js';
import type { ActivityMark } from './webhook-activity-reorg.js';
import type { IndexedMove, PendingDelivery, WebhookPatch, WebhookRow, WebhookState } from './webhook-store.js';

export interface WebhookDbRow {
  id: string;
  client_id: string;
  url: string;
  tracker_messages: number;
  addresses: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until_ms: number | string | null;
  state: string;
  failing_since_ms: number | string | null;
  failures: number;
  retry_at_ms: number | string | null;
  last_error: string | null;
  last_attempt_ms: number | string | null;
  last_success_ms: number | string | null;
  activity_block: number | string | null;
  activity_hash: string | null;
  /** JSON `[[block, hash], …]`, newest first (null: none). */
  activity_marks: string | null;
  created_at_ms: number | string;
}

/** The cursor's marks as stored: compact pairs, as the row is rewritten at every step of the scan. */
export const marksJson = (marks: readonly ActivityMark[]): string => JSON.stringify(marks.map((m) => [m.block, m.hash]));
const parseMarks = (v: string | null): ActivityMark[] => (v === null ? [] : (JSON.parse(v) as [number, string][]).map(([block, hash]) => ({ block, hash })));

/** PostgreSQL's BIGINT arrives as a string. */
const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const toWebhook = (r: WebhookDbRow): WebhookRow => ({
  id: r.id,
  clientId: r.client_id,
  url: r.url,
  trackerMessages: Number(r.tracker_messages) === 1,
  addresses: JSON.parse(r.addresses) as string[],
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousSecretUntilMs: num(r.previous_secret_until_ms),
  state: r.state as WebhookState,
  failingSinceMs: num(r.failing_since_ms),
  failures: Number(r.failures),
  retryAtMs: num(r.retry_at_ms),
  lastError: r.last_error,
  lastAttemptMs: num(r.last_attempt_ms),
  lastSuccessMs: num(r.last_success_ms),
  activityBlock: num(r.activity_block),
  activityHash: r.activity_hash,
  activityMarks: parseMarks(r.activity_marks),
  createdAtMs: Number(r.created_at_ms),
});

/** The row's values in the column order of WEBHOOK_COLUMNS. */
export const webhookValues = (w: WebhookRow): unknown[] => [
  w.id, w.clientId, w.url, w.trackerMessages ? 1 : 0, JSON.stringify(w.addresses), w.secret, w.previousSecret, w.previousSecretUntilMs, w.state,
  w.failingSinceMs, w.failures, w.retryAtMs, w.lastError, w.lastAttemptMs, w.lastSuccessMs, w.activityBlock, w.createdAtMs,
  w.activityHash, marksJson(w.activityMarks),
];
export const WEBHOOK_COLUMNS =
  'id, client_id, url, tracker_messages, addresses, secret, previous_secret, previous_secret_until_ms, state, failing_since_ms, failures, retry_at_ms, last_error, last_attempt_ms, last_success_ms, activity_block, created_at_ms, activity_hash, activity_marks';

/** A patch's values in the order of the UPDATE's placeholders (null: unchanged), then the id. */
export const patchValues = (id: string, p: WebhookPatch): unknown[] => [
  p.url ?? null,
  p.trackerMessages === undefined ? null : p.trackerMessages ? 1 : 0,
  p.addresses === undefined ? null : JSON.stringify(p.addresses),
  p.state ?? null,
  p.secret ?? null,
  p.previousSecret ?? null,
  p.previousSecretUntilMs ?? null,
  p.activityBlock ?? null,
  id,
];
// Every column a patch may change, each kept when its value is null; constant text in both dialects.
export const WEBHOOK_UPDATE_SQLITE = `UPDATE webhook SET url = coalesce(?, url), tracker_messages = coalesce(?, tracker_messages),
  addresses = coalesce(?, addresses), state = coalesce(?, state), secret = coalesce(?, secret),
  previous_secret = coalesce(?, previous_secret), previous_secret_until_ms = coalesce(?, previous_secret_until_ms),
  activity_block = coalesce(?, activity_block) WHERE id = ?`;
export const WEBHOOK_UPDATE_POSTGRES = `UPDATE webhook SET url = coalesce($1, url), tracker_messages = coalesce($2, tracker_messages),
  addresses = coalesce($3, addresses), state = coalesce($4, state), secret = coalesce($5, secret),
  previous_secret = coalesce($6, previous_secret), previous_secret_until_ms = coalesce($7, previous_secret_until_ms),
  activity_block = coalesce($8, activity_block) WHERE id = $9`;
/** Resuming a failing webhook starts its retries afresh. */
export const RESUME_SET = 'failing_since_ms = NULL, failures = 0, retry_at_ms = NULL';
/** ... and its waiting deliveries' own backoff (parameters: client, subscription). */
export const RESUME_DELIVERIES_SQLITE = 'UPDATE tracker_delivery SET attempts = 0, next_at_ms = NULL WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NULL';
export const RESUME_DELIVERIES_POSTGRES = 'UPDATE tracker_delivery SET attempts = 0, next_at_ms = NULL WHERE client_id = $1 AND subscription_id = $2 AND sent_at_ms IS NULL';
/** Tracker messages switched off: the waiting ones go too, address activity stays (parameters: client, subscription, client). */
export const DROP_TRACKER_DELIVERIES_SQLITE = `DELETE FROM tracker_delivery WHERE client_id = ? AND subscription_id = ? AND sent_at_ms IS NULL
  AND seq IN (SELECT seq FROM tracker_message WHERE client_id = ? AND type <> 'activity') RETURNING seq`;
export const DROP_TRACKER_DELIVERIES_POSTGRES = `DELETE FROM tracker_delivery WHERE client_id = $1 AND subscription_id = $2 AND sent_at_ms IS NULL
  AND seq IN (SELECT seq FROM tracker_message WHERE client_id = $1 AND type <> 'activity') RETURNING seq`;

export interface PendingDbRow {
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

export const PENDING_SELECT = `SELECT d.ack_id, m.message_id, m.seq, m.tx_hash, m.payload, m.created_at_ms, d.attempts, d.next_at_ms, d.lease_until_ms, d.replay
  FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq`;

export const toPending = (r: PendingDbRow): PendingDelivery => ({
  deliveryId: r.ack_id,
  messageId: r.message_id,
  seq: Number(r.seq),
  txHash: r.tx_hash,
  payload: r.payload,
  createdAtMs: Number(r.created_at_ms),
  attempts: r.attempts ?? 0,
  nextAtMs: num(r.next_at_ms),
  leaseUntilMs: num(r.lease_until_ms),
  replay: r.replay === 1,
});

export interface MoveDbRow {
  block: number | string;
  log_index: number;
  sub: number;
  contract: string;
  standard: string;
  k_id: Buffer;
  from_addr: string | null;
  to_addr: string | null;
  amount: string | null;
  block_hash: string | null;
}

// The index's transfers in a block range with their addresses, into or out of the accounts of the watched addresses.
const MOVES_SELECT = `SELECT t.block, t.log_index, t.sub, c.address AS contract, c.standard, t.k_id, fa.address AS from_addr, ta.address AS to_addr, t.amount,
    b.hash AS block_hash
    FROM idx_transfers t JOIN idx_contracts c ON c.id = t.contract_id
    LEFT JOIN idx_accounts fa ON fa.id = t.from_id LEFT JOIN idx_accounts ta ON ta.id = t.to_id LEFT JOIN idx_blocks b ON b.number = t.block`;
const MOVES_WATCHED = '(t.from_id IN (SELECT id FROM w) OR t.to_id IN (SELECT id FROM w)) ORDER BY t.block, t.log_index, t.sub';
/** SQLite's: parameters (JSON array of addresses, from, to), in the order they stand in the text. */
export const MOVES_SQLITE = `WITH w AS (SELECT id FROM idx_accounts WHERE address IN (SELECT value FROM json_each(?)))
  ${MOVES_SELECT} WHERE t.block > ? AND t.block <= ? AND ${MOVES_WATCHED}`;
/** PostgreSQL's: parameters (from, to, text[] of addresses). */
export const MOVES_POSTGRES = `WITH w AS (SELECT id FROM idx_accounts WHERE address = ANY($3::text[]))
  ${MOVES_SELECT} WHERE t.block > $1 AND t.block <= $2 AND ${MOVES_WATCHED}`;
// What one step of the activity scan reads of the index besides its moves (ActivitySpan), the same text in both dialects
// but for the placeholders: the tip, a block's stored hash, and the first stored block in a range.
export const INDEX_TIP_SQL = "SELECT value FROM idx_state WHERE key = 'tip'";
export const BLOCK_HASH_SQLITE = 'SELECT hash FROM idx_blocks WHERE number = ?';
export const BLOCK_HASH_POSTGRES = 'SELECT hash FROM idx_blocks WHERE number = $1';
export const FIRST_STORED_SQLITE = 'SELECT number, hash FROM idx_blocks WHERE number >= ? AND number <= ? ORDER BY number LIMIT 1';
export const FIRST_STORED_POSTGRES = 'SELECT number, hash FROM idx_blocks WHERE number >= $1 AND number <= $2 ORDER BY number LIMIT 1';

/**
 * The blocks a step from `from` may end at (ActivitySpan.to): the first stored one in [target, upTo], else `target`.
 * Every block with a move has a stored hash, so a step that ends above `from + step` reads no more moves than one
 * that ends there. Null: the tip is not above `from`, nothing to read.
 */
export function stepEnds(tip: number, from: number, step: number): { target: number; upTo: number } | null {
  const target = Math.min(tip, from + step);
  return target <= from ? null : { target, upTo: Math.min(tip, target + step) };
}

/** A webhook's kept activity messages of blocks above a block (parameters: client, subscription, block), in store order. */
export const ACTIVITY_ABOVE_SQLITE = `SELECT m.tx_hash, m.payload FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
  WHERE d.client_id = ? AND d.subscription_id = ? AND m.type = 'activity' AND json_extract(m.payload, '$.result.blockNumber') > ? ORDER BY m.seq`;
export const ACTIVITY_ABOVE_POSTGRES = `SELECT m.tx_hash, m.payload FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
  WHERE d.client_id = $1 AND d.subscription_id = $2 AND m.type = 'activity' AND (m.payload::jsonb #>> '{result,blockNumber}')::bigint > $3 ORDER BY m.seq`;
export const WEBHOOK_INSERT_SQLITE = `INSERT INTO webhook (${WEBHOOK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
export const WEBHOOK_INSERT_POSTGRES = `INSERT INTO webhook (${WEBHOOK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`;

export const toMove = (r: MoveDbRow): IndexedMove => ({
  block: Number(r.block),
  logIndex: r.log_index,
  sub: r.sub,
  contract: r.contract,
  standard: r.standard === 'ERC1155' ? 'ERC-1155' : 'ERC-721',
  tokenId: tokenIdFromKey(r.k_id).toString(),
  from: r.from_addr,
  to: r.to_addr,
  amount: r.amount ?? '1',
  blockHash: r.block_hash,
});

/** Deliveries kept after they were sent, for replay. */
export const SENT_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
