// The signing key in an encrypted file, for machines without a keychain: scrypt derives an AES-256-GCM key from a
// passphrase the user supplies (TXDESK_KEY_PASSPHRASE). Never plaintext; a wrong passphrase fails loudly.
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDir } from '../../../lib/fs-dirs.js';
import { z } from 'zod';
import type { KeyVault } from '../../ports.js';

const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (e, k) => (e ? reject(e) : resolve(k))));

const AAD = Buffer.from('txdesk signing key v1');
/** 2^15 x 8 x 1: about 32 MiB and ~0.1 s per unlock, the OWASP-recommended minimum for scrypt. */
const DEFAULT_KDF = { N: 1 << 15, r: 8, p: 1 };

const fileSchema = z.object({
  version: z.literal(1),
  kdf: z.object({ name: z.literal('scrypt'), N: z.number().int(), r: z.number().int(), p: z.number().int(), salt: z.string() }),
  cipher: z.literal('aes-256-gcm'),
  iv: z.string(),
  tag: z.string(),
  ciphertext: z.string(),
});

export function createEncryptedFileVault(file: string, passphrase: string, kdf = DEFAULT_KDF): KeyVault {
  if (passphrase.length < 8) throw new Error('TXDESK_KEY_PASSPHRASE must be at least 8 characters long; choose a longer passphrase.');
  const derive = (salt: Buffer, k: { N: number; r: number; p: number }) => scrypt(passphrase, salt, 32, { ...k, maxmem: 256 * k.N * k.r + 1024 * 1024 });
  return {
    storage: 'encrypted-file',
    async load() {
      if (!existsSync(file)) return null;
      const parsed = fileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (!parsed.success) throw new Error(`The key file ${file} is damaged; remove it and import the key again.`);
      const f = parsed.data;
      const key = await derive(Buffer.from(f.kdf.salt, 'base64'), f.kdf);
      try {
        const d = createDecipheriv('aes-256-gcm', key, Buffer.from(f.iv, 'base64'));
        d.setAAD(AAD);
        d.setAuthTag(Buffer.from(f.tag, 'base64'));
        return Buffer.concat([d.update(Buffer.from(f.ciphertext, 'base64')), d.final()]).toString('utf8');
      } catch {
        throw new Error(`The key file ${file} cannot be decrypted with TXDESK_KEY_PASSPHRASE; set the passphrase it was saved with.`);
      }
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
}
