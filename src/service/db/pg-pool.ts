// Opens node-postgres pools for the service's PostgreSQL stores and runs a function in one transaction.
import pg from 'pg';

// BIGINT (seq, ids, epoch milliseconds) as a JS number: every value the service stores is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient | pg.Client;

/** `schema`: the only schema its connections see (a network's own; service-database.ts), public unless set. */
export function openPgPool(url: string, max = 10, schema?: string): PgPool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: 'txdesk-service',
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client whose connection drops emits on the pool; the next query gets a fresh one.
  pool.on('error', () => {});
  // A checked-out client reports a dropped connection as an 'error' event on itself, and pg-pool stops listening the
  // moment it hands the client out; an unheard 'error' crashes the process. A new client's ReadyForQuery and a FATAL
  // (57P01, the server shutting it down) can arrive in one packet, so the error is parsed before the caller of connect()
  // could attach a listener. This one is attached when the client is created and stays; the query in flight still
  // rejects, and a client that is no longer queryable is dropped by the pool on release.
  pool.on('connect', (client) => client.on('error', () => {}));
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

/** Node-level socket errors that mean the database cannot be reached right now. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether an error means the database is not answering (down, restarting, refusing connections), as opposed to a bug
 * in a query: SQLSTATE class 08 (connection exception), 57P01-57P03 (shut down, crashed, not yet accepting), 53300
 * (too many connections), a socket error, node-postgres's own words for a lost or refused connection, or a database
 * closed to connections (ALLOW_CONNECTIONS false, as during maintenance).
 */
export function databaseUnreachable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300' || UNREACHABLE_CODES.has(code)))
    return true;
  return (
    /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(e.message) ||
    /is not currently accepting connections/.test(e.message)
  );
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
