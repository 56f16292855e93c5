// One process per data dir: the lock module against real processes, a second core in the same folder, and a second
// `txdesk serve` (the real binary) that exits 1 with one line naming the running process.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirInUseError, LOCK_FILE } from '../../../src/core/adapters/data-dir-lock.js';
import { createCore } from '../../../src/core/create-core.js';
import { silentLogger } from '../../../src/lib/log.js';
import { ensureCliBuilt, txdeskBin } from '../../support/cli/cli-binary.js';
import { startTestChain, type TestChain } from '../../support/chain/core-chain.js';

const root = mkdtempSync(join(tmpdir(), 'txdesk-lock-'));
let n = 0;
const freshDir = () => mkdtempSync(join(root, `d${n++}-`));
let chain: TestChain;

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A process that runs until killed, and one that has already exited (its pid is free). */
function liveProcess() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return child;
}
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('data dir lock', { timeout: 120_000 }, () => {
  it('refuses a folder held by a live process, naming its pid, and takes over one left by a dead process', () => {
    const dir = freshDir();
    const other = liveProcess();
    try {
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n`);
      expect(() => acquireDataDirLock(dir)).toThrow(DataDirInUseError);
      expect(() => acquireDataDirLock(dir)).toThrow(
        `The data folder ${dir} is in use by another txdesk (pid ${other.pid}); stop that one first, or set TXDESK_DATA_DIR to another folder.`,
      );
      expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(other.pid));
    } finally {
      other.kill('SIGKILL');
    }
    writeFileSync(join(dir, LOCK_FILE), `${deadPid()}\n`);
    const release = acquireDataDirLock(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a second core on a folder in use fails before it opens anything there', async () => {
    const dir = freshDir();
    const other = liveProcess();
    try {
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n`);
      const core = createCore({ env: chain.env, dataDir: dir, http: false, log: silentLogger });
      const err = await core.start().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataDirInUseError);
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
      await core.stop();
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
    }
    // Free again once its owner is gone: a core starts, holds the lock while it runs, and gives it back.
    const core = createCore({ env: chain.env, dataDir: dir, http: false, log: silentLogger });
    await core.start();
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    await core.stop();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('a second `txdesk serve` on the data dir of a running one exits 1 with one line naming it', async () => {
    ensureCliBuilt();
    const dir = freshDir();
    const env = { ...process.env, ...chain.env, TXDESK_DATA_DIR: dir, TXDESK_LOG: 'silent' };
    const first = spawn(process.execPath, [txdeskBin, 'serve', '--port', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        first.stdout!.once('data', () => resolve());
        first.once('exit', (code) => reject(new Error(`first serve exited ${code}`)));
      });
      const db = readdirSync(dir).filter((f) => f.endsWith('.db'));
      const second = spawnSync(process.execPath, [txdeskBin, 'serve', '--port', '0'], { env, encoding: 'utf8', timeout: 60_000 });
      expect(second.status).toBe(1);
      const lines = second.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`in use by another txdesk (pid ${first.pid})`);
      expect(readdirSync(dir).filter((f) => f.endsWith('.db'))).toEqual(db);
    } finally {
      first.kill('SIGTERM');
      await new Promise((r) => first.once('exit', r));
    }
  });
});
