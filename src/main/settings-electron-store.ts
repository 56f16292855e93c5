// The core's SettingsStore port on electron-store: settings changed in the desktop app persist in the user's profile.
// What is read back passes the same field-by-field validation as settings.json: the file is outside our control.
import Store from 'electron-store';
import { droppedWarning, validatePersistedSettings } from '../core/create-core.js';
import type { PersistedSettings, SettingsStore } from '../core/ports.js';
import type { Logger } from '../lib/log.js';

export function createElectronSettingsStore(cwd?: string, log?: Logger): SettingsStore {
  const store = new Store<{ settings: PersistedSettings }>({
    name: 'settings',
    defaults: { settings: {} },
    clearInvalidConfig: true,
    ...(cwd ? { cwd } : {}),
  });
  return {
    load: () => {
      let raw: unknown;
      try {
        raw = store.get('settings');
      } catch {
        raw = undefined;
      }
      const { settings, dropped } = validatePersistedSettings(raw);
      if (dropped.length) log?.warn(droppedWarning(store.path, dropped));
      return settings;
    },
    save: (settings) => store.set('settings', settings),
  };
}
