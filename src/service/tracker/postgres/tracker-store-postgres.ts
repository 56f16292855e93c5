// The tracker's store in the PostgreSQL database a fleet shares (`--database`; the contract: ../tracker-store.ts). What
// it adds for a fleet: per-client transaction locks where two instances could interleave (a first subscription racing a
// round that parks orphans), and a NOTIFY in the same transaction as every stored tracking and delivery, so other
// instances wake as soon as it commits.
import { migratePg } from '../../db/pg-migrate.js';
import { inTransaction, type PgClient, type PgPool } from '../../db/pg-pool.js';
import { orderedId } from '../tracker-ids.js';
import { receiptJson } from '../tracker-receipt-format.js';
import {
  DELIVERY_CHANNEL,
  IDLE_SUBSCRIPTIONS_PER_CALL,
  TRACK_CHANNEL,
  type TrackerStore,
  type TrackingKey,
  type WithdrawnDelivery,
} from '../tracker-store.js';
import { fanOut, rowToState, toEntry, type DeliveryRow, type TrackingRow } from '../tracker-store-rows.js';

/** NOTIFY payloads are limited to 8000 bytes; a longer list is cut and marked `all`, which wakes every bound subscription. */
const MAX_NOTIFY_BYTES = 7_000;

export const trackerPgMigrations: readonly string[] = [
  `
  CREATE TABLE tracker_tracking (
    id BIGSERIAL PRIMARY KEY,
    client_id TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    confirmation INTEGER NOT NULL,
    timeout_ms BIGINT NOT NULL,
    tracked_at_ms BIGINT NOT NULL,
    pending_sent SMALLINT NOT NULL DEFAULT 0,
    receipt_json TEXT,
    receipt_seq BIGINT,
    tx_from TEXT,
    tx_nonce BIGINT,
    done_at_ms BIGINT,
    UNIQUE (client_id, tx_hash)
  );
  CREATE INDEX tracker_tracking_done ON tracker_tracking (done_at_ms);
  CREATE INDEX tracker_tracking_open ON tracker_tracking (client_id) WHERE done_at_ms IS NULL;
  CREATE TABLE tracker_subscription (
    client_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    ack_timeout_ms BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    last_used_ms BIGINT,
    PRIMARY KEY (client_id, subscription_id)
  );
  CREATE TABLE tracker_message (
    seq BIGSERIAL PRIMARY KEY,
    message_id TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    orphan SMALLINT NOT NULL
  );
  CREATE INDEX tracker_message_orphan ON tracker_message (client_id) WHERE orphan = 1;
  CREATE TABLE tracker_delivery (
    client_id TEXT NOT NULL,
    ack_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    seq BIGINT NOT NULL REFERENCES tracker_message (seq) ON DELETE CASCADE,
    PRIMARY KEY (client_id, ack_id)
  );
  CREATE INDEX tracker_delivery_sub ON tracker_delivery (client_id, subscription_id, seq);
  CREATE INDEX tracker_delivery_seq ON tracker_delivery (seq);
  `,
  // The sending state of a delivery whose subscriber sends it itself (a webhook, through tracker-outbox-store.ts; NULL
  // on the WebSocket's): sent and kept for replay, tries, next try, claimed by an instance until, sent again by a replay.
  `
  ALTER TABLE tracker_delivery ADD COLUMN sent_at_ms BIGINT, ADD COLUMN attempts INTEGER, ADD COLUMN next_at_ms BIGINT,
    ADD COLUMN lease_until_ms BIGINT, ADD COLUMN replay SMALLINT;
  `,
  // A webhook's claims are counted at each claim (its limit of requests in flight holds fleet-wide): only the few
  // deliveries claimed now, not the week of sent ones kept for replay.
  'CREATE INDEX tracker_delivery_leased ON tracker_delivery (client_id, subscription_id) WHERE lease_until_ms IS NOT NULL',
];

const DELIVERY_COLUMNS = 'd.ack_id, m.message_id, m.seq, m.tx_hash, m.payload';

/** Serialises the writers of one client's messages and subscriptions across instances, for this transaction. */
async function lockClients(c: PgClient, clientIds: Iterable<string>): Promise<void> {
  // Sorted, so two transactions locking overlapping sets never wait on each other in a cycle.
  const ids = [...new Set(clientIds)].sort();
  if (ids.length > 0) await c.query('SELECT pg_advisory_xact_lock(hashtext(id)) FROM unnest($1::text[]) AS id ORDER BY id', [ids]);
}

async function pruneSeqs(c: PgClient, seqs: Iterable<number>): Promise<void> {
  const list = [...new Set(seqs)];
  if (list.length === 0) return;
  await c.query(
    `DELETE FROM tracker_message m WHERE m.seq = ANY($1::bigint[]) AND m.orphan = 0
       AND NOT EXISTS (SELECT 1 FROM tracker_delivery d WHERE d.seq = m.seq)`,
    [list],
  );
}

/** One NOTIFY payload under the size limit. */
function notice(instance: string, body: object): string {
  const full = JSON.stringify({ i: instance, ...body });
  return Buffer.byteLength(full) <= MAX_NOTIFY_BYTES ? full : JSON.stringify({ i: instance, all: true });
}
export const deliveryNotice = (instance: string, clients: readonly string[], withdrawn: readonly WithdrawnDelivery[]): string =>
  notice(instance, { c: clients, w: withdrawn.map((w) => [w.clientId, w.subscriptionId, w.ackId]) });
export const trackNotice = (instance: string, keys: readonly TrackingKey[]): string =>
  notice(instance, { k: keys.map((k) => [k.clientId, k.txHash]) });

/** `instance` names this process in its notifications, so it can skip its own. */
/** `channel`: a network's NOTIFY channel of each base name (SharedDatabase.channel); the bare names unless set. */
export async function openPostgresTrackerStore(
  pool: PgPool,
  instance: string,
  channel: (base: string) => string = (base) => base,
): Promise<TrackerStore> {
  const [trackChannel, deliveryChannel] = [channel(TRACK_CHANNEL), channel(DELIVERY_CHANNEL)];
  await migratePg(pool, 'tracker', trackerPgMigrations);
  const rows = async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[];
  const count = async (sql: string, params: unknown[] = []) => Number((await pool.query<{ n: number }>(sql, params)).rows[0]!.n);

  return {
    track: (clientId, txHash, confirmation, timeoutMs, nowMs) =>
      inTransaction(pool, async (c) => {
        const ins = await c.query<TrackingRow>(
          `INSERT INTO tracker_tracking (client_id, tx_hash, confirmation, timeout_ms, tracked_at_ms) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (client_id, tx_hash) DO NOTHING RETURNING *`,
          [clientId, txHash, confirmation, timeoutMs, nowMs],
        );
        const created = ins.rows.length > 0;
        let row = ins.rows[0];
        if (!row) {
          const upd = await c.query<TrackingRow>(
            'UPDATE tracker_tracking SET confirmation = $1, timeout_ms = $2 WHERE client_id = $3 AND tx_hash = $4 AND done_at_ms IS NULL RETURNING *',
            [confirmation, timeoutMs, clientId, txHash],
          );
          row =
            upd.rows[0] ??
            (await c.query<TrackingRow>('SELECT * FROM tracker_tracking WHERE client_id = $1 AND tx_hash = $2', [clientId, txHash]))
              .rows[0]!;
        }
        if (row.done_at_ms === null)
          await c.query('SELECT pg_notify($1, $2)', [trackChannel, trackNotice(instance, [{ clientId, txHash }])]);
        return { state: rowToState(row), created };
      }),

    countOpenTrackings: (clientId) =>
      count('SELECT count(*) AS n FROM tracker_tracking WHERE client_id = $1 AND done_at_ms IS NULL', [clientId]),

    loadOpenTrackings: async () =>
      (await rows<TrackingRow>('SELECT * FROM tracker_tracking WHERE done_at_ms IS NULL ORDER BY id')).map(rowToState),

    async loadTrackings(keys) {
      if (keys.length === 0) return [];
      const found = await rows<TrackingRow>(
        `SELECT t.* FROM tracker_tracking t JOIN unnest($1::text[], $2::text[]) AS k(client_id, tx_hash)
           ON t.client_id = k.client_id AND t.tx_hash = k.tx_hash WHERE t.done_at_ms IS NULL`,
        [keys.map((k) => k.clientId), keys.map((k) => k.txHash)],
      );
      return found.map(rowToState);
    },

    commitRound: (states, withdrawals, messages, nowMs) =>
      inTransaction(pool, async (c) => {
        await lockClients(c, [...withdrawals.map((w) => w.clientId), ...messages.map((m) => m.clientId)]);
        // Withdrawals first: they read the receipt_seq that the tracking rows still hold.
        const withdrawn: WithdrawnDelivery[] = [];
        for (const w of withdrawals) {
          const seq = (
            await c.query<{ receipt_seq: number | null }>(
              'SELECT receipt_seq FROM tracker_tracking WHERE client_id = $1 AND tx_hash = $2',
              [w.clientId, w.txHash],
            )
          ).rows[0]?.receipt_seq;
          if (seq === null || seq === undefined) continue;
          const gone = await c.query<{ ack_id: string; subscription_id: string }>(
            'DELETE FROM tracker_delivery WHERE seq = $1 AND client_id = $2 RETURNING ack_id, subscription_id',
            [seq, w.clientId],
          );
          for (const r of gone.rows) withdrawn.push({ clientId: w.clientId, subscriptionId: r.subscription_id, ackId: r.ack_id });
          await pruneSeqs(c, [seq]);
          await c.query('DELETE FROM tracker_message WHERE seq = $1 AND orphan = 1', [seq]);
        }

        let fan: ReturnType<typeof fanOut> = { rows: [], created: [], receiptSeqs: new Map() };
        if (messages.length > 0) {
          const clients = [...new Set(messages.map((m) => m.clientId))];
          const subsOf = new Map<string, string[]>();
          for (const r of (
            await c.query<{ client_id: string; subscription_id: string }>(
              'SELECT client_id, subscription_id FROM tracker_subscription WHERE client_id = ANY($1::text[]) ORDER BY client_id, subscription_id',
              [clients],
            )
          ).rows) {
            let list = subsOf.get(r.client_id);
            if (!list) subsOf.set(r.client_id, (list = []));
            list.push(r.subscription_id);
          }
          const ids = messages.map(() => orderedId());
          const seqOf = await insertMessages(
            c,
            messages,
            ids,
            nowMs,
            messages.map((m) => ((subsOf.get(m.clientId)?.length ?? 0) === 0 ? 1 : 0)),
          );
          fan = fanOut(
            messages,
            ids,
            ids.map((id) => seqOf.get(id)!),
            subsOf,
          );
        }

        const result = { created: fan.created, withdrawn };
        const notice =
          result.created.length > 0 || withdrawn.length > 0
            ? deliveryNotice(instance, [...new Set(result.created.map((g) => g.clientId))], withdrawn)
            : null;
        if (fan.rows.length > 0 || states.length > 0 || notice !== null) {
          // One statement (one round trip) for the deliveries, the tracking rows and the NOTIFY: data-modifying WITH
          // parts always run, each on its own table. A standing receipt keeps the seq of the message that reported it
          // (null once withdrawn or ended).
          await c.query(
            `WITH deliveries AS (
               INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq)
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
             ), trackings AS (
               UPDATE tracker_tracking t SET pending_sent = u.pending_sent, receipt_json = u.receipt_json,
                      receipt_seq = CASE WHEN u.standing THEN COALESCE(u.new_seq, t.receipt_seq) ELSE NULL END,
                      tx_from = u.tx_from, tx_nonce = u.tx_nonce, done_at_ms = u.done_at_ms
                 FROM unnest($5::text[], $6::text[], $7::smallint[], $8::text[], $9::bool[], $10::bigint[], $11::text[], $12::bigint[], $13::bigint[])
                      AS u(client_id, tx_hash, pending_sent, receipt_json, standing, new_seq, tx_from, tx_nonce, done_at_ms)
                WHERE t.client_id = u.client_id AND t.tx_hash = u.tx_hash
             )
             SELECT pg_notify($14, $15::text) WHERE $15::text IS NOT NULL`,
            [
              fan.rows.map((d) => d.clientId),
              fan.rows.map((d) => d.ackId),
              fan.rows.map((d) => d.subscriptionId),
              fan.rows.map((d) => d.seq),
              states.map((s) => s.clientId),
              states.map((s) => s.txHash),
              states.map((s) => (s.pendingSent ? 1 : 0)),
              states.map((s) => (s.receipt ? receiptJson(s.receipt) : null)),
              states.map((s) => s.receipt !== null && s.doneAtMs === null),
              states.map((s) => fan.receiptSeqs.get(s.clientId + '\u0000' + s.txHash) ?? null),
              states.map((s) => s.from),
              states.map((s) => s.nonce),
              states.map((s) => s.doneAtMs),
              deliveryChannel,
              notice,
            ],
          );
        }
        return result;
      }),

    subscribe: (clientId, subscriptionId, ackTimeoutMs, nowMs) =>
      inTransaction(pool, async (c) => {
        await lockClients(c, [clientId]);
        const upd = await c.query(
          'UPDATE tracker_subscription SET ack_timeout_ms = $1, last_used_ms = $2 WHERE client_id = $3 AND subscription_id = $4',
          [ackTimeoutMs, nowMs, clientId, subscriptionId],
        );
        if (upd.rowCount === 1) return { created: false };
        await c.query(
          'INSERT INTO tracker_subscription (client_id, subscription_id, ack_timeout_ms, created_at_ms, last_used_ms) VALUES ($1, $2, $3, $4, $4)',
          [clientId, subscriptionId, ackTimeoutMs, nowMs],
        );
        const orphans = await c.query<{ seq: number }>(
          'UPDATE tracker_message SET orphan = 0 WHERE client_id = $1 AND orphan = 1 RETURNING seq',
          [clientId],
        );
        const seqs = orphans.rows.map((r) => r.seq).sort((a, b) => a - b);
        if (seqs.length > 0) {
          await c.query(
            'INSERT INTO tracker_delivery (client_id, ack_id, subscription_id, seq) SELECT $1, a, $2, s FROM unnest($3::text[], $4::bigint[]) AS u(a, s)',
            [clientId, subscriptionId, seqs.map(() => orderedId()), seqs],
          );
        }
        return { created: true };
      }),

    countSubscriptions: (clientId) => count('SELECT count(*) AS n FROM tracker_subscription WHERE client_id = $1', [clientId]),

    unsubscribe: (clientId, subscriptionId) =>
      inTransaction(pool, async (c) => {
        await lockClients(c, [clientId]);
        const gone = await c.query<{ seq: number }>(
          'DELETE FROM tracker_delivery WHERE client_id = $1 AND subscription_id = $2 RETURNING seq',
          [clientId, subscriptionId],
        );
        await c.query('DELETE FROM tracker_subscription WHERE client_id = $1 AND subscription_id = $2', [clientId, subscriptionId]);
        await pruneSeqs(
          c,
          gone.rows.map((r) => r.seq),
        );
      }),

    loadDeliveries: async (clientId, subscriptionId) =>
      (
        await rows<DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
          WHERE d.client_id = $1 AND d.subscription_id = $2 ORDER BY m.seq`,
          [clientId, subscriptionId],
        )
      ).map(toEntry),

    loadDeliveriesPage: async (clientId, subscriptionId, afterSeq, limit) =>
      (
        await rows<DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM tracker_delivery d JOIN tracker_message m ON m.seq = d.seq
          WHERE d.client_id = $1 AND d.subscription_id = $2 AND d.seq > $3 ORDER BY d.seq LIMIT $4`,
          [clientId, subscriptionId, afterSeq, limit],
        )
      ).map(toEntry),

    async touchSubscriptions(subs, nowMs) {
      if (subs.length === 0) return;
      await pool.query(
        `UPDATE tracker_subscription t SET last_used_ms = $3 FROM unnest($1::text[], $2::text[]) AS u(client_id, subscription_id)
          WHERE t.client_id = u.client_id AND t.subscription_id = u.subscription_id`,
        [subs.map((s) => s.clientId), subs.map((s) => s.subscriptionId), nowMs],
      );
    },

    idleSubscriptions: async (beforeMs) =>
      (
        await rows<{ client_id: string; subscription_id: string }>(
          `SELECT client_id, subscription_id FROM tracker_subscription WHERE last_used_ms < $1 LIMIT ${IDLE_SUBSCRIPTIONS_PER_CALL}`,
          [beforeMs],
        )
      ).map((r) => ({ clientId: r.client_id, subscriptionId: r.subscription_id })),

    async ackMany(acks) {
      if (acks.length === 0) return;
      await inTransaction(pool, async (c) => {
        const gone = await c.query<{ seq: number }>(
          `DELETE FROM tracker_delivery d USING unnest($1::text[], $2::text[]) AS u(client_id, ack_id)
            WHERE d.client_id = u.client_id AND d.ack_id = u.ack_id RETURNING d.seq`,
          [acks.map((a) => a.clientId), acks.map((a) => a.ackId)],
        );
        await pruneSeqs(
          c,
          gone.rows.map((r) => r.seq),
        );
      });
    },

    pruneDoneTrackings: async (beforeMs) =>
      (await pool.query('DELETE FROM tracker_tracking WHERE done_at_ms IS NOT NULL AND done_at_ms < $1', [beforeMs])).rowCount ?? 0,

    pruneOrphans: async (beforeMs) =>
      (await pool.query('DELETE FROM tracker_message WHERE orphan = 1 AND created_at_ms < $1', [beforeMs])).rowCount ?? 0,

    outboxDepth: () => count('SELECT count(*) AS n FROM tracker_delivery WHERE sent_at_ms IS NULL'),
  };
}

/**
 * Stores `messages` under `ids` in one statement (WITH ORDINALITY keeps the seqs in the order of `messages`), each
 * marked an orphan (no subscription to deliver it to) or not, and gives each message id its seq.
 */
export async function insertMessages(
  c: PgClient | PgPool,
  messages: readonly { clientId: string; txHash: string; type: string; payload: string }[],
  ids: readonly string[],
  nowMs: number,
  orphans: readonly number[],
): Promise<Map<string, number>> {
  const inserted = await c.query<{ seq: number; message_id: string }>(
    `INSERT INTO tracker_message (message_id, client_id, tx_hash, type, payload, created_at_ms, orphan)
     SELECT u.message_id, u.client_id, u.tx_hash, u.type, u.payload, $6, u.orphan
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $7::smallint[])
            WITH ORDINALITY AS u(message_id, client_id, tx_hash, type, payload, orphan, n)
      ORDER BY u.n
     RETURNING seq, message_id`,
    [
      ids,
      messages.map((m) => m.clientId),
      messages.map((m) => m.txHash),
      messages.map((m) => m.type),
      messages.map((m) => m.payload),
      nowMs,
      orphans,
    ],
  );
  return new Map(inserted.rows.map((r) => [r.message_id, r.seq]));
}
