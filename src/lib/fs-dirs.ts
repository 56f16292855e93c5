// Creates folders without `mkdirSync(..., { recursive: true })`, which on Node 20 loops forever for a path under /proc
// (mkdir answers ENOENT there although the parent exists), hanging the process beyond the reach of signal handlers.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Creates `dir` and its missing parents (new ones with `mode`); throws the first mkdir error as is, or ENOTDIR. */
export function ensureDir(dir: string, mode = 0o777): void {
  if (existsSync(dir)) {
    if (statSync(dir).isDirectory()) return;
    throw Object.assign(new Error(`${dir} is not a folder`), { code: 'ENOTDIR' });
  }
  const missing: string[] = [];
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) mkdirSync(d, { mode });
}
