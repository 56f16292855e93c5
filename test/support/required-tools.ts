// What some suites need beyond `npm ci`: the build, Debian's Chromium, util-linux `script` (a pseudo-terminal) and a
// Secret Service (gnome-keyring on D-Bus). A missing one fails the suite with one sentence saying how to install it
// or which variable skips those suites on purpose; nothing is skipped quietly.
import { existsSync } from 'node:fs';

/** True when the suite runs; false when the person set `optOut`=1 to skip it; otherwise fails with `sentence`. */
export function required(present: boolean, sentence: string, optOut: string): boolean {
  if (present) return true;
  if (process.env[optOut] === '1') return false;
  throw new Error(sentence);
}

/** Fails, naming the command, when a file the build writes is missing (`npm test` builds first). */
export function requireBuild(...files: string[]): void {
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length) throw new Error(`The build is missing (${missing.join(', ')}): run \`npm run build\` first, as \`npm test\` does.`);
}

export const chromiumPath = process.env.TXDESK_CHROMIUM ?? '/usr/bin/chromium';

/** Whether the browser suites run (Chromium present, or TXDESK_SKIP_BROWSER=1 to skip them); they need the build too. */
export function browserSuites(): boolean {
  const runs = required(
    existsSync(chromiumPath),
    `Chromium not found at ${chromiumPath}: apt-get install chromium, or set TXDESK_SKIP_BROWSER=1 to skip the browser suites.`,
    'TXDESK_SKIP_BROWSER',
  );
  if (runs) requireBuild('dist/cli/index.js', 'out/renderer/index.html');
  return runs;
}

/** Whether the pseudo-terminal tests run (util-linux `script` present, or TXDESK_SKIP_PTY=1 to skip them). */
export function ptySuites(present: boolean): boolean {
  return required(
    present,
    'util-linux `script` not found: apt-get install bsdutils, or set TXDESK_SKIP_PTY=1 to skip the terminal tests.',
    'TXDESK_SKIP_PTY',
  );
}

/** Whether the keychain tests run (a Secret Service answers, or TXDESK_SKIP_KEYCHAIN=1 to skip them). */
export function keychainSuites(present: boolean): boolean {
  return required(
    present,
    'No Secret Service could be started (it needs dbus-daemon and gnome-keyring-daemon): apt-get install gnome-keyring ' +
      'dbus, or set TXDESK_SKIP_KEYCHAIN=1 to skip the keychain tests.',
    'TXDESK_SKIP_KEYCHAIN',
  );
}
