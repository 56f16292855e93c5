// Where the service keeps its state: SQLite in --data-dir (one instance), or one PostgreSQL database that any number
// of instances share (`--database postgres://…`). Opens the connections the shared mode needs and names the instance.
import { createHash, randomBytes } from 'node:crypto';
import { LOCK_CLASS, LOCKS } from './pg-locks.js';
import type { Logger } from '../../lib/log.js';
import { startPgListener, type PgListener } from './pg-listen.js';
import { inTransaction, openPgPool, redactUrl, type PgPool } from './pg-pool.js';

/** What a module needs to take part in a fleet on one PostgreSQL database. */
export interface SharedDatabase {
  url: string;
  pool: PgPool;
  listener: PgListener;
  /** Names this process in its notifications, so it can skip its own. */
  instance: string;
  /** The class of the advisory locks of this network's roles and writes (LOCK_CLASS for the default network). */
  lockClass: number;
  /** The NOTIFY channel `base` of this network (unchanged for the default network; PostgreSQL channels are database-wide). */
  channel(base: string): string;
  /**
   * Whether this instance may hold this network's roles now (pg-leadership.ts): set per network by served-network.ts,
   * false while none of its nodes of the network can be used; absent means always.
   */
  mayLead?: () => boolean;
}

/**
 * Where a network other than the default keeps its state in the shared database: a schema of its own, named after
 * it (with a hash, since names are cut at 63 bytes), its own lock class and NOTIFY channels. The default network
 * keeps the public schema, LOCK_CLASS and the bare channels, where a one-network service always kept them.
 */
export function networkPlace(key: string): { schema: string; lockClass: number; suffix: string } {
  const hash = createHash('sha256').update(`txdesk:${key}`).digest();
  const tag = hash.subarray(0, 4).toString('hex');
  return {
    schema: `net_${tag}_${key.replace(/[^a-z0-9]/g, '_')}`.slice(0, 63),
    // A signed 32-bit class other than LOCK_CLASS ('tx'), so no network shares the default's locks.
    lockClass: hash.readInt32BE(0) === LOCK_CLASS ? hash.readInt32BE(4) : hash.readInt32BE(0),
    suffix: `_${tag}`,
  };
}

/** Accepts postgres:// and postgresql:// URLs; anything else is a sentence saying what to pass. */
export function databaseUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url.slice(0, 80)}" is not a URL; pass a PostgreSQL URL such as postgres://txdesk:secret@db.example.com:5432/txdesk.`;
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    return `The database URL must start with postgres:// (got ${u.protocol}//); SQLite needs no URL: leave --database out to use --data-dir.`;
  }
  if (!u.hostname) return 'The database URL has no host; for example postgres://txdesk:secret@127.0.0.1:5432/txdesk.';
  return null;
}

/** Connects to the shared database (checking it answers), with a LISTEN connection for wake-ups. */
export async function openSharedDatabase(url: string, log: Logger): Promise<SharedDatabase> {
  const pool = openPgPool(url);
  try {
    await pool.query('SELECT 1');
  } catch (e) {
    await pool.end().catch(() => {});
    throw new Error(
      `Cannot reach the database at ${redactUrl(url)}: ${e instanceof Error ? e.message : String(e)}. Check the URL, that ` +
        `PostgreSQL is running, and that it accepts this user.`,
    );
  }
  const listener = startPgListener(url, log.child('db-listen'));
  return { url, pool, listener, instance: randomBytes(6).toString('hex'), lockClass: LOCK_CLASS, channel: (base) => base };
}

/** The shared database as one network other than the default sees it: its schema first on a pool of its own. */
export async function openNetworkDatabase(base: SharedDatabase, key: string): Promise<SharedDatabase> {
  const place = networkPlace(key);
  // Under the migration lock: two instances creating the same schema at once can both fail on the catalog otherwise.
  await inTransaction(base.pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, LOCKS.migrations]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${place.schema}`);
  });
  const pool = openPgPool(base.url, 10, place.schema);
  return { ...base, pool, lockClass: place.lockClass, channel: (name) => name + place.suffix };
}

export async function closeSharedDatabase(db: SharedDatabase): Promise<void> {
  await db.listener.stop();
  await db.pool.end();
}
