// The signing key in an encrypted file, for machines without a keychain: scrypt derives an AES-256-GCM key from a
// passphrase the user supplies (TXDESK_KEY_PASSPHRASE). Never plaintext; a wrong passphrase fails loudly. The scrypt
// parameters read from the file are bounded before use (a crafted file must not ask for gigabytes), and a file weaker
// than today's default is re-encrypted with it on the next unlock.
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDir } from '../../../lib/fs-dirs.js';
import { z } from 'zod';
import { VaultError, type KeyVault } from '../../ports.js';

const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (e, k) => (e ? reject(e) : resolve(k))));

const AAD = Buffer.from('txdesk signing key v1');
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** 2^18 x 8 x 1: 256 MiB and well under a second per unlock, what geth uses for its keystores. */
export const DEFAULT_KDF: ScryptParams = { N: 1 << 18, r: 8, p: 1 };
/** What a key file may ask for: N from 2^17 to 2^20 (at most 1 GiB with r=8), r and p small. */
export const KDF_BOUNDS = { minN: 1 << 17, maxN: 1 << 20, maxR: 8, maxP: 4 } as const;
/** Key files written before the bounds existed used exactly this; they open once and are re-encrypted at once. */
export const LEGACY_KDF: ScryptParams = { N: 1 << 15, r: 8, p: 1 };

const isPowerOfTwo = (n: number) => n > 1 && (n & (n - 1)) === 0;

/** Null when a file's scrypt parameters may be used; else the reason. Pure. */
export function kdfProblem(k: ScryptParams): string | null {
  const legacy = k.N === LEGACY_KDF.N && k.r === LEGACY_KDF.r && k.p === LEGACY_KDF.p;
  if (!legacy && (!isPowerOfTwo(k.N) || k.N < KDF_BOUNDS.minN || k.N > KDF_BOUNDS.maxN))
    return `scrypt N=${k.N} is not a power of two from 2^17 to 2^20`;
  if (k.r < 1 || k.r > KDF_BOUNDS.maxR) return `scrypt r=${k.r} is outside 1..${KDF_BOUNDS.maxR}`;
  if (k.p < 1 || k.p > KDF_BOUNDS.maxP) return `scrypt p=${k.p} is outside 1..${KDF_BOUNDS.maxP}`;
  return null;
}

/** True when a file is weaker than the default and should be written again. */
export const kdfIsWeak = (k: ScryptParams) => k.N < DEFAULT_KDF.N || k.r < DEFAULT_KDF.r;

const fileSchema = z.object({
  version: z.literal(1),
  kdf: z.object({
    name: z.literal('scrypt'),
    N: z.number().int().safe(),
    r: z.number().int().safe(),
    p: z.number().int().safe(),
    salt: z.string().max(200),
  }),
  cipher: z.literal('aes-256-gcm'),
  iv: z.string().max(100),
  tag: z.string().max(100),
  ciphertext: z.string().max(1000),
});

export function createEncryptedFileVault(file: string, passphrase: string, kdf = DEFAULT_KDF): KeyVault {
  if (passphrase.length < 8)
    throw new VaultError('weak-passphrase', 'TXDESK_KEY_PASSPHRASE must be at least 8 characters long; choose a longer passphrase.');
  const problem = kdfProblem(kdf);
  if (problem) throw new VaultError('unsafe-kdf', `The key file's scrypt parameters are out of bounds (${problem}).`);
  const derive = (salt: Buffer, k: ScryptParams) =>
    scrypt(passphrase, salt, 32, { N: k.N, r: k.r, p: k.p, maxmem: 128 * k.N * k.r + 16 * 1024 * 1024 });
  const vault: KeyVault = {
    storage: 'encrypted-file',
    async load() {
      if (!existsSync(file)) return null;
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        throw new VaultError('damaged-file', `The key file ${file} is damaged; remove it and import the key again.`);
      }
      const parsed = fileSchema.safeParse(json);
      if (!parsed.success) throw new VaultError('damaged-file', `The key file ${file} is damaged; remove it and import the key again.`);
      const f = parsed.data;
      // Checked before scrypt runs: N, r and p decide how much memory and time the derivation takes.
      const bad = kdfProblem(f.kdf);
      if (bad)
        throw new VaultError(
          'unsafe-kdf',
          `The key file ${file} asks for unsafe scrypt parameters (${bad}); remove it and import the key again.`,
        );
      const key = await derive(Buffer.from(f.kdf.salt, 'base64'), f.kdf);
      let privateKey: string;
      try {
        const d = createDecipheriv('aes-256-gcm', key, Buffer.from(f.iv, 'base64'));
        d.setAAD(AAD);
        d.setAuthTag(Buffer.from(f.tag, 'base64'));
        privateKey = Buffer.concat([d.update(Buffer.from(f.ciphertext, 'base64')), d.final()]).toString('utf8');
      } catch {
        throw new VaultError(
          'wrong-passphrase',
          `The key file ${file} cannot be decrypted with TXDESK_KEY_PASSPHRASE; set the passphrase it was saved with.`,
        );
      }
      // Weaker than today's default (an older version wrote it): written again with the default now that it is open.
      if (kdfIsWeak(f.kdf) && !kdfIsWeak(kdf)) await vault.save(privateKey);
      return privateKey;
    },
    async save(privateKey) {
      const salt = randomBytes(16);
      const iv = randomBytes(12);
      const key = await derive(salt, kdf);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(AAD);
      const ciphertext = Buffer.concat([c.update(privateKey, 'utf8'), c.final()]);
      const body = {
        version: 1,
        kdf: { name: 'scrypt', ...kdf, salt: salt.toString('base64') },
        cipher: 'aes-256-gcm',
        iv: iv.toString('base64'),
        tag: c.getAuthTag().toString('base64'),
        ciphertext: ciphertext.toString('base64'),
      };
      ensureDir(dirname(file), 0o700);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, file);
    },
    async clear() {
      rmSync(file, { force: true });
    },
  };
  return vault;
}
