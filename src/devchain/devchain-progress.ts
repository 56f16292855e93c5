// Deployment progress on a TTY: one self-rewriting stderr line; silent when stderr is not a terminal.

export interface Progress {
  (label: string, done: number, total: number): void;
  /** Ends the progress line, optionally with a final message. */
  done(message?: string): void;
}

export function createProgress(enabled: boolean, out: NodeJS.WriteStream = process.stderr): Progress {
  let active = false;
  const report = ((label: string, done: number, total: number) => {
    if (!enabled) return;
    const width = 20;
    const filled = total > 0 ? Math.round((done / total) * width) : 0;
    out.write(`\r\x1b[2Kdevchain [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label}`);
    active = true;
  }) as Progress;
  report.done = (message?: string) => {
    if (!enabled) return;
    if (active) out.write('\r\x1b[2K');
    active = false;
    if (message) out.write(`devchain: ${message}\n`);
  };
  return report;
}
