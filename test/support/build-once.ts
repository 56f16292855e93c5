// One build at a time across the test files running in parallel: a second tsc rewriting a dist/ while another file's
// tests run from it would hand them half-written modules. The lock is a folder in the temp dir; the build runs only if
// the output is still stale once the lock is held.
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function buildOnce(lockName: string, isFresh: () => boolean, build: () => void): void {
  if (isFresh()) return;
  const lock = join(tmpdir(), lockName);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than five minutes belongs to a run that died.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      sleepSync(250);
    }
  }
  try {
    if (!isFresh()) build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
