// A private Secret Service for keychain tests: a session D-Bus plus an unlocked gnome-keyring (with its own
// XDG dirs), unless the test process already runs inside one (scripts/test.sh does that for `npm test`).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keychainWorks } from '../../../src/core/adapters/vault/vault-keyring.js';
import { waitFor } from '../poll.js';

export interface SecretService {
  /** False when neither a session keychain nor dbus-daemon + gnome-keyring-daemon are available. */
  available: boolean;
  stop(): void;
}

export async function ensureSecretService(): Promise<SecretService> {
  // Probe an existing session only: the keyring library keeps using the first answer it got from a bus.
  if (process.env.DBUS_SESSION_BUS_ADDRESS && (await keychainWorks())) return { available: true, stop() {} };
  const children: ChildProcess[] = [];
  const home = mkdtempSync(join(tmpdir(), 'txdesk-keyring-'));
  const stop = () => {
    children.forEach((c) => c.kill('SIGTERM'));
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(bus);
    const address = await new Promise<string>((resolve, reject) => {
      bus.once('error', reject);
      bus.stdout!.once('data', (b: Buffer) => resolve(String(b).trim()));
    });
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home };
    const keyring = spawn('sh', ['-c', 'printf pw | exec gnome-keyring-daemon --unlock --components=secrets --foreground'], {
      env,
      stdio: 'ignore',
    });
    children.push(keyring);
    // Wait (out of process) until the daemon owns the Secret Service name, then let the library look.
    const owned = () =>
      execFileSync(
        'dbus-send',
        [
          '--session',
          '--dest=org.freedesktop.DBus',
          '--print-reply',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.NameHasOwner',
          'string:org.freedesktop.secrets',
        ],
        { env, encoding: 'utf8' },
      );
    // Still not owned after 10 s: the library's own look below decides.
    await waitFor('the Secret Service name on the private bus', () => /boolean true/.test(owned()), {
      timeoutMs: 10_000,
      everyMs: 50,
    }).catch(() => undefined);
    process.env.DBUS_SESSION_BUS_ADDRESS = address;
    if (await keychainWorks()) return { available: true, stop };
  } catch {
    /* fall through */
  }
  stop();
  return { available: false, stop() {} };
}
