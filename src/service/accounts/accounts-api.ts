// What the accounts offer the rest of the service (the listing's clientId check, the routes, webhook management), as
// an interface of its own so the routes can take it without importing the implementation (accounts.ts) that mounts them.
import type { DocumentedRoute } from '../../lib/hono-kit.js';
import type { ApiSecretInput, LoginInput, PasswdInput, SignupInput } from './accounts-schemas.js';

export interface Profile {
  email: string;
  name: string;
  organization: string;
  clientId: string;
}

export interface Session extends Profile {
  jwtToken: string;
}

/** A new API secret: the secret itself is in this answer only, never stored or shown again. */
export interface ApiSecretIssued {
  apiSecret: string;
  createdAt: string;
}

/** The account a management request acts for, and which credential said so. */
export interface Manager {
  id: number;
  clientId: string;
  via: 'api-secret' | 'session';
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
  /**
   * The account that requests state changes or another party's data (webhook management), from the `Authorization:
   * Bearer` header: the account's API secret, or a session token (what `txdesk` sends). Never the clientId alone,
   * which the listing puts in URLs. `what` opens the 401's sentence ("Managing webhooks").
   */
  authorizeManagement(authorization: string | undefined, what: string): Promise<Manager>;
  /** Makes the signed-in account's API secret; 409 when it has one and `rotate` is not set (programs may be using it). */
  issueApiSecret(authorization: string | undefined, input: ApiSecretInput): Promise<ApiSecretIssued>;
  /** Ends the signed-in account's API secret; `revoked` is false when it had none. */
  revokeApiSecret(authorization: string | undefined): Promise<{ revoked: boolean }>;
  /** For code (the dev account, an operator's script, tests): a new API secret for the account of `email`, ending the
   * one it had. */
  replaceApiSecret(email: string): Promise<ApiSecretIssued>;
}
