// A second writer on the same SQLite file (the service's index writer thread beside the main thread's stores): a
// transaction that reads before it writes must not fail because the other connection committed in between. Found when
// the isolation test's `trackTransaction` got "Internal error" from SQLITE_BUSY_SNAPSHOT in CI.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, writeTransaction, type Db } from '../../src/lib/sqlite.js';
import { openSqliteTrackerStore } from '../../src/service/tracker/sqlite/tracker-store-sqlite.js';

const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-sqlite-writers-'));
  dirs.push(dir);
  return join(dir, 'two-writers.sqlite');
}

/** Commits one row at a time to `other` on a connection of its own, on a thread of its own, until stopped. */
function startOtherWriter(file: string): { commits(): Promise<number>; stop(): Promise<number> } {
  const worker = new Worker(
    `const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
     const { parentPort, workerData } = require('node:worker_threads');
     const db = new Database(workerData);
     db.pragma('busy_timeout = 5000');
     db.exec('CREATE TABLE IF NOT EXISTS other (x INTEGER)');
     const insert = db.prepare('INSERT INTO other VALUES (1)');
     let stopping = false;
     let n = 0;
     parentPort.on('message', (m) => (m === 'stop' ? (stopping = true) : parentPort.postMessage(n)));
     (function burst() {
       const end = Date.now() + 10;
       while (Date.now() < end) { insert.run(); n++; }
       if (stopping) parentPort.postMessage(n); else setImmediate(burst);
     })();`,
    { eval: true, workerData: file },
  );
  const ask = (m: string) =>
    new Promise<number>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(m);
    });
  return {
    commits: () => ask('count'),
    stop: async () => {
      const n = await ask('stop');
      await worker.terminate();
      return n;
    },
  };
}

it('a plain (DEFERRED) transaction that read before the other connection committed cannot write; that is the failure', () => {
  const file = tempFile();
  const [a, b] = [openDatabase(file), openDatabase(file)];
  a.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const readThenWrite = (db: Db) => () => {
    db.prepare('SELECT count(*) FROM t').get();
    b.prepare("INSERT INTO t VALUES ('from b')").run();
    db.prepare("INSERT INTO t VALUES ('from a')").run();
  };
  expect(() => a.transaction(readThenWrite(a))()).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY_SNAPSHOT' }));
  a.close();
  b.close();
});

it("the tracker store's read-then-write `track` never fails while another thread commits to the same file", async () => {
  const file = tempFile();
  const db = openDatabase(file);
  const store = openSqliteTrackerStore(db);
  const other = startOtherWriter(file);
  // Wait for the other thread's first commits, so every `track` below runs while it writes.
  while ((await other.commits()) === 0) await new Promise((r) => setTimeout(r, 5));
  const tracks = 2_000;
  for (let i = 0; i < tracks; i++) {
    const hash = `0x${i.toString(16).padStart(64, '0')}`;
    const { created } = await store.track('client', hash, 1, 60_000, Date.now());
    expect(created).toBe(true);
  }
  const otherCommits = await other.stop();
  expect((db.prepare('SELECT count(*) AS n FROM tracker_tracking').get() as { n: number }).n).toBe(tracks);
  expect((db.prepare('SELECT count(*) AS n FROM other').get() as { n: number }).n).toBe(otherCommits);
  expect(otherCommits).toBeGreaterThan(0);
  db.close();
});

it('writeTransaction is a savepoint inside another transaction: an inner failure rolls back only the inner part', () => {
  const db = openDatabase(tempFile());
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO t VALUES (?)');
  writeTransaction(db, () => {
    insert.run('outer');
    expect(() => writeTransaction(db, () => void insert.run('outer'))()).toThrow(/UNIQUE/);
    insert.run('after');
  })();
  expect(db.prepare('SELECT k FROM t ORDER BY k').pluck().all()).toEqual(['after', 'outer']);
  db.close();
});

/** Every transaction a txdesk store opens on a raw connection goes through writeTransaction, read snapshots apart. */
const READ_SNAPSHOTS: Record<string, string> = {
  'src/service/indexer/sqlite/indexer-moves-sqlite.ts': 'one consistent read of moves; it never writes',
};

it('no SQLite store opens a plain transaction on a connection (src/ scanned)', () => {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        const file = relative(root, p);
        if (file === 'src/lib/sqlite.ts' || READ_SNAPSHOTS[file]) continue;
        readFileSync(p, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/\b\w*[dD]b\.transaction\(/.test(line)) found.push(`${file}:${i + 1}`);
          });
      }
    }
  };
  walk(join(root, 'src'));
  expect(found).toEqual([]);
});
