// Rate limits across a fleet: every second each instance adds what it took per key to a shared table (in 10 s slots)
// and charges its own buckets with what the others took since it last looked. A key's limit thus holds fleet-wide,
// over by at most what the other instances let through in one exchange interval (docs/deploy.md).
import type { Logger } from '../../lib/log.js';
import type { SharedRateLimiter } from '../../lib/http-rate-limit.js';
import { migratePg } from './pg-migrate.js';
import type { PgPool } from './pg-pool.js';

const MIGRATIONS = [
  `CREATE TABLE rate_usage (
     scope TEXT NOT NULL,
     key TEXT NOT NULL,
     instance TEXT NOT NULL,
     slot BIGINT NOT NULL,
     taken INTEGER NOT NULL,
     updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     PRIMARY KEY (slot, scope, key, instance)
   );
   CREATE INDEX rate_usage_updated ON rate_usage (updated_at)`,
];

/**
 * Rows are read again from this long before the previous read started (by the database's clock): a row written by a
 * transaction that began before that read but committed after it carries an earlier updated_at. `seen` makes reading
 * a row twice harmless.
 */
const REREAD_MARGIN = "interval '5 seconds'";

const SLOT_MS = 10_000;
/** Slots read back: a minute (a full bucket's refill time) plus the current slot. */
const WINDOW_SLOTS = 7;

export interface RateLimitExchange {
  /** One exchange now (the timer runs them every `intervalMs`); resolves when done. */
  exchange(): Promise<void>;
  stop(): Promise<void>;
}

/** Usage rows of other instances: what was already charged for each (scope, key, instance, slot). */
type Seen = Map<string, number>;

/** What to charge, per scope and key, for rows read back, given what was charged before; updates `seen`. Pure but for `seen`. */
export function newUsage(
  rows: readonly { scope: string; key: string; instance: string; slot: number; taken: number }[],
  seen: Seen,
): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const id = `${r.slot}\u0000${r.scope}\u0000${r.key}\u0000${r.instance}`;
    const delta = r.taken - (seen.get(id) ?? 0);
    if (delta <= 0) continue;
    seen.set(id, r.taken);
    let byKey = out.get(r.scope);
    if (!byKey) out.set(r.scope, (byKey = new Map()));
    byKey.set(r.key, (byKey.get(r.key) ?? 0) + delta);
  }
  return out;
}

export async function shareRateLimits(
  pool: PgPool,
  instance: string,
  limiters: Record<string, SharedRateLimiter>,
  log: Logger,
  opts: { intervalMs?: number; now?: () => number } = {},
): Promise<RateLimitExchange> {
  await migratePg(pool, 'rate_limits', MIGRATIONS);
  const now = opts.now ?? Date.now;
  const seen: Seen = new Map();
  let running: Promise<void> | null = null;
  let stopped = false;

  /** Taken here and not yet in the table (kept across a failed exchange, so the others learn it late, not never). */
  const pending = new Map<string, Map<string, number>>();
  /**
   * The database's clock when the previous read started; null until one succeeded. The first read takes the whole
   * window: a starting instance charges its buckets with the others' last minute in full (stricter, never looser).
   */
  let lastRead: Date | null = null;
  let rounds = 0;
  let failing = false;

  async function once(): Promise<void> {
    const t = now();
    const slot = Math.floor(t / SLOT_MS);
    for (const [scope, limiter] of Object.entries(limiters)) {
      for (const [key, n] of limiter.drainTaken()) {
        let byKey = pending.get(scope);
        if (!byKey) pending.set(scope, (byKey = new Map()));
        byKey.set(key, (byKey.get(key) ?? 0) + n);
      }
    }
    const scopes: string[] = [];
    const keys: string[] = [];
    const counts: number[] = [];
    for (const [scope, byKey] of pending) {
      for (const [key, n] of byKey) {
        scopes.push(scope);
        keys.push(key);
        counts.push(n);
      }
    }
    try {
      if (keys.length > 0) {
        await pool.query(
          `INSERT INTO rate_usage (scope, key, instance, slot, taken)
           SELECT s, k, $4, $5, n FROM unnest($1::text[], $2::text[], $3::int[]) AS u(s, k, n)
           ON CONFLICT (slot, scope, key, instance) DO UPDATE SET taken = rate_usage.taken + excluded.taken, updated_at = now()`,
          [scopes, keys, counts, instance, slot],
        );
        pending.clear();
      }
      // Only rows changed since the last read: the cost follows the fleet's recent traffic, not all keys of a minute.
      const started = (await pool.query<{ now: Date }>('SELECT now()')).rows[0]!.now;
      const { rows } = await pool.query<{ scope: string; key: string; instance: string; slot: string; taken: number }>(
        `SELECT scope, key, instance, slot, taken FROM rate_usage
         WHERE slot > $1 AND instance <> $2 AND ($3::timestamptz IS NULL OR updated_at >= $3::timestamptz - ${REREAD_MARGIN})`,
        [slot - WINDOW_SLOTS, instance, lastRead],
      );
      lastRead = started;
      const usage = newUsage(
        rows.map((r) => ({ ...r, slot: Number(r.slot) })),
        seen,
      );
      for (const [scope, byKey] of usage) for (const [key, n] of byKey) limiters[scope]?.charge(key, n, t);
      for (const id of seen.keys()) if (Number(id.slice(0, id.indexOf('\u0000'))) <= slot - WINDOW_SLOTS) seen.delete(id);
      // Any instance may sweep now and then: rows past the window are never read again.
      if (++rounds % 30 === 0) await pool.query('DELETE FROM rate_usage WHERE slot <= $1', [slot - WINDOW_SLOTS]);
      if (failing) log.info('rate-limit usage is exchanged with the database again');
      failing = false;
    } catch (e) {
      // The local limits still hold; the others learn what was taken here at the next exchange that succeeds.
      if (!failing)
        log.warn(
          `could not exchange rate-limit usage with the database (${e instanceof Error ? e.message : String(e)}); limits are per instance until it answers`,
        );
      failing = true;
    }
  }

  const exchange = () => (running ??= once().finally(() => (running = null)));
  const timer = setInterval(() => void (stopped ? undefined : exchange()), opts.intervalMs ?? 1_000);
  timer.unref();
  return {
    exchange,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
