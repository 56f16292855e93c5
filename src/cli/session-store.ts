// Keeps the login session token per service origin: in the OS keychain, or in a user-only file where there is none.
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir } from './config-store.js';

export const keychainService = 'txdesk';

const require = createRequire(import.meta.url);

/** One keychain item; every method may throw when no keychain is reachable. */
export interface KeychainEntry {
  get(): string | null;
  set(secret: string): void;
  delete(): boolean;
}

export type OpenKeychainEntry = (service: string, account: string) => KeychainEntry;

/** The real OS keychain. On Linux it is pinned to the Secret Service: the library's fallback to the kernel keyring
 * would keep the token only until logout or reboot, which is worse than the 0600 file. */
export const openOsKeychainEntry: OpenKeychainEntry = (service, account) => {
  // Loaded on first use, not with the CLI: the native module costs every start ~0.1 CPU-s, and most commands (and
  // every one with TXDESK_KEYCHAIN=off) never open the keychain.
  const { Entry } = require('@napi-rs/keyring') as typeof import('@napi-rs/keyring');
  const entry = new Entry(service, account, process.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined);
  return {
    get: () => entry.getPassword() ?? null,
    set: (secret) => entry.setPassword(secret),
    delete: () => entry.deleteCredential(),
  };
};

export type SessionLocation = 'keychain' | 'file';

export interface SavedSession {
  token: string;
  location: SessionLocation;
}

export interface SessionStore {
  readonly file: string;
  load(origin: string): SavedSession | null;
  /** Returns where the token went and, when that is the file, the warning to show. */
  save(origin: string, token: string): { location: SessionLocation; warning?: string };
  /** Removes the session wherever it is; false when there was none. */
  remove(origin: string): boolean;
}

export interface SessionStoreOptions {
  configDir: string;
  /** False skips the keychain entirely (TXDESK_KEYCHAIN=off). */
  useKeychain?: boolean;
  openEntry?: OpenKeychainEntry;
}

const sessionFileSchema = z.object({
  sessions: z.record(z.string(), z.object({ token: z.string().min(1) })),
});
type SessionFile = z.infer<typeof sessionFileSchema>;

export function openSessionStore({ configDir, useKeychain = true, openEntry = openOsKeychainEntry }: SessionStoreOptions): SessionStore {
  const file = join(configDir, 'session.json');

  const keychain = <T>(origin: string, use: (entry: KeychainEntry) => T): { ok: true; value: T } | { ok: false; reason: string } => {
    if (!useKeychain) return { ok: false, reason: 'turned off by TXDESK_KEYCHAIN=off' };
    try {
      return { ok: true, value: use(openEntry(keychainService, origin)) };
    } catch (e) {
      return { ok: false, reason: oneLine((e as Error).message) };
    }
  };

  const readFile = (): SessionFile => {
    try {
      const parsed = sessionFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      // A damaged file holds no usable session; the next login rewrites it.
      return parsed.success ? parsed.data : { sessions: {} };
    } catch {
      return { sessions: {} };
    }
  };

  const writeFile = (content: SessionFile): void => {
    if (Object.keys(content.sessions).length === 0) {
      rmSync(file, { force: true });
      return;
    }
    ensurePrivateDir(configDir);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600); // `mode` applies only when the file is created; a leftover tmp file keeps its own
    renameSync(tmp, file);
  };

  const removeFromFile = (origin: string): boolean => {
    const content = readFile();
    if (!(origin in content.sessions)) return false;
    delete content.sessions[origin];
    writeFile(content);
    return true;
  };

  return {
    file,
    load(origin) {
      const fromKeychain = keychain(origin, (entry) => entry.get());
      if (fromKeychain.ok && fromKeychain.value) return { token: fromKeychain.value, location: 'keychain' };
      const token = readFile().sessions[origin]?.token;
      return token ? { token, location: 'file' } : null;
    },
    save(origin, token) {
      const stored = keychain(origin, (entry) => entry.set(token));
      if (stored.ok) {
        removeFromFile(origin); // a session from a time without keychain must not outlive this one
        return { location: 'keychain' };
      }
      const content = readFile();
      content.sessions[origin] = { token };
      writeFile(content);
      return {
        location: 'file',
        warning: `Warning: no OS keychain available (${stored.reason}); the session token is saved in ${file}, readable only by you.`,
      };
    },
    remove(origin) {
      const fromKeychain = keychain(origin, (entry) => entry.delete());
      const fromFile = removeFromFile(origin);
      return (fromKeychain.ok && fromKeychain.value) || fromFile;
    },
  };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** The `exp` claim of a JWT in epoch seconds, or null when the token is not a JWT or has none. */
export function tokenExpiry(token: string): number | null {
  const payload = token.split('.')[1];
  if (token.split('.').length !== 3 || payload === undefined) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : null;
  } catch {
    return null;
  }
}
