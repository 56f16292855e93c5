// The signing key in the OS keychain (macOS Keychain, Windows Credential Manager, Secret Service) via @napi-rs/keyring.
import { AsyncEntry } from '@napi-rs/keyring';
import { VaultError, type KeyVault } from '../../ports.js';

export const KEYRING_SERVICE = 'txdesk';

/** The first probe's answer per service, for the life of the process. */
const probes = new Map<string, Promise<boolean>>();

/**
 * True when a keychain can really store a secret. A read alone proves nothing: without a Secret Service,
 * `getPassword` on Linux answers null instead of failing, so the probe writes, reads back and deletes. The first
 * answer stands for the process: under Node 22 without a Secret Service, @napi-rs/keyring refuses the first write and
 * accepts later ones into the kernel's keyring (gone at the next reboot), which must never hold the signing key.
 */
export function keychainWorks(service = KEYRING_SERVICE): Promise<boolean> {
  let answer = probes.get(service);
  if (!answer) {
    answer = probeKeychain(service);
    probes.set(service, answer);
  }
  return answer;
}

async function probeKeychain(service: string): Promise<boolean> {
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
        throw new VaultError('keychain-unreadable', 'The OS keychain could not be read; unlock it and try again.');
      }
    },
    async save(privateKey) {
      try {
        await entry.setPassword(privateKey);
      } catch {
        throw new VaultError('keychain-refused', 'The OS keychain refused to store the key; unlock it and try again.');
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
