// Service accounts in the SQLite database of a single instance (the contract: ../accounts-store.ts).
import { randomBytes } from 'node:crypto';
import { migrate, writeTransaction, type Db } from '../../../lib/sqlite.js';
import { SECRET_NAME, type AccountsStore, type UserRow } from '../accounts-store.js';

const MIGRATIONS = [
  `CREATE TABLE accounts_users (
     id INTEGER PRIMARY KEY,
     email TEXT NOT NULL UNIQUE,
     name TEXT NOT NULL,
     organization TEXT NOT NULL,
     password_hash TEXT NOT NULL,
     client_id TEXT NOT NULL UNIQUE,
     token_generation INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE accounts_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);`,
  // Logout revokes one session while tokens stay stateless signed JWTs: a deny-list of the revoked ones, keyed by
  // tokenId() (a hash, so the table holds nothing usable). A row is needed only until its token would have expired
  // anyway, so each logout prunes the rows past expires_at and the table holds at most one token lifetime of logouts. Chosen
  // over a per-user generation or a tokens_valid_after column (both end every session of the user, which is what a
  // password change does, not what `logout` should do) and over a table of every issued session (a write per login,
  // and every token issued before the upgrade would have no row and stop working).
  `CREATE TABLE accounts_revoked_tokens (
     token_id TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES accounts_users(id) ON DELETE CASCADE,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX accounts_revoked_tokens_by_expiry ON accounts_revoked_tokens (expires_at);`,
  // The API secret that manages webhooks (docs/webhooks.md): at most one per account, kept as its SHA-256 (the secret
  // is shown once, when made). Looked up by hash on every management request, hence the unique index on it.
  `CREATE TABLE accounts_api_secrets (
     user_id INTEGER PRIMARY KEY REFERENCES accounts_users(id) ON DELETE CASCADE,
     secret_hash TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL
   );`,
];

const COLUMNS = `id, email, name, organization, password_hash AS passwordHash, client_id AS clientId, token_generation AS tokenGeneration`;

export function openSqliteAccountsStore(db: Db): AccountsStore {
  migrate(db, 'accounts', MIGRATIONS);
  const byEmail = db.prepare(`SELECT ${COLUMNS} FROM accounts_users WHERE email = ?`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM accounts_users WHERE id = ?`);
  const hasClientId = db.prepare('SELECT 1 FROM accounts_users WHERE client_id = ?').pluck();
  const allClientIds = db.prepare('SELECT client_id FROM accounts_users').pluck();
  const insert = db.prepare(
    `INSERT INTO accounts_users (email, name, organization, password_hash, client_id, created_at)
     VALUES (@email, @name, @organization, @passwordHash, @clientId, @createdAt) ON CONFLICT(email) DO NOTHING`,
  );
  const setPassword = db.prepare('UPDATE accounts_users SET password_hash = ?, token_generation = token_generation + ? WHERE id = ?');
  const getSecret = db.prepare('SELECT value FROM accounts_secrets WHERE name = ?').pluck();
  const putSecret = db.prepare('INSERT INTO accounts_secrets (name, value) VALUES (?, ?) ON CONFLICT(name) DO NOTHING');
  const isRevoked = db.prepare('SELECT 1 FROM accounts_revoked_tokens WHERE token_id = ?').pluck();
  const pruneRevoked = db.prepare('DELETE FROM accounts_revoked_tokens WHERE expires_at <= ?');
  const insertRevoked = db.prepare(
    'INSERT INTO accounts_revoked_tokens (token_id, user_id, expires_at) VALUES (?, ?, ?) ON CONFLICT(token_id) DO NOTHING',
  );
  const revoke = writeTransaction(db, (tokenId: string, userId: number, expiresAt: number, nowSeconds: number) => {
    pruneRevoked.run(nowSeconds);
    insertRevoked.run(tokenId, userId, expiresAt);
  });
  const byApiSecretHash = db.prepare(
    `SELECT ${COLUMNS} FROM accounts_users WHERE id = (SELECT user_id FROM accounts_api_secrets WHERE secret_hash = ?)`,
  );
  const apiSecretCreatedAt = db.prepare('SELECT created_at FROM accounts_api_secrets WHERE user_id = ?').pluck();
  const addApiSecret = db.prepare(
    'INSERT INTO accounts_api_secrets (user_id, secret_hash, created_at) VALUES (?, ?, ?) ON CONFLICT(user_id) DO NOTHING',
  );
  const replaceApiSecret = db.prepare(
    `INSERT INTO accounts_api_secrets (user_id, secret_hash, created_at) VALUES (?, ?, ?)
     ON CONFLICT(user_id) DO UPDATE SET secret_hash = excluded.secret_hash, created_at = excluded.created_at`,
  );
  const deleteApiSecret = db.prepare('DELETE FROM accounts_api_secrets WHERE user_id = ?');
  let secret: Buffer | undefined;

  return {
    byEmail: async (email) => byEmail.get(email) as UserRow | undefined,
    byId: async (id) => byId.get(id) as UserRow | undefined,
    hasClientId: async (clientId) => hasClientId.get(clientId) !== undefined,
    allClientIds: async () => allClientIds.all() as string[],
    insert: async (user, nowMs) => insert.run({ ...user, createdAt: nowMs }).changes === 1,
    setPassword: async (id, hash, revoke) => void setPassword.run(hash, revoke ? 1 : 0, id),
    async tokenSecret() {
      if (!secret) {
        putSecret.run(SECRET_NAME, randomBytes(32));
        secret = getSecret.get(SECRET_NAME) as Buffer;
      }
      return secret;
    },
    isRevoked: async (tokenId) => isRevoked.get(tokenId) !== undefined,
    revoke: async (tokenId, userId, expiresAt, nowSeconds) => void revoke(tokenId, userId, expiresAt, nowSeconds),
    byApiSecretHash: async (hash) => byApiSecretHash.get(hash) as UserRow | undefined,
    apiSecretCreatedAt: async (userId) => apiSecretCreatedAt.get(userId) as number | undefined,
    putApiSecret: async (userId, hash, nowMs, replace) =>
      (replace ? replaceApiSecret : addApiSecret).run(userId, hash, nowMs).changes === 1,
    deleteApiSecret: async (userId) => deleteApiSecret.run(userId).changes === 1,
  };
}
