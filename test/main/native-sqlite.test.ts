// better-sqlite3 under Electron: the default binding is redirected to an Electron-ABI build kept outside node_modules.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redirectSqliteBinding, isDefaultSqliteBinding } from '../../src/main/native-sqlite.js';

describe('Electron-ABI sqlite binding', () => {
  it('recognises the default binding path only', () => {
    expect(isDefaultSqliteBinding('/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node')).toBe(true);
    expect(isDefaultSqliteBinding('/cache/txdesk/better_sqlite3.node')).toBe(false);
  });

  it('does nothing without an override and refuses a missing file', () => {
    const before = process.dlopen;
    redirectSqliteBinding(undefined)();
    expect(process.dlopen).toBe(before);
    expect(() => redirectSqliteBinding('/nonexistent/better_sqlite3.node')).toThrow(/TXDESK_SQLITE_BINDING/);
  });
});

describe('Electron-ABI sqlite binding, loaded for real', () => {
  it('makes better-sqlite3 load the override file instead of the one in node_modules', async () => {
    const require = createRequire(import.meta.url);
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-binding-'));
    const override = join(dir, 'better_sqlite3.node');
    // The Node build stands in for an Electron build: what matters is which file gets opened.
    copyFileSync(join(require.resolve('better-sqlite3/package.json'), '..', 'build', 'Release', 'better_sqlite3.node'), override);
    const opened: string[] = [];
    const original = process.dlopen;
    process.dlopen = ((m: { exports: unknown }, f: string, ...flags: number[]) => {
      opened.push(f);
      return original.call(process, m, f, ...flags);
    }) as typeof process.dlopen;
    // The unit project runs several files in one process (isolate: false), so an earlier file may have loaded
    // better-sqlite3 and its binding already: both are loaded afresh here, and the earlier copies put back after (when
    // there were none, this copy stays: taking it out of the cache broke the next file's import of better-sqlite3).
    const earlier = Object.entries(require.cache).filter(([id]) => /[\\/]better-sqlite3[\\/]/.test(id));
    for (const [id] of earlier) delete require.cache[id];
    const undo = redirectSqliteBinding(override);
    try {
      const Database = require('better-sqlite3') as typeof import('better-sqlite3');
      const db = new Database(':memory:');
      expect(db.prepare('select 41 + 1 as n').get()).toEqual({ n: 42 });
      db.close();
      expect(opened).toContain(override);
      expect(opened.some((f) => isDefaultSqliteBinding(f))).toBe(false);
    } finally {
      undo();
      process.dlopen = original;
      for (const [id, m] of earlier) require.cache[id] = m;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
