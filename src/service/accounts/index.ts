// Accounts of the data service (docs/api.md, Accounts): sign-up, login, logout, session tokens, password change, and the clientId
// check that every listing request and tracker connection goes through.
import { randomBytes } from 'node:crypto';
import type { DocumentedRoute } from '../../lib/hono-kit.js';
import { TxdeskError } from '../../shared/errors.js';
import { getDummyHash, hashPassword, hashPasswordSync, verifyPassword } from './accounts-password.js';
import type { AccountsStore, UserRow } from './accounts-store.js';
import { issueToken, tokenId, verifyToken, type TokenClaims } from './accounts-token.js';
import { signupSchema, type LoginInput, type PasswdInput, type SignupInput } from './accounts-schemas.js';
import { accountRoutes } from './accounts-routes.js';
import { parseBody } from '../../lib/http-validation.js';
import { createRateLimiter } from '../../lib/http-rate-limit.js';

export interface AccountsOptions {
  openSignup: boolean;
  /** Lifetime of a session token; 7 days unless set. */
  tokenTtlSeconds?: number;
  /** Sign-up, login and passwd requests per client IP per minute (each costs a scrypt hash); 120 unless set, <= 0 disables. */
  authRateLimitPerMinute?: number;
  /** Injected clock (ms) for tests of expiry. */
  now?: () => number;
}

export interface Profile {
  email: string;
  name: string;
  organization: string;
  clientId: string;
}

export interface Session extends Profile {
  jwtToken: string;
}

export interface Accounts {
  /** Hot path: a Set lookup (answered synchronously), falling back to an indexed query for ids created elsewhere. */
  isClientId(id: string): boolean | Promise<boolean>;
  /**
   * The Set lookup alone, for callers that cannot wait (the listing's admission). Ids created by another instance
   * reach the Set through a database notification (learnClientId) within milliseconds; a miss also starts a lookup,
   * so a request that raced the notification is answered right when retried.
   */
  isKnownClientId(id: string): boolean;
  /** Adds a clientId another instance created (from a database notification). */
  learnClientId(id: string): void;
  createAccount(input: { email: string; password: string; name: string; organization: string }): Promise<{ clientId: string }>;
  /** Creates the dev account if missing and gives it a fresh random password (only its hash is stored). */
  ensureDevAccount(): Promise<{ email: string; password: string; clientId: string }>;
  /** The HTTP routes of docs/api.md, Accounts, with their own per-IP limit on the routes that hash a password. */
  routes(): DocumentedRoute[];
  readonly openSignup: boolean;
  /** Throws the 403 of a service without open sign-up. */
  assertSignupOpen(): void;
  signup(input: SignupInput): Promise<Session>;
  login(input: LoginInput): Promise<Session>;
  /** Resolves the `Authorization` header to the signed-in user. */
  authenticate(authorization: string | undefined): Promise<Profile & { id: number }>;
  changePassword(authorization: string | undefined, input: PasswdInput): Promise<Session>;
  /** Revokes the session token in the `Authorization` header, and only that one: what a user expects of `logout` on
   * one machine is that their sessions elsewhere keep working (a password change is the way to end them all). Throws
   * the same 401 as `authenticate` for a token that is already invalid, so logging out twice is a 401. */
  logout(authorization: string | undefined): Promise<void>;
}

export const DEV_ACCOUNT = { email: 'dev@txdesk.local', name: 'txdesk developer', organization: 'txdesk dev chain' } as const;
export const DEFAULT_TOKEN_TTL_SECONDS = 7 * 24 * 3600;
export const DEFAULT_AUTH_RATE_LIMIT_PER_MINUTE = 120;
const MAX_CLIENT_ID_LENGTH = 128;

export function newClientId(): string {
  return randomBytes(16).toString('hex');
}

/** The accounts over a store (SQLite or PostgreSQL); reads the clientIds and the signing secret once at start. */
export async function createAccounts(store: AccountsStore, options: AccountsOptions): Promise<Accounts> {
  const ttl = options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  const now = options.now ?? Date.now;
  const nowSeconds = () => Math.floor(now() / 1000);
  const known = new Set(await store.allClientIds());
  const secret = await store.tokenSecret();

  const profile = (u: UserRow): Profile => ({ email: u.email, name: u.name, organization: u.organization, clientId: u.clientId });
  const session = (u: UserRow): Session => ({
    ...profile(u),
    jwtToken: issueToken(secret, String(u.id), u.tokenGeneration, nowSeconds(), ttl, randomBytes(12).toString('base64url')),
  });

  async function insertOrConflict(input: SignupInput, passwordHash: string): Promise<UserRow> {
    const clientId = newClientId();
    if (!await store.insert({ email: input.email, name: input.name, organization: input.organization, passwordHash, clientId }, now())) {
      throw new TxdeskError('CONFLICT', `An account with the e-mail ${input.email} already exists; log in instead, or sign up with another e-mail.`);
    }
    known.add(clientId);
    return (await store.byEmail(input.email))!;
  }

  /** The user, claims and revocation key of a valid session token; every way a token can be invalid is a 401. */
  async function verifySession(authorization: string | undefined): Promise<{ user: UserRow; claims: TokenClaims; tokenId: string }> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) {
      throw new TxdeskError('UNAUTHORIZED', 'This endpoint needs a session token: send "Authorization: Bearer <jwtToken>" with the token from POST /users/v1/login.');
    }
    const check = verifyToken(secret, match[1]!, nowSeconds());
    if (!check.ok) {
      throw new TxdeskError(
        'UNAUTHORIZED',
        check.reason === 'expired' ? 'The session token has expired; log in again.' : 'The session token is not valid; log in again.',
      );
    }
    const user = await store.byId(Number(check.claims.sub));
    if (!user || user.tokenGeneration !== check.claims.gen) {
      throw new TxdeskError('UNAUTHORIZED', 'The session token is no longer valid (the password changed); log in again.');
    }
    const id = tokenId(match[1]!);
    if (await store.isRevoked(id)) {
      throw new TxdeskError('UNAUTHORIZED', 'This session token was revoked by a logout; log in again with `txdesk login` (or POST /users/v1/login).');
    }
    return { user, claims: check.claims, tokenId: id };
  }

  async function authenticate(authorization: string | undefined): Promise<Profile & { id: number }> {
    const { user } = await verifySession(authorization);
    return { id: user.id, ...profile(user) };
  }

  async function lookUp(id: string): Promise<boolean> {
    if (!(await store.hasClientId(id))) return false;
    known.add(id);
    return true;
  }

  const accounts: Accounts = {
    openSignup: options.openSignup,

    isClientId(id) {
      if (known.has(id)) return true;
      if (typeof id !== 'string' || id.length === 0 || id.length > MAX_CLIENT_ID_LENGTH) return false;
      return lookUp(id);
    },

    isKnownClientId(id) {
      if (known.has(id)) return true;
      if (typeof id === 'string' && id.length > 0 && id.length <= MAX_CLIENT_ID_LENGTH) void lookUp(id).catch(() => {});
      return false;
    },

    learnClientId(id) {
      known.add(id);
    },

    async createAccount(input) {
      const parsed = parseBody(signupSchema, input, 'email, password, name and organization');
      return { clientId: (await insertOrConflict(parsed, hashPasswordSync(parsed.password))).clientId };
    },

    async ensureDevAccount() {
      const password = randomBytes(12).toString('base64url');
      const hash = hashPasswordSync(password);
      const existing = await store.byEmail(DEV_ACCOUNT.email);
      if (existing) {
        await store.setPassword(existing.id, hash, false);
        known.add(existing.clientId);
        return { email: existing.email, password, clientId: existing.clientId };
      }
      const user = await insertOrConflict({ ...DEV_ACCOUNT, password }, hash);
      return { email: user.email, password, clientId: user.clientId };
    },

    routes() {
      return accountRoutes(accounts, {
        limiter: createRateLimiter(
          options.authRateLimitPerMinute ?? DEFAULT_AUTH_RATE_LIMIT_PER_MINUTE,
          (s) => `Too many account requests from this address; retry after ${s} s.`,
        ),
        now,
      });
    },

    assertSignupOpen() {
      if (!options.openSignup) {
        throw new TxdeskError('FORBIDDEN', 'Sign-up is closed on this service; ask its operator for an account or to enable open sign-up.');
      }
    },

    async signup(input) {
      accounts.assertSignupOpen();
      const hash = await hashPassword(input.password);
      return session(await insertOrConflict(input, hash));
    },

    async login(input) {
      const user = await store.byEmail(input.email);
      // Unknown e-mails are checked against a dummy hash: the same scrypt work and the same answer as a wrong password.
      const ok = await verifyPassword(input.password, user?.passwordHash ?? getDummyHash());
      if (!user || !ok) throw new TxdeskError('UNAUTHORIZED', 'The e-mail or password is wrong; check both and try again.');
      return session(user);
    },

    authenticate,

    async changePassword(authorization, input) {
      const who = await authenticate(authorization);
      const user = (await store.byId(who.id))!;
      if (!(await verifyPassword(input.password, user.passwordHash))) {
        throw new TxdeskError('UNAUTHORIZED', 'The current password is wrong; check it and try again.');
      }
      await store.setPassword(user.id, await hashPassword(input.newPassword), true);
      return session((await store.byId(user.id))!);
    },

    async logout(authorization) {
      const { user, claims, tokenId: id } = await verifySession(authorization);
      await store.revoke(id, user.id, claims.exp, nowSeconds());
    },
  };
  return accounts;
}
