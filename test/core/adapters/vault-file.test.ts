// The key vault without a keychain: no D-Bus session (set before the keyring library first looks), so the
// encrypted file (with a passphrase) or memory (dev chain only) must take over.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import { createEncryptedFileVault } from '../../../src/core/adapters/vault/vault-file.js';
import { keychainWorks } from '../../../src/core/adapters/vault/vault-keyring.js';
import { selectKeyVault } from '../../../src/core/adapters/vault/vault-select.js';
import { silentLogger } from '../../../src/lib/log.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-vault-'));
const key = Wallet.createRandom().privateKey;
const dbus = process.env.DBUS_SESSION_BUS_ADDRESS;
process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent';

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  // Other files may run in this process after this one (the unit project's isolate: false).
  if (dbus === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
  else process.env.DBUS_SESSION_BUS_ADDRESS = dbus;
});

describe('vault without a keychain', () => {
  it('detects that no keychain works', async () => {
    expect(await keychainWorks()).toBe(false);
  });

  it('uses an encrypted file when a passphrase is given, and never writes the key in clear', async () => {
    const dataDir = join(dir, 'file');
    const v = await selectKeyVault({ dataDir, scope: 'configured', passphrase: 'correct horse battery', log: silentLogger });
    expect(v?.storage).toBe('encrypted-file');
    await v!.save(key);
    const file = join(dataDir, 'signing-key.configured.enc.json');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(key.slice(2));
    expect(text).not.toContain(Buffer.from(key).toString('base64'));
    // What selectKeyVault writes is a new file with today's parameters.
    expect(JSON.parse(text)).toMatchObject({ version: 1, kdf: { name: 'scrypt', N: 2 ** 18, r: 8, p: 1 }, cipher: 'aes-256-gcm' });
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(await v!.load()).toBe(key);

    const wrong = createEncryptedFileVault(file, 'not the passphrase');
    const err = await wrong.load().then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/cannot be decrypted with TXDESK_KEY_PASSPHRASE/);
    expect(err).toMatchObject({ name: 'VaultError', reason: 'wrong-passphrase' });
    expect(err?.message).not.toContain(key.slice(2));
    await v!.clear();
    expect(await v!.load()).toBeNull();
  });

  it('rejects a short passphrase', () => {
    expect(() => createEncryptedFileVault(join(dir, 'x.json'), 'short')).toThrow(
      expect.objectContaining({ reason: 'weak-passphrase', message: expect.stringMatching(/at least 8 characters/) }),
    );
  });

  it('keeps a dev-chain key in memory only, and offers nothing for a real network', async () => {
    const mem = await selectKeyVault({ dataDir: join(dir, 'm'), scope: 'embedded', passphrase: undefined, log: silentLogger });
    expect(mem?.storage).toBe('memory');
    expect(await selectKeyVault({ dataDir: join(dir, 'm'), scope: 'configured', passphrase: undefined, log: silentLogger })).toBeNull();
  });
});

describe('key file parameters are bounded before scrypt runs', () => {
  const passphrase = 'correct horse battery';
  const fresh = join(dir, 'new.enc.json');
  const tamper = (file: string, kdf: Record<string, number>) => {
    const body = JSON.parse(readFileSync(fresh, 'utf8')) as { kdf: Record<string, unknown> };
    writeFileSync(file, JSON.stringify({ ...body, kdf: { ...body.kdf, ...kdf } }), { mode: 0o600 });
  };

  // New files get N=2^18 (checked above, on the file selectKeyVault writes); the file tampered with below is written with
  // the lowest N allowed, as each scrypt run at 2^18 costs a second of CPU and refusals never derive.
  it('writes the scrypt parameters it is given', async () => {
    await createEncryptedFileVault(fresh, passphrase, { N: 2 ** 17, r: 8, p: 1 }).save(key);
    expect(JSON.parse(readFileSync(fresh, 'utf8')).kdf).toMatchObject({ N: 2 ** 17, r: 8, p: 1 });
  });

  it.each([
    ['N=2^30', { N: 2 ** 30 }, /N=1073741824/],
    ['N=2^21', { N: 2 ** 21 }, /N=2097152/],
    ['N=2^16', { N: 2 ** 16 }, /N=65536/],
    ['N not a power of two', { N: 2 ** 18 + 1 }, /power of two/],
    ['r=1000', { r: 1000 }, /r=1000/],
    ['r=0', { r: 0 }, /r=0/],
    ['p=64', { p: 64 }, /p=64/],
    ['N beyond a safe integer', { N: 2 ** 60 }, /damaged/],
  ])('refuses a file with %s at once, without deriving', async (_name, kdf, message) => {
    const file = join(dir, `tampered-${_name.replace(/\W/g, '')}.enc.json`);
    const vault = createEncryptedFileVault(file, passphrase);
    tamper(file, kdf);
    const started = performance.now();
    const err = await vault.load().then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(message);
    expect(err?.message).toMatch(new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    // An N=2^30 derivation would need 128 GiB and minutes: a refusal this fast never started it.
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('opens a file an older version wrote (N=2^15) and re-encrypts it with N=2^18 on that unlock', async () => {
    const file = join(dir, 'legacy.enc.json');
    await createEncryptedFileVault(file, passphrase, { N: 2 ** 15, r: 8, p: 1 }).save(key);
    expect(JSON.parse(readFileSync(file, 'utf8')).kdf.N).toBe(2 ** 15);
    const vault = createEncryptedFileVault(file, passphrase);
    expect(await vault.load()).toBe(key);
    expect(JSON.parse(readFileSync(file, 'utf8')).kdf).toMatchObject({ N: 2 ** 18, r: 8, p: 1 });
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(await vault.load()).toBe(key);
  });

  it('refuses to write with parameters outside the bounds', () => {
    expect(() => createEncryptedFileVault(join(dir, 'x.json'), passphrase, { N: 2 ** 30, r: 8, p: 1 })).toThrow(/out of bounds/);
  });
});
