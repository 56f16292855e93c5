// Starts the real `txdesk serve` (built CLI) as a subprocess on a free port with a temporary data dir, reads its
// JSON ready line, and stops it (and its children) afterwards. For the renderer's browser tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { authHeader } from '../app/core-api-token.js';

export interface ServeProcess {
  /** The server's origin (API and pages). */
  appUrl: string;
  /** The printed address with the one-time login: open it first so the page gets its session cookie. */
  loginUrl: string;
  /** `Authorization` header with the API token, for the test's own requests (reads need it too). */
  auth: { authorization: string };
  info: Record<string, unknown>;
  dataDir: string;
  /** The last lines of its stderr, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export async function startServeProcess(
  opts: { congestion?: 'off' | 'low' | 'high'; timeoutMs?: number; allowKeyRoutes?: boolean } = {},
): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-e2e-'));
  const args = [
    'bin/txdesk.js',
    'serve',
    '--json',
    '--port',
    '0',
    ...(opts.congestion ? ['--congestion', opts.congestion] : []),
    ...(opts.allowKeyRoutes ? ['--allow-key-routes'] : []),
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, TXDESK_DATA_DIR: dataDir };
  for (const name of ['CLIENT_ID', 'PRIVATE_KEY', 'NODE_ENDPOINT', 'PLATFORM', 'NETWORK', 'TXDESK_SERVICE_URL']) delete env[name];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => {
    stderr.push(l);
    if (stderr.length > 200) stderr.shift();
  });
  const log = () => stderr.slice(-40).join('\n');

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`txdesk serve was not ready within ${opts.timeoutMs ?? 180_000} ms:\n${log()}`)),
        opts.timeoutMs ?? 180_000,
      );
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`txdesk serve exited (${code}) before it was ready:\n${log()}`));
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed.ready === true && typeof parsed.appUrl === 'string') {
            clearTimeout(timer);
            resolve(parsed);
          }
        } catch {
          // not the ready line
        }
      });
    });
    return {
      appUrl: String(info.apiUrl).replace(/\/+$/, ''),
      loginUrl: String(info.appUrl),
      auth: authHeader(String(info.apiTokenFile)),
      info,
      dataDir,
      log,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
