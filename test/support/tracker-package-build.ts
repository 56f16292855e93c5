// Keeps packages/tracker/dist (what a spawned `txdesk` and the built core import as @txdesk/tracker) as new as the
// package's source, so a test that runs the build never runs an older SDK than the one the test process loaded.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildOnce } from './build-once.js';

const root = resolve(import.meta.dirname, '..', '..');
const source = join(root, 'packages', 'tracker', 'src');
const built = join(root, 'packages', 'tracker', 'dist', 'index.js');

function isFresh(): boolean {
  if (!existsSync(built)) return false;
  const newest = Math.max(...readdirSync(source).map((f) => statSync(join(source, f)).mtimeMs));
  return statSync(built).mtimeMs >= newest;
}

/** Compiles the tracker package when its dist/ is older than its source. */
export function ensureTrackerPackageBuilt(): void {
  buildOnce('txdesk-tracker-package-build.lock', isFresh, () => {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'packages', 'tracker', 'tsconfig.json')],
      { cwd: root, stdio: 'ignore' },
    );
  });
}
