// Password hashing for service accounts: scrypt with a per-user salt, encoded with its parameters so they can change later.
import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
const DEFAULT_PARAMS = { N: 16384, r: 8, p: 1 } as const;

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function encode(params: { N: number; r: number; p: number }, salt: Buffer, key: Buffer): string {
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

interface Decoded {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function decode(stored: string): Decoded | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (!Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p)) return null;
  return { N, r, p, salt: Buffer.from(parts[4]!, 'base64'), key: Buffer.from(parts[5]!, 'base64') };
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, { ...DEFAULT_PARAMS, maxmem: 64 * 1024 * 1024 });
  return encode(DEFAULT_PARAMS, salt, key);
}

/** Synchronous variant for programmatic account creation at start-up (never on a request path). */
export function hashPasswordSync(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, KEY_LENGTH, { ...DEFAULT_PARAMS, maxmem: 64 * 1024 * 1024 });
  return encode(DEFAULT_PARAMS, salt, key);
}

/**
 * A hash of a random password with the default parameters. Login checks unknown e-mails against it, so an unknown
 * e-mail costs the same scrypt work as a known one and the response time does not reveal which e-mails exist.
 */
let dummyHash: string | undefined;
export function getDummyHash(): string {
  dummyHash ??= hashPasswordSync(randomBytes(16).toString('hex'));
  return dummyHash;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const d = decode(stored) ?? decode(getDummyHash())!;
  const key = await scryptAsync(password, d.salt, d.key.length, { N: d.N, r: d.r, p: d.p, maxmem: 64 * 1024 * 1024 });
  return key.length === d.key.length && timingSafeEqual(key, d.key);
}
