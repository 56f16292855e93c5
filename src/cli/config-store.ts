// Where the CLI keeps its settings (config.json in the user's config folder) and which service endpoint it talks to.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { ensureDir } from '../lib/fs-dirs.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { CliError, usageError } from './cli-errors.js';
import { isServiceUrl, normalizeServiceUrl } from './cli-options.js';
import { DEFAULT_SERVICE_URL } from '../shared/defaults.js';

export const defaultEndpoint = DEFAULT_SERVICE_URL;

/** The parts of the process environment that decide where files go; injectable so tests need no real home. */
export interface Place {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
}

export function currentPlace(): Place {
  return { env: process.env, platform: process.platform, home: homedir() };
}

/** The CLI's config folder: TXDESK_CONFIG_DIR, else the platform's usual per-user config place. */
export function configDir({ env, platform, home }: Place): string {
  if (env.TXDESK_CONFIG_DIR) return env.TXDESK_CONFIG_DIR;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'txdesk');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'txdesk');
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says relative values are invalid and must be ignored.
  return join(xdg?.startsWith('/') ? xdg : join(home, '.config'), 'txdesk');
}

/** Per-user folder for data of `txdesk service` when neither --data-dir nor TXDESK_DATA_DIR says otherwise. */
export function userDataDir({ env, platform, home }: Place): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'txdesk');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'txdesk');
  const xdg = env.XDG_DATA_HOME;
  return join(xdg?.startsWith('/') ? xdg : join(home, '.local', 'share'), 'txdesk');
}

// Unknown keys are kept, so an older txdesk does not wipe settings a newer one wrote.
const configSchema = z.looseObject({ endpoint: z.string().optional() });
export type CliConfig = z.infer<typeof configSchema>;

export interface ConfigStore {
  readonly dir: string;
  readonly file: string;
  read(): CliConfig;
  update(patch: Partial<CliConfig>): CliConfig;
}

export function openConfigStore(dir: string): ConfigStore {
  const file = join(dir, 'config.json');
  const read = (): CliConfig => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw usageError(`Cannot read the config file ${file}: ${(e as Error).message}.`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw usageError(`The config file ${file} is not valid JSON: fix it or delete it.`);
    }
    const parsed = configSchema.safeParse(json);
    if (!parsed.success) throw usageError(`The config file ${file} is not a txdesk config: fix it or delete it.`);
    return parsed.data;
  };
  return {
    dir,
    file,
    read,
    update(patch) {
      const next = { ...read(), ...patch };
      ensurePrivateDir(dir);
      // Write then rename, so a crash never leaves half a file behind.
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, file);
      return next;
    },
  };
}

/** Creates `dir` and its missing parents (new ones mode 0700), or stops the command with one line. */
export function ensurePrivateDir(dir: string): void {
  try {
    ensureDir(dir, 0o700);
  } catch (e) {
    throw new CliError(
      `Cannot create the folder ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): set TXDESK_CONFIG_DIR to a folder you can write.`,
    );
  }
}

export interface Endpoint {
  url: string;
  source: 'TXDESK_ENDPOINT' | 'config' | 'default';
}

/** TXDESK_ENDPOINT beats the config file, which beats the default. A bad value stops the command with one line. */
export function resolveEndpoint(env: NodeJS.ProcessEnv, config: CliConfig, configFile: string): Endpoint {
  const fromEnv = env.TXDESK_ENDPOINT;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isServiceUrl(fromEnv)) {
      throw usageError(
        `TXDESK_ENDPOINT "${fromEnv}" is not a valid service URL: give an http:// or https:// URL such as ${defaultEndpoint}.`,
      );
    }
    return { url: normalizeServiceUrl(fromEnv), source: 'TXDESK_ENDPOINT' };
  }
  if (config.endpoint !== undefined) {
    if (!isServiceUrl(config.endpoint)) {
      throw usageError(`The endpoint "${config.endpoint}" in ${configFile} is not a valid URL: run \`txdesk config:set endpoint <url>\`.`);
    }
    return { url: normalizeServiceUrl(config.endpoint), source: 'config' };
  }
  return { url: defaultEndpoint, source: 'default' };
}
