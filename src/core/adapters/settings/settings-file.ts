// Headless settings persistence: what the user changed in the app, as JSON in `<dataDir>/settings.json`.
// (Electron plugs electron-store in through the same SettingsStore port.)
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDir } from '../../../lib/fs-dirs.js';
import type { Logger } from '../../../lib/log.js';
import type { PersistedSettings, SettingsStore } from '../../ports.js';
import { droppedWarning, validatePersistedSettings } from './settings-validate.js';

export function createFileSettingsStore(dataDir: string, log: Logger): SettingsStore {
  const file = join(dataDir, 'settings.json');
  return {
    load() {
      if (!existsSync(file)) return {};
      try {
        const { settings, dropped } = validatePersistedSettings(JSON.parse(readFileSync(file, 'utf8')));
        if (dropped.length) log.warn(droppedWarning(file, dropped));
        return settings;
      } catch {
        log.warn(`${file} is not valid JSON; using defaults. Fix or delete the file.`);
      }
      return {};
    },
    save(settings) {
      ensureDir(dirname(file));
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
      renameSync(tmp, file);
    },
  };
}

export function createMemorySettingsStore(initial: PersistedSettings = {}): SettingsStore {
  let s = structuredClone(initial);
  return { load: () => structuredClone(s), save: (n) => void (s = structuredClone(n)) };
}
