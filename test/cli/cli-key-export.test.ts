// `txdesk key export` through the real binary: the stored key of a data dir (here the encrypted key file, no keychain)
// comes out as a v3 keystore that opens with the export passphrase, to stdout or to a new 0600 file; nothing stored,
// an existing --out file, a short passphrase and a missing --passphrase-stdin are refused in one line each.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncryptedFileVault } from '../../src/core/adapters/vault/vault-file.js';
import { ensureCliBuilt, runCli } from '../support/cli/cli-binary.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-cli-key-'));
const dataDir = join(dir, 'data');
const wallet = Wallet.createRandom();
const env = {
  ...process.env,
  TXDESK_KEYCHAIN: 'off',
  TXDESK_KEY_PASSPHRASE: 'the vault passphrase',
  TXDESK_DATA_DIR: '',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent',
};

beforeAll(async () => {
  ensureCliBuilt();
  await createEncryptedFileVault(join(dataDir, 'signing-key.configured.enc.json'), env.TXDESK_KEY_PASSPHRASE).save(wallet.privateKey);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('txdesk key export', () => {
  it('prints a keystore that opens with the export passphrase, and never the key', async () => {
    const r = await runCli(['key', 'export', '--data-dir', dataDir, '--passphrase-stdin'], { env, input: 'export passphrase\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(`^Exported ${wallet.address.toLowerCase()} \\(configured key, encrypted-file\\); suggested file name UTC--`),
    );
    expect((r.stdout + r.stderr).toLowerCase()).not.toContain(wallet.privateKey.slice(2).toLowerCase());
    expect((await Wallet.fromEncryptedJson(r.stdout, 'export passphrase')).address).toBe(wallet.address);
  }, 120_000);

  it('writes --out as a new file with mode 0600 and never overwrites one', async () => {
    const out = join(dir, 'key.json');
    const r = await runCli(['key', 'export', '--data-dir', dataDir, '--out', out, '--passphrase-stdin'], {
      env,
      input: 'export passphrase',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ version: 3, address: wallet.address.slice(2).toLowerCase() });
    writeFileSync(out, 'keep me');
    const again = await runCli(['key', 'export', '--data-dir', dataDir, '--out', out, '--passphrase-stdin'], {
      env,
      input: 'export passphrase',
    });
    expect([again.code, again.stderr.trim()]).toEqual([
      1,
      `${out} already exists; choose another --out file (an export never overwrites one).`,
    ]);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
  }, 120_000);

  it('refuses in one line: nothing stored, a short passphrase, no terminal and no --passphrase-stdin', async () => {
    const none = await runCli(['key', 'export', '--data-dir', join(dir, 'empty'), '--passphrase-stdin'], {
      env,
      input: 'export passphrase',
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^No signing key is stored for the data dir .*empty/);
    const short = await runCli(['key', 'export', '--data-dir', dataDir, '--passphrase-stdin'], { env, input: 'short' });
    expect([short.code, short.stderr.trim()]).toEqual([2, 'The export passphrase must have at least 8 characters; choose a longer one.']);
    const noFlag = await runCli(['key', 'export', '--data-dir', dataDir], { env });
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toMatch(/needs --passphrase-stdin/);
    const scope = await runCli(['key', 'export', '--scope', 'mainnet'], { env });
    expect([scope.code, scope.stderr.trim()]).toEqual([2, 'Invalid --scope "mainnet": give configured or embedded.']);
  }, 120_000);
});
