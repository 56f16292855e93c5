// One process per data dir: a lock file holding the owner's pid, taken before anything in the folder is opened.
// A lock left by a process that died (SIGKILL, power loss) is taken over; one held by a live process is refused.
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'txdesk.lock';

/** Thrown when another live process holds the data dir; the message is the one line the user sees. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data folder ${dataDir} is in use by another txdesk (pid ${pid}); stop that one first, or set TXDESK_DATA_DIR to another folder.`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** Whether `pid` is a running process (EPERM: it runs under another user, still alive). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes `<dataDir>/txdesk.lock` for this process and returns its release. Atomic: the pid is written to a private
 * file first and hard-linked into place, which fails if a lock exists, so two starting processes never both win.
 */
export function acquireDataDirLock(dataDir: string, pid = process.pid): () => void {
  const file = join(dataDir, LOCK_FILE);
  const temp = join(dataDir, `${LOCK_FILE}.${pid}`);
  writeFileSync(temp, `${pid}\n`, { mode: 0o600 });
  try {
    for (let tries = 0; ; tries++) {
      try {
        linkSync(temp, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 3) throw e;
      }
      const owner = readPid(file);
      if (owner === pid) break;
      if (owner !== null && processAlive(owner)) throw new DataDirInUseError(dataDir, owner);
      // A dead owner's lock (or one half written): take it over, unless someone else just did.
      if (readPid(file) === owner) unlinkSync(file);
    }
  } finally {
    unlinkSync(temp);
  }
  return () => {
    if (readPid(file) === pid) unlinkSync(file);
  };
}
