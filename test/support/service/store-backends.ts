// The two store backends for the store suites: SQLite in a temp dir, and a fresh database on the run's PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { openPgPool, type PgPool } from '../../../src/service/db/pg-pool.js';
import { createTestDatabase } from './postgres-db.js';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Opens one fresh, empty store location and returns how to make stores on it and how to remove it. */
  fresh(): Promise<BackendPlace>;
}

export type BackendPlace =
  | { sqlite: ReturnType<typeof openDatabase>; pool?: undefined; url?: undefined; close(): Promise<void> }
  | {
      sqlite?: undefined;
      pool: PgPool;
      url: string;
      close(): Promise<void>;
    };

export const backends: Backend[] = [
  {
    name: 'sqlite',
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), 'txdesk-store-'));
      const db = openDatabase(join(dir, 'service.sqlite'));
      return {
        sqlite: db,
        async close() {
          db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    async fresh() {
      const tdb = await createTestDatabase('store');
      const pool = openPgPool(tdb.url);
      return {
        pool,
        url: tdb.url,
        async close() {
          await pool.end();
          await tdb.drop();
        },
      };
    },
  },
];
