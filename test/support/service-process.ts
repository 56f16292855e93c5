// Runs `txdesk service --json` as its own process (the compiled CLI) and resolves with its ready line; for tests that
// kill a service with SIGKILL or run several on one database.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  child: ChildProcess;
  serviceUrl: string;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

const children = new Set<ChildProcess>();

/** Builds dist/ when a bare `vitest run` has not (tsc exits non-zero on type errors elsewhere but still emits). */
export function ensureBuiltCli(): void {
  if (existsSync('dist/cli/index.js')) return;
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'ignore' });
  } catch {
    // See above.
  }
}

export async function startServiceProcess(opts: { nodeUrl: string; dataDir: string; port?: number; database?: string; env?: NodeJS.ProcessEnv }): Promise<ServiceProcess> {
  const args = ['bin/txdesk.js', 'service', '--node', opts.nodeUrl, '--port', String(opts.port ?? 0), '--data-dir', opts.dataDir, '--open-signup', '--json'];
  if (opts.database) args.push('--database', opts.database);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TXDESK_LOG: 'silent', ...opts.env } });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => children.delete(child));
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`txdesk service exited (${code}) before it was ready: ${stderr}`)));
  });
  const ready = JSON.parse(line) as { ready: boolean; serviceUrl: string };
  if (!ready.ready) throw new Error(`txdesk service did not report ready: ${line}`);
  return { child, serviceUrl: ready.serviceUrl, exited };
}

/** SIGKILLs every service process still running (for afterAll). */
export function killServiceProcesses(): void {
  for (const c of children) c.kill('SIGKILL');
}
