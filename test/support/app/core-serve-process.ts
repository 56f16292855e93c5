// Starts the built core as its own `txdesk serve` process (core-serve-child.mjs), for tests that SIGKILL it: the ready
// line parsed, stderr kept for failure messages, and every child remembered so the test's afterAll can kill what is left.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const fixture = join(import.meta.dirname, 'core-serve-child.mjs');

export interface ServeChild {
  child: ChildProcess;
  ready: { apiUrl: string; apiTokenFile: string; address: string };
  /** What the process wrote to stderr so far. */
  log: string[];
}

/** Children still running; kill them in afterAll. */
export const serveChildren = new Set<ChildProcess>();

/**
 * Runs `txdesk serve` with `policy` and `env` (the data dir and network come from it) and waits for its ready line;
 * on `port` when given (a restart a tool must find again), else a free one.
 */
export async function startServeChild(policy: Record<string, unknown>, env: NodeJS.ProcessEnv, port?: number): Promise<ServeChild> {
  const child = spawn(process.execPath, [fixture, JSON.stringify(policy), ...(port ? [String(port)] : [])], {
    env: { ...process.env, ...env, TXDESK_LOG: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  serveChildren.add(child);
  child.on('exit', () => serveChildren.delete(child));
  const log: string[] = [];
  child.stderr!.on('data', (b: Buffer) => log.push(String(b)));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`txdesk serve exited (${code}) before ready:\n${log.join('')}`)));
  });
  return { child, ready: JSON.parse(line) as ServeChild['ready'], log };
}

/** Resolves once `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
}
