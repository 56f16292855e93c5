// What storing service accounts means (users, their hashed passwords and clientIds, the token-signing secret, the
// session tokens revoked by logout, the hashes of their API secrets), whatever the backend: SQLite in sqlite/,
// PostgreSQL in postgres/.
export interface UserRow {
  id: number;
  email: string;
  name: string;
  organization: string;
  passwordHash: string;
  clientId: string;
  tokenGeneration: number;
}

export type NewUser = Omit<UserRow, 'id' | 'tokenGeneration'>;

export interface AccountsStore {
  byEmail(email: string): Promise<UserRow | undefined>;
  byId(id: number): Promise<UserRow | undefined>;
  hasClientId(clientId: string): Promise<boolean>;
  allClientIds(): Promise<string[]>;
  /** Returns false when the e-mail is taken. */
  insert(user: NewUser, nowMs: number): Promise<boolean>;
  /** Sets a new hash; with `revokeTokens`, bumps the token generation so older tokens stop working. */
  setPassword(id: number, passwordHash: string, revokeTokens: boolean): Promise<void>;
  /** The HS256 secret, created on first use and kept in the database so tokens survive a restart (and every instance
   * on one database signs alike). */
  tokenSecret(): Promise<Buffer>;
  isRevoked(tokenId: string): Promise<boolean>;
  /** Adds a token to the deny-list until `expiresAt` (epoch seconds), pruning rows already past their expiry. */
  revoke(tokenId: string, userId: number, expiresAt: number, nowSeconds: number): Promise<void>;
  /** The user whose API secret hashes to `secretHash` (accounts-api-secret.ts), if any. */
  byApiSecretHash(secretHash: string): Promise<UserRow | undefined>;
  /** When the user's API secret was made (ms), or undefined when the user has none. */
  apiSecretCreatedAt(userId: number): Promise<number | undefined>;
  /** Keeps the hash of the user's new API secret. With `replace` false it changes nothing and answers false when the
   * user has one already; with `replace` true the old one stops working in the same write. */
  putApiSecret(userId: number, secretHash: string, nowMs: number, replace: boolean): Promise<boolean>;
  /** Removes the user's API secret; false when there was none. */
  deleteApiSecret(userId: number): Promise<boolean>;
}

export const SECRET_NAME = 'jwt-hs256';
/** Wakes the other instances of a fleet when a clientId is created, so their in-memory clientId set learns it at once. */
export const CLIENT_ID_CHANNEL = 'txdesk_accounts_client';
