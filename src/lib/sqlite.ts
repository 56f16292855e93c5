// Opens better-sqlite3 databases the way every txdesk store wants them (WAL, foreign keys) and runs per-module migrations.
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { ensureDir } from './fs-dirs.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Path of a native binding to load instead of the default (Electron's ABI differs from Node's). */
  nativeBinding?: string;
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:') ensureDir(dirname(file));
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * `fn` as a transaction that takes the write lock as it begins (BEGIN IMMEDIATE); every txdesk transaction that writes
 * is one. A service file has two writers (the main thread's stores and the index writer thread), and a DEFERRED
 * transaction that reads before it writes fails at once with SQLITE_BUSY_SNAPSHOT when the other connection commits in
 * between: busy_timeout does not apply to that. IMMEDIATE waits for the lock under busy_timeout instead. Called inside
 * another transaction it is a savepoint, as every better-sqlite3 transaction.
 */
export function writeTransaction<A extends unknown[], R>(db: Db, fn: (...args: A) => R): (...args: A) => R {
  return db.transaction(fn).immediate;
}

/**
 * Applies the migrations of one module in order, each in its own transaction, and records the version reached.
 * `migrations[i]` takes the module from version i to i+1; never edit one that has shipped, append a new one.
 */
export function migrate(db: Db, module: string, migrations: readonly string[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT PRIMARY KEY, version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM schema_migrations WHERE module = ?').get(module) as { version: number } | undefined;
  const from = row?.version ?? 0;
  for (let v = from; v < migrations.length; v++) {
    writeTransaction(db, () => {
      db.exec(migrations[v]!);
      db.prepare(
        'INSERT INTO schema_migrations (module, version) VALUES (?, ?) ON CONFLICT(module) DO UPDATE SET version = excluded.version',
      ).run(module, v + 1);
    })();
  }
}

const checkpointHolds = new WeakMap<Db, { count: number; pages: number; changes: number }>();
const totalChanges = (db: Db) => db.prepare('SELECT total_changes()').pluck().get() as number;

/**
 * Stops SQLite's automatic WAL checkpoints on this connection until the returned function is called. Otherwise the
 * commit that crosses the WAL threshold (1,000 pages) also copies the log back into the database file: 20-30 ms
 * inside whichever write happens to be next, which may be a latency-critical one. The release restores the threshold
 * and, if anything was written meanwhile, runs the owed checkpoint at once (PASSIVE: it never waits for readers, and
 * what readers still hold is copied by a later one). Holds nest; the last release does the work, and may throw (a
 * full disk, say), after the threshold is back. `runOwed` runs the owed checkpoint instead (on another connection).
 */
export function deferCheckpoints(db: Db, runOwed?: () => void): () => void {
  let hold = checkpointHolds.get(db);
  if (!hold) {
    hold = { count: 0, pages: db.pragma('wal_autocheckpoint', { simple: true }) as number, changes: totalChanges(db) };
    checkpointHolds.set(db, hold);
    db.pragma('wal_autocheckpoint = 0');
  }
  hold.count++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const h = hold!;
    if (--h.count > 0) return;
    checkpointHolds.delete(db);
    db.pragma(`wal_autocheckpoint = ${h.pages}`);
    if (h.pages > 0 && totalChanges(db) !== h.changes) (runOwed ?? (() => db.pragma('wal_checkpoint(PASSIVE)')))();
  };
}
