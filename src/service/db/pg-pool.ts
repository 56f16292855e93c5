// Opens node-postgres pools for the service's PostgreSQL stores and runs a function in one transaction.
import pg from 'pg';

// BIGINT (seq, ids, epoch milliseconds) as a JS number: every value the service stores is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient | pg.Client;

export function openPgPool(url: string, max = 10): PgPool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'txdesk-service' });
  // An idle client whose connection drops emits on the pool; the next query gets a fresh one.
  pool.on('error', () => {});
  return pool;
}

/** Runs `fn` in one transaction on one pooled connection: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: PgPool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection the server ends while the client is checked out is reported as an 'error' event on the client (the
  // pool only listens while it is idle); unheard, it would crash the process. The query in flight rejects anyway.
  let lost: Error | undefined;
  const onError = (e: Error) => void (lost = e);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.off('error', onError);
    // A lost connection is closed rather than handed out again.
    client.release(lost);
  }
}

/** A URL for logs: the password is replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
