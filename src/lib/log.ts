// Logging to stderr, so stdout stays free for the one JSON ready line of SPEC 8.

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  child(scope: string): Logger;
}

export function createLogger(scope = 'txdesk', quiet = process.env.TXDESK_LOG === 'silent'): Logger {
  const write = (level: string, msg: string) => {
    if (!quiet) process.stderr.write(`${new Date().toISOString()} ${level} [${scope}] ${msg}\n`);
  };
  return {
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    child: (s) => createLogger(`${scope}:${s}`, quiet),
  };
}

/** A logger that drops everything; for tests. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {}, child: () => silentLogger };
