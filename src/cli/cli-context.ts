// What the account commands share: the config store, the session store, the endpoint they talk to and the session
// logged in to it.
import { CliError, notLoggedInMessage, usageError } from './cli-errors.js';
import { configDir, currentPlace, openConfigStore, resolveEndpoint, type ConfigStore, type Endpoint, type Place } from './config-store.js';
import { openSessionStore, tokenExpiry, type SessionStore } from './session-store.js';

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

/** The endpoint and the token of the session logged in to it; refuses, saying what to run, when there is none or it has expired. */
export function liveSession(ctx: CliContext): { endpoint: Endpoint; token: string } {
  const endpoint = ctx.endpoint();
  const session = ctx.sessions.load(new URL(endpoint.url).origin);
  if (!session) throw new CliError(notLoggedInMessage(endpoint));
  const exp = tokenExpiry(session.token);
  if (exp !== null && exp * 1000 < Date.now()) throw new CliError('Your session has expired: run `txdesk login` again.');
  return { endpoint, token: session.token };
}
