// The signing key in the OS keychain (macOS Keychain, Windows Credential Manager, Secret Service) via @napi-rs/keyring.
import { AsyncEntry } from '@napi-rs/keyring';
import type { KeyVault } from '../../ports.js';

export const KEYRING_SERVICE = 'txdesk';

/**
 * True when a keychain can really store a secret. A read alone proves nothing: without a Secret Service,
 * `getPassword` on Linux answers null instead of failing, so the probe writes, reads back and deletes.
 */
export async function keychainWorks(service = KEYRING_SERVICE): Promise<boolean> {
  const probe = new AsyncEntry(service, `probe-${process.pid}-${Date.now()}`);
  try {
    await probe.setPassword('probe');
    const back = await probe.getPassword();
    await probe.deletePassword();
    return back === 'probe';
  } catch {
    return false;
  }
}

export function createKeyringVault(account: string, service = KEYRING_SERVICE): KeyVault {
  const entry = new AsyncEntry(service, account);
  return {
    storage: 'keychain',
    async load() {
      try {
        return await entry.getPassword();
      } catch {
        // The message of a keychain error can echo attributes; never pass it on.
        throw new Error('The OS keychain could not be read; unlock it and try again.');
      }
    },
    async save(privateKey) {
      try {
        await entry.setPassword(privateKey);
      } catch {
        throw new Error('The OS keychain refused to store the key; unlock it and try again.');
      }
    },
    async clear() {
      try {
        await entry.deletePassword();
      } catch {
        /* nothing stored */
      }
    },
  };
}
