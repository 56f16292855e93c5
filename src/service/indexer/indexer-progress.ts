// Catch-up progress on a terminal: one rewritten stderr line while far behind, nothing when stderr is not a TTY.

export interface ProgressOut {
  isTTY?: boolean;
  write(s: string): unknown;
}

export interface Progress {
  update(indexed: number, target: number, transfers: number): void;
  done(): void;
}

/** Pure: the progress line for a moment of catch-up. */
export function progressLine(indexed: number, target: number, startBlock: number, transfers: number, seconds: number): string {
  const span = Math.max(1, target - startBlock);
  const pct = Math.min(100, Math.max(0, ((indexed - startBlock) / span) * 100));
  const rate = seconds > 0 ? Math.round(transfers / seconds) : 0;
  return `indexer: block ${indexed} of ${target} (${pct.toFixed(1)}%), ${transfers} transfers, ${rate}/s`;
}

export function createProgress(out: ProgressOut = process.stderr, now: () => number = Date.now, minGap = 1000): Progress {
  let started: { at: number; block: number } | null = null;
  let shown = false;
  let lastDraw = 0;
  let transfers = 0;
  return {
    update(indexed, target, n) {
      transfers += n;
      if (!out.isTTY) return;
      // Only a real backlog is worth a progress line; following the head stays silent.
      if (!started) {
        if (target - indexed < 200) return;
        started = { at: now(), block: indexed };
        transfers = n;
      }
      const t = now();
      if (t - lastDraw < minGap && indexed < target) return;
      lastDraw = t;
      shown = true;
      out.write(`\r\x1b[2K${progressLine(indexed, target, started.block, transfers, (t - started.at) / 1000)}`);
      if (indexed >= target) this.done();
    },
    done() {
      if (shown) out.write('\n');
      shown = false;
      started = null;
      transfers = 0;
    },
  };
}
