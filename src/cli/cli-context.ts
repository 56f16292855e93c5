// What the account commands share: the config store, the session store and the endpoint they talk to.
import { usageError } from './cli-errors.js';
import { configDir, currentPlace, openConfigStore, resolveEndpoint, type ConfigStore, type Endpoint, type Place } from './config-store.js';
import { openSessionStore, type SessionStore } from './session-store.js';

export interface CliContext {
  place: Place;
  config: ConfigStore;
  sessions: SessionStore;
  /** Resolved on use, so a bad TXDESK_ENDPOINT only stops commands that need the endpoint. */
  endpoint(): Endpoint;
  out(line: string): void;
  err(line: string): void;
}

export function createCliContext(place: Place = currentPlace()): CliContext {
  const dir = configDir(place);
  const config = openConfigStore(dir);
  return {
    place,
    config,
    sessions: openSessionStore({ configDir: dir, useKeychain: keychainSetting(place.env.TXDESK_KEYCHAIN) }),
    endpoint: () => resolveEndpoint(place.env, config.read(), config.file),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}

/** TXDESK_KEYCHAIN: unset or "on" uses the OS keychain, "off" only the session file. */
function keychainSetting(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'on') return true;
  if (value === 'off') return false;
  throw usageError(`TXDESK_KEYCHAIN "${value}" is not valid: set it to off (only the session file) or on, or leave it unset.`);
}
