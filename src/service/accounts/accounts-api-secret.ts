// API secrets: the long-lived credential an account's programs manage webhooks with (docs/webhooks.md, "Who may manage
// webhooks"). Pure functions: making one, the hash the store keeps, and telling one apart from a session token.
import { createHash, randomBytes } from 'node:crypto';

/** Every API secret starts with it, so a secret scanner (or a person) recognises one in a log or a repository. */
export const API_SECRET_PREFIX = 'txdesk_sk_';
/** 32 random bytes in base64url. */
const API_SECRET_PATTERN = /^txdesk_sk_[A-Za-z0-9_-]{43}$/;

export function newApiSecret(): string {
  return `${API_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * What the store keeps of a secret: its SHA-256 in hex. A fast hash is enough for 256 random bits (no dictionary to
 * try), and it keeps a request's check to one indexed lookup; a stolen table holds nothing that authenticates.
 */
export function apiSecretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** True for the shape of an API secret (session tokens are JWTs: three dot-separated parts, never this prefix). */
export function isApiSecretShaped(credential: string): boolean {
  return credential.startsWith(API_SECRET_PREFIX);
}

/** True only for a well-formed secret; a malformed one is refused without a database lookup. */
export function isWellFormedApiSecret(credential: string): boolean {
  return API_SECRET_PATTERN.test(credential);
}
