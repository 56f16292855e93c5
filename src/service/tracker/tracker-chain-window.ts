// The watcher's memory of the canonical chain: block hashes by number for the last MAX_WINDOW blocks. It tells which
// parent to fetch next while walking back to a common ancestor, and which block hashes a reorganisation replaced.

export interface BlockInfo {
  number: number;
  hash: string;
  parentHash: string;
  /** Transaction hashes of the block, lowercase. */
  txs: string[];
}

/** Deep enough for the largest `confirmation` (1000) plus margin. */
export const MAX_WINDOW = 1100;

export class ChainWindow {
  private readonly hashes = new Map<number, string>();
  private tipNumber: number | null = null;

  get tip(): number | null {
    return this.tipNumber;
  }

  hashAt(n: number): string | undefined {
    return this.hashes.get(n);
  }

  /** True/false when the window knows block `n`; undefined when it is outside the window. */
  isCanonical(n: number, hash: string): boolean | undefined {
    const known = this.hashes.get(n);
    return known === undefined ? undefined : known === hash;
  }

  /**
   * Whether `oldest` (the oldest block fetched so far in this sync) links to what the window knows.
   * 'connected': its parent is ours (or unknown because older than the window); 'fetch-parent': walk back one more.
   */
  linkOf(oldest: BlockInfo): 'connected' | 'fetch-parent' {
    if (this.tipNumber === null || oldest.number === 0) return 'connected';
    const known = this.hashes.get(oldest.number - 1);
    if (known === undefined) return 'connected';
    return known === oldest.parentHash ? 'connected' : 'fetch-parent';
  }

  /** Records newly canonical blocks (any order) ending at `head`; returns the block hashes they displaced. */
  apply(blocks: readonly BlockInfo[], head: number): Set<string> {
    const displaced = new Set<string>();
    for (const b of blocks) {
      const old = this.hashes.get(b.number);
      if (old !== undefined && old !== b.hash) displaced.add(old);
      this.hashes.set(b.number, b.hash);
    }
    if (this.tipNumber !== null) {
      for (let n = head + 1; n <= this.tipNumber; n++) {
        const old = this.hashes.get(n);
        if (old !== undefined) displaced.add(old);
        this.hashes.delete(n);
      }
    }
    this.tipNumber = head;
    for (const n of this.hashes.keys()) if (n <= head - MAX_WINDOW) this.hashes.delete(n);
    return displaced;
  }
}
