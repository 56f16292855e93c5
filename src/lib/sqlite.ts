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
 * Applies the migrations of one module in order, each in its own transaction, and records the version reached.
 * `migrations[i]` takes the module from version i to i+1; never edit one that has shipped, append a new one.
 */
export function migrate(db: Db, module: string, migrations: readonly string[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT PRIMARY KEY, version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM schema_migrations WHERE module = ?').get(module) as { version: number } | undefined;
  const from = row?.version ?? 0;
  for (let v = from; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.prepare('INSERT INTO schema_migrations (module, version) VALUES (?, ?) ON CONFLICT(module) DO UPDATE SET version = excluded.version').run(module, v + 1);
    })();
  }
}
