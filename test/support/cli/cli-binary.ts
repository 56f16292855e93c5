// Test helpers that run the real `txdesk` binary (node bin/txdesk.js) as a subprocess, plainly or at a pseudo-terminal.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOnce } from '../build-once.js';
import { ensureTrackerPackageBuilt } from '../tracker-package-build.js';

export const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const txdeskBin = join(repoRoot, 'bin', 'txdesk.js');
const builtEntry = join(repoRoot, 'dist', 'cli', 'index.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function distIsFresh(): boolean {
  const sources = ['shared', 'lib', 'core', 'service', 'sdk', 'cli', 'devchain']
    .map((d) => join(repoRoot, 'src', d))
    .filter((d) => existsSync(d));
  const newestSource = Math.max(...sources.map(newestMtime));
  return existsSync(builtEntry) && statSync(builtEntry).mtimeMs >= newestSource;
}

/** Compiles src into dist (tsconfig.build.json) unless dist/cli is newer than every source file. Other areas' type
 * errors do not stop it: tsc still emits, and only the CLI's entry has to exist. Test files run in parallel, so the
 * build holds a lock and looks again once it has it: a second tsc rewriting dist/ while the first file's tests run
 * the binary would hand them half-written modules. */
export function ensureCliBuilt(): void {
  ensureTrackerPackageBuilt();
  buildOnce('txdesk-cli-build.lock', distIsFresh, () => {
    spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    spawnSync(process.execPath, [join(repoRoot, 'scripts', 'bundle.js')], { cwd: repoRoot, stdio: 'ignore' });
  });
  if (!existsSync(builtEntry)) throw new Error('dist/cli/index.js is missing after `tsc -p tsconfig.build.json`');
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  cwd?: string;
  timeoutMs?: number;
  /** Run this file instead of bin/txdesk.js (e.g. a symlink made like a global install). */
  bin?: string;
}

/** Runs `txdesk args...` to completion with stdin from `input` (closed at once when absent). */
export function runCli(args: string[], opts: CliRunOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? txdeskBin, ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`txdesk ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 60_000} ms; stderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export interface PtyStep {
  /** Wait until the terminal output so far contains this (counted from the end of the previous step's match). */
  waitFor: string | RegExp;
  /** Then type this (use '\r' for Enter, '\x7f' for Backspace). */
  send: string;
}

export interface PtyResult {
  code: number | null;
  /** Everything the terminal showed: the program's output and whatever was echoed. */
  output: string;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** True where util-linux `script` exists (Linux); the pseudo-terminal tests need it. */
export const ptyAvailable = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') ?? false;

/** Runs `txdesk args...` at a real pseudo-terminal (util-linux `script`), typing each step's keys once its prompt shows. */
export function runCliInPty(args: string[], steps: PtyStep[], opts: CliRunOptions = {}): Promise<PtyResult> {
  const command = [process.execPath, opts.bin ?? txdeskBin, ...args].map(shellQuote).join(' ');
  return new Promise((resolvePromise, reject) => {
    // -q: no banner, -f: flush at once, -e: exit with the program's code, -c: the command; the typescript goes nowhere.
    const child: ChildProcess = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: opts.cwd ?? repoRoot,
      env: { ...(opts.env ?? process.env), TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let searchFrom = 0;
    let step = 0;
    const advance = () => {
      while (step < steps.length) {
        const { waitFor, send } = steps[step]!;
        const rest = output.slice(searchFrom);
        const index = typeof waitFor === 'string' ? rest.indexOf(waitFor) : rest.search(waitFor);
        if (index < 0) return;
        const matched = typeof waitFor === 'string' ? waitFor.length : (rest.match(waitFor)?.[0].length ?? 0);
        searchFrom += index + matched;
        step++;
        child.stdin!.write(send);
      }
    };
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      advance();
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`txdesk ${args.join(' ')} at a pty stuck at step ${step}; output so far: ${JSON.stringify(output)}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin!.destroy();
      resolvePromise({ code, output });
    });
  });
}

export interface CliDaemon {
  child: ChildProcess;
  /** The parsed JSON ready line. */
  ready: Record<string, unknown>;
  /** Every stdout line, to check that the ready line stays the only one. */
  stdoutLines(): string[];
  stderr(): string;
  /** SIGTERM (or `signal`), then wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Started daemons still running when this test process exits are killed, so a failed or timed-out test leaves none. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a long-running `txdesk` command and waits for its first stdout line: the JSON ready line with --json. */
export function startCliDaemon(args: string[], opts: CliRunOptions = {}): Promise<CliDaemon> {
  const child = spawn(process.execPath, [opts.bin ?? txdeskBin, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`txdesk ${args.join(' ')} was not ready within ${opts.timeoutMs ?? 90_000} ms; stderr: ${stderr}`));
    }, opts.timeoutMs ?? 90_000);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`txdesk ${args.join(' ')} exited (${code ?? signal}) before it was ready; stderr: ${stderr}`));
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      const hadLine = stdout.includes('\n');
      stdout += d;
      if (hadLine || !stdout.includes('\n')) return;
      clearTimeout(timer);
      try {
        // Without --json the first line is the human summary; it is handed back as { line }.
        const first = stdout.split('\n')[0]!;
        const ready = (args.includes('--json') ? JSON.parse(first) : { line: first }) as Record<string, unknown>;
        resolvePromise({
          child,
          ready,
          stdoutLines: () => stdout.split('\n').filter((l) => l !== ''),
          stderr: () => stderr,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      } catch {
        child.kill('SIGKILL');
        reject(new Error(`the first stdout line of txdesk ${args.join(' ')} is not JSON: ${stdout}`));
      }
    });
  });
}
