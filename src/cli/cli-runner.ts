// Runs a long-running command (devchain, service, serve): start, announce readiness (one JSON line with --json),
// then stop cleanly on SIGINT/SIGTERM; a second signal forces the exit.
import { createLogger, type Logger } from '../lib/log.js';

export interface Running {
  readyInfo(): object;
  stop(): Promise<void>;
}

export interface LongRunningSpec<R extends Running = Running> {
  /** How the thing is called in messages: "the dev chain". */
  what: string;
  scope: string;
  json: boolean;
  port: number;
  /** `signal` aborts at the first SIGINT/SIGTERM during start-up: a start that waits (for a node, say) gives up then. */
  start(log: Logger, signal: AbortSignal): Promise<R>;
  /** The human summary printed on stdout when ready without --json. */
  summary(info: Record<string, unknown>, running: R): string[];
}

/** How long stop() may take before the process gives up waiting and exits anyway. */
const stopGraceMs = 30_000;

export async function runLongRunning<R extends Running>(spec: LongRunningSpec<R>): Promise<void> {
  const log = createLogger(spec.scope);
  let running: R | undefined;
  let stopRequested: NodeJS.Signals | undefined;
  const starting = new AbortController();

  /** Exits with 1 and `message` unless the process has ended within the grace time. */
  const exitAfterGrace = (message: string) =>
    setTimeout(() => {
      log.error(message);
      process.exit(1);
    }, stopGraceMs).unref();

  const stopAndExit = async (code: number): Promise<never> => {
    exitAfterGrace(`${spec.what} did not stop within ${stopGraceMs / 1000} s; exiting anyway.`);
    try {
      await running?.stop();
    } catch (e) {
      log.error(`stopping ${spec.what} failed: ${(e as Error).message}`);
      process.exit(1);
    }
    process.exit(code);
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopRequested) {
      log.warn(`${signal} again: exiting without waiting for ${spec.what} to stop.`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopRequested = signal;
    log.info(`${signal}: stopping ${spec.what} (send it again to force)`);
    if (running) return void stopAndExit(0);
    // Still starting: the start path notices stopRequested and stops what it started, unless start-up hangs.
    starting.abort(new Error(`${signal} during start-up`));
    exitAfterGrace(`${spec.what} did not finish starting within ${stopGraceMs / 1000} s of ${signal}; exiting anyway.`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    running = await spec.start(log, starting.signal);
  } catch (e) {
    if (stopRequested) process.exit(0);
    process.stderr.write(`${startFailure(spec, e)}\n`, () => process.exit(startExitCode(e)));
    return;
  }
  if (stopRequested) return void (await stopAndExit(0));

  const info = { ready: true, ...(running.readyInfo() as Record<string, unknown>) };
  if (spec.json) process.stdout.write(`${JSON.stringify(info)}\n`);
  else for (const line of spec.summary(info, running)) process.stdout.write(`${line}\n`);
}

/** Bad input (a ConfigError: environment, flags, saved settings) exits 2, like a bad flag; anything else 1. */
export function startExitCode(e: unknown): number {
  const code = (e as { exitCode?: unknown } | null)?.exitCode;
  return typeof code === 'number' ? code : 1;
}

/** One line per problem (a ConfigError may list several), each saying what could not start. */
function startFailure(spec: LongRunningSpec<Running>, e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const lines = String(err?.message ?? e)
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  if (err?.code === 'EADDRINUSE' || lines.some((l) => /EADDRINUSE|address already in use/i.test(l))) {
    return `Could not start ${spec.what}: port ${spec.port} is already in use; pick another with --port N (0 picks a free port).`;
  }
  return lines.map((l) => `Could not start ${spec.what}: ${l}`).join('\n');
}
