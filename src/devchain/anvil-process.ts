// Runs anvil as a child process on loopback, behind a tiny shell watchdog so it never outlives the Node process that started it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { silentLogger, type Logger } from '../lib/log.js';
import { anvilBinaryPath } from './anvil-binary.js';
import { jsonRpcCall } from '../lib/json-rpc.js';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_CHAIN_ID = 31337;
/** The second dev network of `txdesk service --dev` (ethereum/local-2). */
export const DEV_CHAIN_ID_2 = 31338;
/** Leaves room for ordinary deployments (docs/devchain.md: >= 5,000,000) while a few load transactions fill a block. */
export const DEFAULT_BLOCK_GAS_LIMIT = 6_000_000;

export interface StartAnvilOptions {
  /** 0 or absent: a free port chosen by the OS. */
  port?: number;
  /** Interval mining; absent or 0 means 1 second (the team default). */
  blockTimeSeconds?: number;
  gasLimit?: number;
  /** Initial base fee in wei. */
  baseFeeWei?: bigint;
  /** How many mnemonic accounts anvil funds. */
  accounts?: number;
  /** DEV_CHAIN_ID unless set (a second dev network needs a chain of its own). */
  chainId?: number;
  log?: Logger;
}

export interface RunningAnvil {
  url: string;
  port: number;
  /** Pid of anvil itself (not of its watchdog); tests use it to prove no orphan is left. */
  pid: number;
  /** Pid of the watchdog shell. */
  watchdogPid: number;
  stop(): Promise<void>;
}

/*
 * The watchdog: a POSIX shell that starts anvil in the background and holds our stdin pipe. The kernel closes that
 * pipe when this Node process ends for any reason, SIGKILL included; the shell then reads EOF and kills anvil.
 * On Linux, setpriv --pdeathsig also kills anvil if the shell itself is killed. The shell exits with anvil.
 */
const WATCHDOG = [
  'exec 3<&0',
  'if command -v setpriv >/dev/null 2>&1 && setpriv --pdeathsig TERM true 2>/dev/null; then',
  '  setpriv --pdeathsig TERM "$@" </dev/null 3<&- &',
  'else',
  '  "$@" </dev/null 3<&- &',
  'fi',
  'a=$!',
  'echo "txdesk-anvil-pid $a" >&2',
  '( while read -r _; do :; done; kill "$a" 2>/dev/null',
  '  for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$a" 2>/dev/null || exit 0; sleep 0.5; done; kill -9 "$a" 2>/dev/null',
  ') <&3 >/dev/null 2>&1 &',
  'w=$!',
  'exec 3<&-',
  'wait "$a"',
  's=$?',
  'kill "$w" 2>/dev/null',
  'exit "$s"',
].join('\n');

export async function startAnvil(opts: StartAnvilOptions = {}): Promise<RunningAnvil> {
  const log = opts.log ?? silentLogger;
  const bin = anvilBinaryPath();
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(opts.port ?? 0),
    '--chain-id',
    String(opts.chainId ?? DEV_CHAIN_ID),
    '--order',
    'fees',
    '--gas-limit',
    String(opts.gasLimit ?? DEFAULT_BLOCK_GAS_LIMIT),
    '--block-time',
    String(opts.blockTimeSeconds || 1),
    '--accounts',
    String(opts.accounts ?? 10),
    '--mnemonic',
    DEV_MNEMONIC,
    '--balance',
    '10000',
  ];
  if (opts.baseFeeWei !== undefined) args.push('--base-fee', opts.baseFeeWei.toString());

  const useShell = process.platform !== 'win32' && existsSync('/bin/sh');
  // detached: the watchdog leads its own process group, so stop() can take down shell and anvil together.
  const child: ChildProcess = useShell
    ? spawn('/bin/sh', ['-c', WATCHDOG, 'txdesk-anvil-watchdog', bin, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    : spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });

  // EPIPE when the watchdog is already gone must not crash the parent.
  child.stdin?.on('error', () => {});
  const recent: string[] = [];
  const remember = (line: string) => {
    recent.push(line);
    if (recent.length > 20) recent.shift();
  };
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );

  const started = new Promise<{ port: number; pid: number }>((resolve, reject) => {
    let port = 0;
    let pid = useShell ? 0 : (child.pid ?? 0);
    const maybeDone = () => {
      if (port && pid) resolve({ port, pid });
    };
    let outBuf = '';
    child.stdout!.setEncoding('utf8');
    // Keep draining stdout for anvil's whole life: a full pipe would block it.
    child.stdout!.on('data', (chunk: string) => {
      if (port) return;
      outBuf += chunk;
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(outBuf);
      if (m) {
        port = Number(m[1]);
        outBuf = '';
        maybeDone();
      } else if (outBuf.length > 100_000) outBuf = outBuf.slice(-1000);
    });
    let errBuf = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      errBuf += chunk;
      const lines = errBuf.split('\n');
      errBuf = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^txdesk-anvil-pid (\d+)$/.exec(line.trim());
        if (m) {
          pid = Number(m[1]);
          maybeDone();
        } else if (line.trim()) {
          remember(line);
          log.warn(`anvil: ${line}`);
        }
      }
    });
    child.once('error', (e) => reject(new Error(`Could not start anvil (${bin}): ${e.message}. Run \`npm install\` and try again.`)));
    child.once('exit', (code) => {
      const why = recent.join(' ').trim();
      const inUse = /address already in use|Address in use/i.test(why);
      reject(
        new Error(
          inUse
            ? `anvil could not listen on port ${opts.port}: it is in use. Choose another port, or 0 for a free one.`
            : `anvil exited during startup (code ${code})${why ? `: ${why}` : ''}.`,
        ),
      );
    });
  });

  let info: { port: number; pid: number };
  try {
    info = await withTimeout(
      started,
      30_000,
      'anvil did not start listening within 30 s; check that the machine is not overloaded and try again.',
    );
  } catch (e) {
    killGroup(child, 'SIGKILL');
    throw e;
  }
  const url = `http://127.0.0.1:${info.port}`;
  // "Listening on" is printed after the bind; still make sure JSON-RPC answers before anyone uses it.
  for (let i = 0; ; i++) {
    try {
      await jsonRpcCall(url, 'eth_chainId', []);
      break;
    } catch (e) {
      if (i > 100 || exited) {
        killGroup(child, 'SIGKILL');
        throw new Error(`anvil does not answer JSON-RPC at ${url}: ${String(e)}`);
      }
      await sleep(100);
    }
  }
  log.info(`anvil ${info.pid} listening on ${url}`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (exited) return;
      // Closing stdin is the watchdog's cue: it stops anvil and exits. Escalate if that does not happen promptly.
      child.stdin?.end();
      if (!useShell) child.kill('SIGTERM');
      const done = await Promise.race([exitPromise.then(() => true), sleep(5000).then(() => false)]);
      if (!done) {
        killGroup(child, 'SIGKILL');
        try {
          process.kill(info.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
        await Promise.race([exitPromise, sleep(2000)]);
      }
    })();
    return stopping;
  };
  return { url, port: info.port, pid: info.pid, watchdogPid: child.pid ?? 0, stop };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid && process.platform !== 'win32') process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]);
}
