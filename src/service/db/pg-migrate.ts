// Versioned schema migrations on PostgreSQL: applied once, by whichever instance takes the migration lock first.
import { LOCK_CLASS, LOCKS } from './pg-locks.js';
import { inTransaction, type PgPool } from './pg-pool.js';

/**
 * Brings one module's tables to `migrations.length`. `migrations[i]` takes the module from version i to i+1; never
 * edit one that has shipped, append a new one. Every instance calls this at start: the transaction-scoped advisory
 * lock makes the others wait until the first has committed, after which they find the version reached and do nothing.
 */
export async function migratePg(pool: PgPool, module: string, migrations: readonly string[]): Promise<void> {
  await inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, LOCKS.migrations]);
    await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    const row = await c.query<{ version: number }>('SELECT version FROM schema_migrations WHERE module = $1', [module]);
    const from = row.rows[0]?.version ?? 0;
    for (let v = from; v < migrations.length; v++) await c.query(migrations[v]!);
    if (migrations.length > from) {
      await c.query(
        'INSERT INTO schema_migrations (module, version) VALUES ($1, $2) ON CONFLICT (module) DO UPDATE SET version = excluded.version',
        [module, migrations.length],
      );
    }
  });
}
