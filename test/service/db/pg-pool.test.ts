// A pooled PostgreSQL connection that the server ends while the service holds it is a failed query, not a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgPool, type PgPool } from '../../../src/service/db/pg-pool.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';

describe('pg pool', () => {
  let tdb: TestDatabase;
  let pool: PgPool;

  beforeAll(async () => {
    tdb = await createTestDatabase('pg-pool');
    pool = openPgPool(tdb.url, 2);
  });
  afterAll(async () => {
    await pool?.end();
    await tdb?.drop();
  });

  it('survives the server ending a checked-out connection before its holder listens, and hands out a fresh one', async () => {
    // Checked out with no listener of the holder's own: the state between connect() resolving and inTransaction's
    // listener, where an unheard 'error' event used to take the process down (vitest fails the run on it).
    const held = await pool.connect();
    const pid = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    // Bounded: when the 'error' goes unheard, the client never gets as far as 'end'.
    const ended = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the terminated connection never ended within 10 s')), 10_000);
      held.once('end', () => (clearTimeout(timer), resolve()));
    });
    const other = await pool.connect();
    try {
      await other.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      other.release();
    }
    await ended;
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release();
    const r = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(r.rows[0]!.one).toBe(1);
  });

  it('still crashes nobody when the error event is raised by hand on a client that is checked out', async () => {
    const c = await pool.connect();
    try {
      expect(() => c.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
    } finally {
      c.release(true);
    }
  });
});
