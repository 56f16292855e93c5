// The core's SettingsStore port on electron-store: settings changed in the desktop app persist in the user's profile.
import Store from 'electron-store';
import type { PersistedSettings, SettingsStore } from '../core/ports.js';

export function createElectronSettingsStore(cwd?: string): SettingsStore {
  const store = new Store<{ settings: PersistedSettings }>({ name: 'settings', defaults: { settings: {} }, ...(cwd ? { cwd } : {}) });
  return {
    load: () => {
      const value = store.get('settings');
      // A hand-edited or corrupted file must not crash start-up; the core validates the fields themselves.
      return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
    },
    save: (settings) => store.set('settings', settings),
  };
}
