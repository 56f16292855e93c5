// The webhook rows as both backends read them, and how they become the deliverer's values.
import type { ActivityMark } from './webhook-activity-reorg.js';
import type { WebhookPatch, WebhookRow, WebhookState } from './webhook-store.js';

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
const parseMarks = (v: string | null): ActivityMark[] =>
  v === null ? [] : (JSON.parse(v) as [number, string][]).map(([block, hash]) => ({ block, hash }));

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
  w.id,
  w.clientId,
  w.url,
  w.trackerMessages ? 1 : 0,
  JSON.stringify(w.addresses),
  w.secret,
  w.previousSecret,
  w.previousSecretUntilMs,
  w.state,
  w.failingSinceMs,
  w.failures,
  w.retryAtMs,
  w.lastError,
  w.lastAttemptMs,
  w.lastSuccessMs,
  w.activityBlock,
  w.createdAtMs,
  w.activityHash,
  marksJson(w.activityMarks),
];
export const WEBHOOK_COLUMNS =
  'id, client_id, url, tracker_messages, addresses, secret, previous_secret, previous_secret_until_ms, state, ' +
  'failing_since_ms, failures, retry_at_ms, last_error, last_attempt_ms, last_success_ms, activity_block, created_at_ms, ' +
  'activity_hash, activity_marks';

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
// Every column a patch may change, each kept when its value is null (`?` placeholders: numbered for PostgreSQL by its store).
export const WEBHOOK_UPDATE = `UPDATE webhook SET url = coalesce(?, url), tracker_messages = coalesce(?, tracker_messages),
  addresses = coalesce(?, addresses), state = coalesce(?, state), secret = coalesce(?, secret),
  previous_secret = coalesce(?, previous_secret), previous_secret_until_ms = coalesce(?, previous_secret_until_ms),
  activity_block = coalesce(?, activity_block) WHERE id = ?`;
/** One `?` per column of WEBHOOK_COLUMNS, written out: SQL text stays constant (test/reliability/security-sql.test.ts). */
export const WEBHOOK_INSERT = `INSERT INTO webhook (${WEBHOOK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** Resuming a failing webhook starts its retries afresh. */
export const RESUME_SET = 'failing_since_ms = NULL, failures = 0, retry_at_ms = NULL';
/** A 2xx: the failure streak ends (parameters: now, now, id). */
export const WEBHOOK_OK =
  'UPDATE webhook SET failing_since_ms = NULL, failures = 0, retry_at_ms = NULL, last_error = NULL, last_attempt_ms = ?, last_success_ms = ? WHERE id = ?';
/** A failed try: the streak grows, the webhook turns failing when told (parameters: now, retry at, error, now, failing 0/1, id). */
export const WEBHOOK_FAILED = `UPDATE webhook SET failing_since_ms = coalesce(failing_since_ms, ?), failures = failures + 1, retry_at_ms = ?, last_error = ?,
  last_attempt_ms = ?, state = CASE WHEN ? = 1 AND state = 'active' THEN 'failing' ELSE state END WHERE id = ?`;

/** Deliveries kept after they were sent, for replay. */
export const SENT_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
