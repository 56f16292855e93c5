// Reliability test helpers: the data service and the app core as real child processes (built dist/), with their
// stdout/stderr captured, memory figures over IPC, SIGKILL, and a free-port picker for restarts on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ensureCoreBuilt } from '../app/core-build.js';

const fixtures = join(import.meta.dirname, '..', '..', 'reliability', 'fixtures');

export interface MemoryFigures {
  rss: number;
  heapUsed: number;
}

export interface ChildProc<Info> {
  child: ChildProcess;
  info: Info;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** RSS and heap after a full GC in the child. */
  memory(): Promise<MemoryFigures>;
  /** True while the process runs. */
  alive(): boolean;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Kills every child these helpers started and is still running; call from afterAll. */
export function killAllChildren(): void {
  for (const c of running) c.kill('SIGKILL');
}

/** Builds dist/ when src/ is newer; a failing rebuild (someone's half-saved file) falls back to the existing build. */
function ensureBuilt(): void {
  try {
    ensureCoreBuilt();
  } catch (e) {
    const root = join(import.meta.dirname, '..', '..', '..');
    if (!existsSync(join(root, 'dist', 'core', 'serve.js')) || !existsSync(join(root, 'dist', 'service', 'index.js'))) throw e;
  }
}

export async function spawnFixture<Info>(name: string, options: unknown, env: NodeJS.ProcessEnv = {}): Promise<ChildProc<Info>> {
  ensureBuilt();
  const child = spawn(process.execPath, ['--expose-gc', join(fixtures, name), JSON.stringify(options)], {
    env: { ...process.env, TXDESK_LOG: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(child);
  const chunks: string[] = [];
  child.stdout!.on('data', (b: Buffer) => chunks.push(String(b)));
  child.stderr!.on('data', (b: Buffer) => chunks.push(String(b)));
  const exited = new Promise<void>((r) => child.once('exit', () => (running.delete(child), r())));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code, sig) => reject(new Error(`${name} exited (${code ?? sig}) before ready:\n${chunks.join('').slice(-4000)}`)));
  });
  const info = JSON.parse(line) as Info;
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    info,
    output: () => chunks.join(''),
    alive,
    memory: () =>
      new Promise<MemoryFigures>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no memory figures from the child within 30 s')), 30_000);
        const on = (m: unknown) => {
          const mem = (m as { mem?: NodeJS.MemoryUsage }).mem;
          if (!mem) return;
          clearTimeout(t);
          child.off('message', on);
          resolve({ rss: mem.rss, heapUsed: mem.heapUsed });
        };
        child.on('message', on);
        child.send('mem');
      }),
    async kill(signal = 'SIGKILL') {
      if (alive()) child.kill(signal);
      await exited;
    },
    async stop() {
      if (!alive()) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

export interface ServiceInfo {
  serviceUrl: string;
  nodeUrl: string;
  chainId: number;
  platform: string;
  network: string;
  clientId: string;
  metadataUrl?: string;
  accounts?: { address: string; privateKey: string }[];
  collections?: { address: string; name: string; symbol: string; kind: string }[];
  pid: number;
}

export interface ServiceChildOptions {
  mode?: 'dev' | 'node';
  nodeUrl?: string;
  dataDir: string;
  port?: number;
  congestion?: 'off' | 'low' | 'high';
  blockTimeSeconds?: number;
  minAckTimeoutMs?: number;
  rateLimitPerMinute?: number;
  authRateLimitPerMinute?: number;
}

export function spawnService(o: ServiceChildOptions, env: NodeJS.ProcessEnv = {}): Promise<ChildProc<ServiceInfo>> {
  return spawnFixture<ServiceInfo>('service-child.mjs', o, env);
}

export interface CoreInfo {
  /** The browser UI's address with its one-time login. */
  appUrl: string;
  /** The localhost API's origin. */
  apiUrl: string;
  /** The API token for every request (reads too) is in this file. */
  apiTokenFile: string;
  nodeUrl: string;
  serviceUrl: string;
  address: string | null;
  mode: 'embedded' | 'configured';
  pid: number;
}

export interface CoreChildOptions {
  port?: number;
  dataDir?: string;
  policy?: Record<string, unknown>;
  congestion?: 'off' | 'low' | 'high';
  blockTimeSeconds?: number;
  /** `txdesk serve --allow-key-routes`. */
  allowKeyRoutes?: boolean;
}

export function spawnCore(o: CoreChildOptions, env: NodeJS.ProcessEnv): Promise<ChildProc<CoreInfo>> {
  return spawnFixture<CoreInfo>('core-child.mjs', o, env);
}

/** Resident set size of any process, from /proc (Linux); null elsewhere. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A port that was free a moment ago: for a process that must come back on the same port after a restart. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const MB = 1024 * 1024;
