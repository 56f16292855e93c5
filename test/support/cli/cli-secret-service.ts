// A private Secret Service for keychain tests: its own D-Bus session bus and an unlocked gnome-keyring in a temp HOME,
// so tests never touch the user's real keychain. Null where gnome-keyring or dbus-daemon is not installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Entry } from '@napi-rs/keyring';
import { waitFor } from '../poll.js';

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the private bus. */
  address: string;
  stop(): Promise<void>;
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** True where this helper can run a private Secret Service (Linux with dbus-daemon and gnome-keyring-daemon). */
export function secretServiceInstalled(): boolean {
  return process.platform === 'linux' && has('dbus-daemon') && has('gnome-keyring-daemon');
}

/** Reads a keychain item the way the CLI writes it, through @napi-rs/keyring, on the bus in DBUS_SESSION_BUS_ADDRESS. */
export function readKeychain(service: string, account: string): string | null {
  return new Entry(service, account, { linux: { store: 'secret-service' } }).getPassword() ?? null;
}

/** True when a Secret Service answers on the current bus (set, read and delete a probe item). */
export function keychainWorks(): boolean {
  try {
    const entry = new Entry('txdesk-test-probe', `probe-${process.pid}`, { linux: { store: 'secret-service' } });
    entry.setPassword('probe');
    const ok = entry.getPassword() === 'probe';
    entry.deleteCredential();
    return ok;
  } catch {
    return false;
  }
}

/** Starts the private bus and keyring and points this process at them (DBUS_SESSION_BUS_ADDRESS), so direct
 * @napi-rs/keyring reads in the test see what the CLI subprocesses write. Resolves once a probe item round-trips. */
export async function startSecretService(): Promise<SecretService | null> {
  if (!secretServiceInstalled()) return null;
  const home = mkdtempSync(join(tmpdir(), 'txdesk-keyring-home-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    // A bus without service activation: with the stock session config, a probe sent before our keyring owns its name
    // makes dbus-daemon start a second, locked gnome-keyring, and every later call fails with "unlock prompt dismissed".
    const config = join(home, 'bus.conf');
    writeFileSync(config, busConfig(home));
    const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(bus);
    const address = await new Promise<string>((resolve, reject) => {
      let out = '';
      bus.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
      });
      bus.once('exit', () => reject(new Error('dbus-daemon exited')));
    });
    const env = {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: join(home, 'data'),
      XDG_RUNTIME_DIR: home,
      DBUS_SESSION_BUS_ADDRESS: address,
    };
    const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    children.push(keyring);
    keyring.stdin!.end('txdesk-test'); // the password of the fresh login keyring, which --unlock creates unlocked
    process.env.DBUS_SESSION_BUS_ADDRESS = address;
    // Its output is block-buffered on a pipe, so readiness is probed on the bus instead.
    await waitFor(
      'gnome-keyring-daemon to answer on the bus',
      () => {
        if (keyring.exitCode !== null) throw new Error('gnome-keyring-daemon exited');
        return keychainWorks();
      },
      { timeoutMs: 20_000, everyMs: 200 },
    );
    return { address, stop };
  } catch {
    await stop();
    return null;
  }
}

function busConfig(dir: string): string {
  return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=${dir}</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;
}
