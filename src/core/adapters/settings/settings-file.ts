// Headless settings persistence: what the user changed in the app, as JSON in `<dataDir>/settings.json`.
// (Electron plugs electron-store in through the same SettingsStore port.)
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDir } from '../../../lib/fs-dirs.js';
import { z } from 'zod';
import { policyPatchSchema } from '../../../shared/desktop-api.js';
import type { Logger } from '../../../lib/log.js';
import type { PersistedSettings, SettingsStore } from '../../ports.js';

export const persistedSettingsSchema = z
  .object({
    clientId: z.string().min(1).max(200).nullable(),
    signedInAs: z.string().max(320).nullable(),
    nodeUrl: z.string().url(),
    serviceUrl: z.string().url(),
    platform: z.string().regex(/^[a-z0-9-]{1,40}$/),
    network: z.string().regex(/^[a-z0-9-]{1,40}$/),
    policy: policyPatchSchema,
  })
  .partial();

export function createFileSettingsStore(dataDir: string, log: Logger): SettingsStore {
  const file = join(dataDir, 'settings.json');
  return {
    load() {
      if (!existsSync(file)) return {};
      try {
        const parsed = persistedSettingsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
        if (parsed.success) return parsed.data as PersistedSettings;
        log.warn(`${file} holds invalid settings (${parsed.error.issues[0]?.path.join('.')}); using defaults. Fix or delete the file.`);
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
