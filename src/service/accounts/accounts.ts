// Accounts of the data service (docs/api.md, Accounts): sign-up, login, logout, session tokens, password change, the
// clientId check that every listing request and tracker connection goes through, and the API secret (or session) that
// webhook management needs instead (docs/webhooks.md, "Who may manage webhooks").
import { randomBytes } from 'node:crypto';
import { TxdeskError } from '../../shared/errors.js';
import { getDummyHash, hashPassword, hashPasswordSync, verifyPassword } from './accounts-password.js';
import type { AccountsStore, UserRow } from './accounts-store.js';
import { apiSecretHash, isApiSecretShaped, isWellFormedApiSecret, newApiSecret } from './accounts-api-secret.js';
import { issueToken, tokenId, verifyToken, type TokenClaims } from './accounts-token.js';
import { signupSchema, type SignupInput } from './accounts-schemas.js';
import { accountRoutes } from './accounts-routes.js';
import type { Accounts, ApiSecretIssued, Profile, Session } from './accounts-api.js';
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

export type { Accounts, ApiSecretIssued, Manager, Profile, Session } from './accounts-api.js';

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
    if (!(await store.insert({ email: input.email, name: input.name, organization: input.organization, passwordHash, clientId }, now()))) {
      throw new TxdeskError(
        'CONFLICT',
        `An account with the e-mail ${input.email} already exists; log in instead, or sign up with another e-mail.`,
      );
    }
    known.add(clientId);
    return (await store.byEmail(input.email))!;
  }

  /** The user, claims and revocation key of a valid session token; every way a token can be invalid is a 401. */
  async function verifySession(authorization: string | undefined): Promise<{ user: UserRow; claims: TokenClaims; tokenId: string }> {
    const token = bearerOf(authorization);
    if (token === undefined) {
      throw new TxdeskError(
        'UNAUTHORIZED',
        'This endpoint needs a session token: send "Authorization: Bearer <jwtToken>" with the token from POST /users/v1/login.',
      );
    }
    if (isApiSecretShaped(token)) {
      // The API secret is for programs managing webhooks; it must not make, replace or end credentials itself.
      throw new TxdeskError(
        'UNAUTHORIZED',
        'This endpoint needs a session token, not the API secret: log in with `txdesk login` (or POST /users/v1/login) and send its jwtToken.',
      );
    }
    const check = verifyToken(secret, token, nowSeconds());
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
    const id = tokenId(token);
    if (await store.isRevoked(id)) {
      throw new TxdeskError(
        'UNAUTHORIZED',
        'This session token was revoked by a logout; log in again with `txdesk login` (or POST /users/v1/login).',
      );
    }
    return { user, claims: check.claims, tokenId: id };
  }

  async function authenticate(authorization: string | undefined): Promise<Profile & { id: number }> {
    const { user } = await verifySession(authorization);
    return { id: user.id, ...profile(user) };
  }

  async function apiSecretFor(user: UserRow, replace: boolean): Promise<ApiSecretIssued> {
    const apiSecret = newApiSecret();
    const made = now();
    if (!(await store.putApiSecret(user.id, apiSecretHash(apiSecret), made, replace))) {
      const since = await store.apiSecretCreatedAt(user.id);
      throw new TxdeskError(
        'CONFLICT',
        `This account already has an API secret${since === undefined ? '' : ` (made ${new Date(since).toISOString()})`}, ` +
          `which is shown only when made: send {"rotate":true} to replace it (the old one stops working at once), or ` +
          `\`txdesk account:api-secret --rotate\`.`,
      );
    }
    return { apiSecret, createdAt: new Date(made).toISOString() };
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

    async authorizeManagement(authorization, what) {
      const token = bearerOf(authorization);
      // No credential, or something that is neither kind (a clientId sent as the bearer, say): say what is needed.
      if (token === undefined || (!isApiSecretShaped(token) && token.split('.').length !== 3)) {
        throw new TxdeskError(
          'UNAUTHORIZED',
          `${what} needs your account's API secret, not only the clientId: send "Authorization: Bearer <API secret>" (make ` +
            `one with \`txdesk account:api-secret\`), or use the txdesk command while logged in.`,
        );
      }
      if (!isApiSecretShaped(token)) {
        const { user } = await verifySession(authorization);
        return { id: user.id, clientId: user.clientId, via: 'session' };
      }
      const user = isWellFormedApiSecret(token) ? await store.byApiSecretHash(apiSecretHash(token)) : undefined;
      if (!user) {
        throw new TxdeskError(
          'UNAUTHORIZED',
          'This API secret is not valid (it was rotated or revoked, or is mistyped): send the current one, or make a new ' +
            'one with `txdesk account:api-secret --rotate`.',
        );
      }
      return { id: user.id, clientId: user.clientId, via: 'api-secret' };
    },

    async issueApiSecret(authorization, input) {
      const { user } = await verifySession(authorization);
      return apiSecretFor(user, input.rotate === true);
    },

    async revokeApiSecret(authorization) {
      const { user } = await verifySession(authorization);
      return { revoked: await store.deleteApiSecret(user.id) };
    },

    async replaceApiSecret(email) {
      const user = await store.byEmail(email.trim().toLowerCase());
      if (!user) throw new TxdeskError('NOT_FOUND', `No account has the e-mail ${email}; create it first.`);
      return apiSecretFor(user, true);
    },
  };
  return accounts;
}

/** The credential of an `Authorization: Bearer <credential>` header, or undefined when there is no such header. */
function bearerOf(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}
