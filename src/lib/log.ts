// Logging to stderr, so stdout stays free for the one JSON ready line of docs/cli.md. TXDESK_LOG picks how much:
// `debug`, `info` (the default: what a person watching wants to see), `warn` (problems only) or `silent`.

export interface Logger {
  /** Detail for diagnosing; only with TXDESK_LOG=debug. Optional so hand-written test loggers need not have it. */
  debug?(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  child(scope: string): Logger;
}

export const logLevels = ['debug', 'info', 'warn', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
const rank: Record<LogLevel | 'error', number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

/** The level TXDESK_LOG asks for; unset, empty or unknown means `info`. */
export function logLevelFromEnv(value = process.env.TXDESK_LOG): LogLevel {
  const v = value?.trim().toLowerCase();
  return (logLevels as readonly string[]).includes(v ?? '') ? (v as LogLevel) : 'info';
}

/** `quiet` (true) is `silent`, kept for callers that only want to switch logging off. */
export function createLogger(scope = 'txdesk', level: LogLevel | boolean = logLevelFromEnv()): Logger {
  const min = level === true ? 'silent' : level === false ? 'info' : level;
  const write = (at: 'debug' | 'info' | 'warn' | 'error', msg: string) => {
    if (rank[at] >= rank[min]) process.stderr.write(`${new Date().toISOString()} ${at} [${scope}] ${msg}\n`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    child: (s) => createLogger(`${scope}:${s}`, min),
  };
}

/** A logger that drops everything; for tests. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
