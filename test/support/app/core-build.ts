// Makes sure dist/ holds a build of the current sources before a test spawns the built core.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTrackerPackageBuilt } from '../tracker-package-build.js';

const root = join(import.meta.dirname, '..', '..', '..');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export function ensureCoreBuilt(): void {
  ensureTrackerPackageBuilt();
  const out = join(root, 'dist', 'core', 'serve.js');
  const src = Math.max(...['core', 'service', 'sdk', 'devchain', 'lib', 'shared'].map((d) => newest(join(root, 'src', d))));
  if (existsSync(out) && statSync(out).mtimeMs >= src) return;
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'ignore',
  });
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.js')], { cwd: root, stdio: 'ignore' });
}
