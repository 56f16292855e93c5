// A key kept only in this process's memory: used for the embedded dev chain when there is neither a keychain nor a
// passphrase. The dev chain itself is new on every start, so a key that dies with the process loses nothing.
import type { KeyVault } from '../../ports.js';

export function createMemoryVault(): KeyVault {
  let key: string | null = null;
  return {
    storage: 'memory',
    load: async () => key,
    save: async (k) => {
      key = k;
    },
    clear: async () => {
      key = null;
    },
  };
}
