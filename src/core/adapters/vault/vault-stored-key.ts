// Reads the app's stored signing key from a data dir without starting the app, for `txdesk key export`: the same
// vault choice as the core (keychain entry per data dir, else the encrypted file with TXDESK_KEY_PASSPHRASE).
import type { Logger } from '../../../lib/log.js';
import { selectKeyVault } from './vault-select.js';
import { readEnv, resolveDataDir } from '../../config.js';
import { normalizePrivateKey, privateKeyProblem } from '../../domain/private-key.js';
import type { KeyStorage } from '../../ports.js';

export type KeyScope = 'configured' | 'embedded';

export interface StoredKey {
  privateKey: string;
  scope: KeyScope;
  storage: KeyStorage;
  dataDir: string;
}

/**
 * The key of `scope`, or when none is given the configured network's key if one is stored, else the dev chain's.
 * Throws one sentence when nothing is stored, or the key is unusable; `TXDESK_KEYCHAIN=off` skips the keychain.
 */
export async function readStoredKey(o: { dataDir?: string; scope?: KeyScope; env: NodeJS.ProcessEnv; log: Logger }): Promise<StoredKey> {
  const e = readEnv(o.env);
  const dataDir = resolveDataDir(o.dataDir, o.env);
  const keychainAvailable = e.TXDESK_KEYCHAIN === 'off' ? async () => false : undefined;
  for (const scope of o.scope ? [o.scope] : (['configured', 'embedded'] as const)) {
    const vault = await selectKeyVault({
      dataDir,
      scope,
      passphrase: e.TXDESK_KEY_PASSPHRASE,
      log: o.log,
      ...(keychainAvailable ? { keychainAvailable } : {}),
    });
    // Memory holds nothing between runs: there is nothing to read back.
    if (!vault || vault.storage === 'memory') continue;
    const key = await vault.load();
    if (!key) continue;
    const problem = privateKeyProblem(key);
    if (problem) throw new Error(`The stored ${scope} key in ${dataDir} is unusable (${problem}); there is nothing worth exporting.`);
    return { privateKey: normalizePrivateKey(key), scope, storage: vault.storage, dataDir };
  }
  const which = o.scope ? `${o.scope} ` : '';
  throw new Error(
    `No ${which}signing key is stored for the data dir ${dataDir} (keychain, or the encrypted file with ` +
      `TXDESK_KEY_PASSPHRASE); check --data-dir and the passphrase.`,
  );
}
