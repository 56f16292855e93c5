// Service accounts in the PostgreSQL database a fleet shares (`--database`; the contract: ../accounts-store.ts): every
// instance reads and writes the same rows.
import { randomBytes } from 'node:crypto';
import { migratePg } from '../../db/pg-migrate.js';
import { inTransaction, type PgPool } from '../../db/pg-pool.js';
import { CLIENT_ID_CHANNEL, SECRET_NAME, type AccountsStore, type UserRow } from '../accounts-store.js';

const MIGRATIONS = [
  `CREATE TABLE accounts_users (
     id BIGSERIAL PRIMARY KEY,
     email TEXT NOT NULL UNIQUE,
     name TEXT NOT NULL,
     organization TEXT NOT NULL,
     password_hash TEXT NOT NULL,
     client_id TEXT NOT NULL UNIQUE,
     token_generation INTEGER NOT NULL DEFAULT 0,
     created_at BIGINT NOT NULL
   );
   CREATE TABLE accounts_secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL);
   CREATE TABLE accounts_revoked_tokens (
     token_id TEXT PRIMARY KEY,
     user_id BIGINT NOT NULL REFERENCES accounts_users(id) ON DELETE CASCADE,
     expires_at BIGINT NOT NULL
   );
   CREATE INDEX accounts_revoked_tokens_by_expiry ON accounts_revoked_tokens (expires_at);`,
  // The API secret that manages webhooks, as on SQLite (migration 3 there): its SHA-256, at most one per account.
  `CREATE TABLE accounts_api_secrets (
     user_id BIGINT PRIMARY KEY REFERENCES accounts_users(id) ON DELETE CASCADE,
     secret_hash TEXT NOT NULL UNIQUE,
     created_at BIGINT NOT NULL
   );`,
];

const COLUMNS = `id, email, name, organization, password_hash AS "passwordHash", client_id AS "clientId", token_generation AS "tokenGeneration"`;

export async function openPostgresAccountsStore(pool: PgPool): Promise<AccountsStore> {
  await migratePg(pool, 'accounts', MIGRATIONS);
  let secret: Buffer | undefined;
  const one = async (sql: string, params: unknown[]) => (await pool.query<UserRow>(sql, params)).rows[0];

  return {
    byEmail: (email) => one(`SELECT ${COLUMNS} FROM accounts_users WHERE email = $1`, [email]),
    byId: (id) => one(`SELECT ${COLUMNS} FROM accounts_users WHERE id = $1`, [id]),
    hasClientId: async (clientId) => (await pool.query('SELECT 1 FROM accounts_users WHERE client_id = $1', [clientId])).rowCount! > 0,
    allClientIds: async () =>
      (await pool.query<{ client_id: string }>('SELECT client_id FROM accounts_users')).rows.map((r) => r.client_id),
    insert: (user, nowMs) =>
      inTransaction(pool, async (c) => {
        const r = await c.query(
          `INSERT INTO accounts_users (email, name, organization, password_hash, client_id, created_at)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING`,
          [user.email, user.name, user.organization, user.passwordHash, user.clientId, nowMs],
        );
        if (r.rowCount === 1) await c.query('SELECT pg_notify($1, $2)', [CLIENT_ID_CHANNEL, user.clientId]);
        return r.rowCount === 1;
      }),
    setPassword: async (id, hash, revoke) => {
      await pool.query('UPDATE accounts_users SET password_hash = $1, token_generation = token_generation + $2 WHERE id = $3', [
        hash,
        revoke ? 1 : 0,
        id,
      ]);
    },
    async tokenSecret() {
      if (!secret) {
        // Two instances starting at once both try; the first insert wins and both read that one.
        await pool.query('INSERT INTO accounts_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
          SECRET_NAME,
          randomBytes(32),
        ]);
        secret = (await pool.query<{ value: Buffer }>('SELECT value FROM accounts_secrets WHERE name = $1', [SECRET_NAME])).rows[0]!.value;
      }
      return secret;
    },
    isRevoked: async (tokenId) => (await pool.query('SELECT 1 FROM accounts_revoked_tokens WHERE token_id = $1', [tokenId])).rowCount! > 0,
    revoke: (tokenId, userId, expiresAt, nowSeconds) =>
      inTransaction(pool, async (c) => {
        await c.query('DELETE FROM accounts_revoked_tokens WHERE expires_at <= $1', [nowSeconds]);
        await c.query(
          'INSERT INTO accounts_revoked_tokens (token_id, user_id, expires_at) VALUES ($1, $2, $3) ON CONFLICT (token_id) DO NOTHING',
          [tokenId, userId, expiresAt],
        );
      }),
    byApiSecretHash: (hash) =>
      one(`SELECT ${COLUMNS} FROM accounts_users WHERE id = (SELECT user_id FROM accounts_api_secrets WHERE secret_hash = $1)`, [hash]),
    apiSecretCreatedAt: async (userId) =>
      (await pool.query<{ created_at: number }>('SELECT created_at FROM accounts_api_secrets WHERE user_id = $1', [userId])).rows[0]
        ?.created_at,
    putApiSecret: async (userId, hash, nowMs, replace) => {
      const onConflict = replace ? 'DO UPDATE SET secret_hash = excluded.secret_hash, created_at = excluded.created_at' : 'DO NOTHING';
      const r = await pool.query(
        `INSERT INTO accounts_api_secrets (user_id, secret_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT (user_id) ${onConflict}`,
        [userId, hash, nowMs],
      );
      return r.rowCount === 1;
    },
    deleteApiSecret: async (userId) => (await pool.query('DELETE FROM accounts_api_secrets WHERE user_id = $1', [userId])).rowCount === 1,
  };
}
