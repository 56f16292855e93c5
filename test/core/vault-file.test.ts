// The key vault without a keychain: no D-Bus session (set before the keyring library first looks), so the
// encrypted file (with a passphrase) or memory (dev chain only) must take over.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import { createEncryptedFileVault } from '../../src/core/adapters/vault/vault-file.js';
import { keychainWorks } from '../../src/core/adapters/vault/vault-keyring.js';
import { selectKeyVault } from '../../src/core/adapters/vault/vault-select.js';
import { silentLogger } from '../../src/lib/log.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-vault-'));
const key = Wallet.createRandom().privateKey;
process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent';

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
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
    expect(JSON.parse(text)).toMatchObject({ version: 1, kdf: { name: 'scrypt' }, cipher: 'aes-256-gcm' });
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(await v!.load()).toBe(key);

    const wrong = createEncryptedFileVault(file, 'not the passphrase');
    const err = await wrong.load().then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/cannot be decrypted with TXDESK_KEY_PASSPHRASE/);
    expect(err?.message).not.toContain(key.slice(2));
    await v!.clear();
    expect(await v!.load()).toBeNull();
  });

  it('rejects a short passphrase', () => {
    expect(() => createEncryptedFileVault(join(dir, 'x.json'), 'short')).toThrow(/at least 8 characters/);
  });

  it('keeps a dev-chain key in memory only, and offers nothing for a real network', async () => {
    const mem = await selectKeyVault({ dataDir: join(dir, 'm'), scope: 'embedded', passphrase: undefined, log: silentLogger });
    expect(mem?.storage).toBe('memory');
    expect(await selectKeyVault({ dataDir: join(dir, 'm'), scope: 'configured', passphrase: undefined, log: silentLogger })).toBeNull();
  });
});
