// The key vault on a real Secret Service (gnome-keyring over D-Bus).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import { selectKeyVault } from '../../../src/core/adapters/vault/vault-select.js';
import { silentLogger } from '../../../src/lib/log.js';
import { ensureSecretService, type SecretService } from '../../support/app/core-keyring.js';
import { keychainSuites } from '../../support/required-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-vault-'));
const key = Wallet.createRandom().privateKey;
let ss: SecretService;

beforeAll(async () => {
  ss = await ensureSecretService();
});
afterAll(() => {
  ss?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('vault on a real Secret Service', () => {
  it('stores, reads back and clears the key in the keychain, one entry per data dir', async (ctx) => {
    if (!keychainSuites(ss.available)) ctx.skip();
    const a = await selectKeyVault({ dataDir: join(dir, 'a'), scope: 'configured', passphrase: undefined, log: silentLogger });
    const b = await selectKeyVault({ dataDir: join(dir, 'b'), scope: 'configured', passphrase: undefined, log: silentLogger });
    expect(a?.storage).toBe('keychain');
    await a!.save(key);
    expect(await a!.load()).toBe(key);
    expect(await b!.load()).toBeNull();
    await a!.clear();
    expect(await a!.load()).toBeNull();
  });
});
