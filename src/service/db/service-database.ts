// Where the service keeps its state: SQLite in --data-dir (one instance), or one PostgreSQL database that any number
// of instances share (`--database postgres://…`). Opens the connections the shared mode needs and names the instance.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../lib/log.js';
import { startPgListener, type PgListener } from './pg-listen.js';
import { openPgPool, redactUrl, type PgPool } from './pg-pool.js';

/** What a module needs to take part in a fleet on one PostgreSQL database. */
export interface SharedDatabase {
  url: string;
  pool: PgPool;
  listener: PgListener;
  /** Names this process in its notifications, so it can skip its own. */
  instance: string;
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
    throw new Error(`Cannot reach the database at ${redactUrl(url)}: ${e instanceof Error ? e.message : String(e)}. Check the URL, that PostgreSQL is running, and that it accepts this user.`);
  }
  const listener = startPgListener(url, log.child('db-listen'));
  return { url, pool, listener, instance: randomBytes(6).toString('hex') };
}

export async function closeSharedDatabase(db: SharedDatabase): Promise<void> {
  await db.listener.stop();
  await db.pool.end();
}
