// Chooses where the signing key rests: the OS keychain when one works, else an encrypted file when the user gave a
// passphrase, else (embedded dev chain only) memory. A real network without keychain or passphrase gets no vault.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from '../../../lib/log.js';
import type { KeyVault } from '../../ports.js';
import { createEncryptedFileVault } from './vault-file.js';
import { createKeyringVault, keychainWorks } from './vault-keyring.js';
import { createMemoryVault } from './vault-memory.js';

export interface VaultChoice {
  dataDir: string;
  /** Keys of the embedded dev chain and of a configured network are kept apart. */
  scope: 'embedded' | 'configured';
  passphrase: string | undefined;
  /** Injected in tests; defaults to a real write/read/delete probe of the keychain. */
  keychainAvailable?: () => Promise<boolean>;
  log: Logger;
}

/** Returns null when no safe place exists; the caller then explains how to provide one. */
export async function selectKeyVault(c: VaultChoice): Promise<KeyVault | null> {
  if (await (c.keychainAvailable ?? keychainWorks)()) {
    // One keychain entry per data dir, so two installs (or parallel tests) never share a key by accident.
    const dirId = createHash('sha256').update(c.dataDir).digest('hex').slice(0, 16);
    return createKeyringVault(`signing-key:${c.scope}:${dirId}`);
  }
  if (c.passphrase) {
    c.log.info('No OS keychain available: the signing key is kept in an encrypted file (scrypt + AES-256-GCM).');
    return createEncryptedFileVault(join(c.dataDir, `signing-key.${c.scope}.enc.json`), c.passphrase);
  }
  if (c.scope === 'embedded') {
    c.log.warn('No OS keychain and no TXDESK_KEY_PASSPHRASE: the dev-chain key lives in memory for this run only.');
    return createMemoryVault();
  }
  return null;
}
