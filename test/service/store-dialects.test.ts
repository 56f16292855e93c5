// The tables written in both dialects agree: every table of accounts, tracker and index has the same columns with the
// same kind of type on SQLite (pragma table_info) and PostgreSQL (information_schema), so a row means the same on both.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migratePostgresIndex, migrateSqliteIndex } from '../../src/service/backend.js';
import { openPostgresAccountsStore } from '../../src/service/accounts/postgres/accounts-store-postgres.js';
import { openSqliteAccountsStore } from '../../src/service/accounts/sqlite/accounts-store-sqlite.js';
import { openPostgresTrackerStore } from '../../src/service/tracker/postgres/tracker-store-postgres.js';
import { openSqliteTrackerStore } from '../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { backends, type BackendPlace } from '../support/service/store-backends.js';

/** Tables one backend keeps by design: SQLite's counted rank buckets (PostgreSQL pages by OFFSET on its indexes). */
const ONE_BACKEND_ONLY = new Set(['idx_rank']);
const OURS = /^(accounts|tracker|idx)_/;

/** The kind of a declared type: what a value of the column is, whatever its width. */
function kind(declared: string): string {
  const t = declared.toLowerCase();
  if (/int|serial/.test(t)) return 'integer';
  if (t === 'text') return 'text';
  if (t === 'blob' || t === 'bytea') return 'bytes';
  return t;
}

type Columns = Record<string, Record<string, string>>;

let sqlite: BackendPlace;
let pg: BackendPlace;
beforeAll(async () => {
  const [a, b] = await Promise.all(backends.map((x) => x.fresh()));
  [sqlite, pg] = [a!, b!];
});
afterAll(async () => {
  await Promise.all([sqlite?.close(), pg?.close()]);
});

it('every table of both backends has the same columns, of the same kind', async () => {
  const db = sqlite.sqlite!;
  openSqliteAccountsStore(db);
  openSqliteTrackerStore(db);
  migrateSqliteIndex(db);
  await openPostgresAccountsStore(pg.pool!);
  await openPostgresTrackerStore(pg.pool!, 'dialects');
  await migratePostgresIndex(pg.pool!);

  const onSqlite: Columns = {};
  for (const name of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]) {
    if (!OURS.test(name) || ONE_BACKEND_ONLY.has(name)) continue;
    const cols = db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(name) as { name: string; type: string }[];
    onSqlite[name] = Object.fromEntries(cols.map((c) => [c.name, kind(c.type)]));
  }
  const onPg: Columns = {};
  const r = await pg.pool!.query<{ table_name: string; column_name: string; data_type: string }>(
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public'",
  );
  for (const c of r.rows) {
    if (!OURS.test(c.table_name)) continue;
    (onPg[c.table_name] ??= {})[c.column_name] = kind(c.data_type);
  }
  expect(Object.keys(onSqlite).length).toBeGreaterThan(10);
  expect(onPg).toEqual(onSqlite);
});
