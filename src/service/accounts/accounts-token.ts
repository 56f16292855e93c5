// Session tokens: HS256 JSON Web Tokens signed with node:crypto. Pure functions; the secret and the clock are arguments.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface TokenClaims {
  /** The user's row id, as a string. */
  sub: string;
  /** The user's token generation: changing the password bumps it, which revokes every older token. */
  gen: number;
  iat: number;
  exp: number;
  /** A random id per issued token: without it two logins in the same second get the same token, and logging one
   * session out would end the other. Tokens issued before it existed have none and still verify. */
  jti?: string;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' };

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

function base64url(text: string | Buffer): string {
  return Buffer.from(text).toString('base64url');
}

function sign(input: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(input).digest();
}

export function issueToken(secret: Buffer, sub: string, gen: number, nowSeconds: number, ttlSeconds: number, jti?: string): string {
  const claims: TokenClaims = { sub, gen, iat: nowSeconds, exp: nowSeconds + ttlSeconds, ...(jti !== undefined ? { jti } : {}) };
  const payload = base64url(JSON.stringify(claims));
  const input = `${HEADER}.${payload}`;
  return `${input}.${sign(input, secret).toString('base64url')}`;
}

export function verifyToken(secret: Buffer, token: string, nowSeconds: number): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  // Only our own header is accepted, which rules out `alg: none` and algorithm confusion.
  if (header !== HEADER) return { ok: false, reason: 'malformed' };
  const expected = sign(`${header}.${payload}`, secret);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad-signature' };
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!isClaims(claims)) return { ok: false, reason: 'malformed' };
  if (nowSeconds >= claims.exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

function isClaims(v: unknown): v is TokenClaims {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  return (
    typeof c.sub === 'string' &&
    Number.isInteger(c.gen) &&
    Number.isInteger(c.iat) &&
    Number.isInteger(c.exp) &&
    (c.jti === undefined || typeof c.jti === 'string')
  );
}

/**
 * The key under which a verified token is revoked: a SHA-256 of its signed part (header and payload). Not of the whole
 * string: base64url decoding is lenient (a trailing "=", other low bits in the last character), so one signature has
 * several spellings that all verify, while the signed part has exactly one.
 */
export function tokenId(token: string): string {
  const signed = token.slice(0, token.lastIndexOf('.'));
  return createHash('sha256').update(signed).digest('hex');
}
