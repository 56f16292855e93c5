// One fresh PostgreSQL database per test file on the server that test/support/service/postgres-global.ts started for the run.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = inject('postgresAdminUrl') ?? process.env.TXDESK_TEST_POSTGRES_ADMIN_URL;
  if (!url) throw new Error('No test PostgreSQL server: vitest.config.ts runs test/support/service/postgres-global.ts as a global setup.');
  return url;
}

/** Creates an empty database named after `label`; drop() removes it (closing whatever still uses it). */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const admin = adminUrl();
  const name = `t_${label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      try {
        await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await d.end();
      }
    },
  };
}
