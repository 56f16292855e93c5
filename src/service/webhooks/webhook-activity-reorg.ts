// Reorganisations under a webhook's address activity, as pure rules over plain data: whether the index still holds
// the block a cursor stopped at, which earlier cursor positions to remember, and after a rollback where to resume and
// which delivered moves to withdraw. The scanner (webhook-activity.ts) reads and writes; this only decides.

/** A block the cursor stood at, with the hash the index had for it then. */
export interface ActivityMark {
  block: number;
  hash: string;
}

/** What the index says now: its tip, and the hash it stores for a block (null: none stored, or above the tip). */
export interface IndexView {
  tip: number;
  hashAt(block: number): string | null;
  /**
   * Blocks the index keeps every hash of, below its tip (CHECKPOINT_KEEP_BLOCKS): a hash missing deeper than this may
   * have been pruned, so it says nothing about a reorganisation.
   */
  keepBlocks: number;
}

const sameHash = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Whether the index still holds the block `at` names with the same hash. A block above the tip is gone; a hash the
 * index no longer stores inside its checkpoint window is gone too (a rollback removed it and the new chain's block there
 * carries no checkpoint); below that window a missing hash is pruned, not replaced, and counts as held.
 */
export function holds(at: ActivityMark, view: IndexView): boolean {
  if (at.block > view.tip) return false;
  const stored = view.hashAt(at.block);
  if (stored !== null) return sameHash(stored, at.hash);
  return at.block < view.tip - view.keepBlocks;
}

/**
 * The earlier positions to remember for a cursor at `top`, out of `candidates` (any order), newest first. Thinned so
 * their depths below `top` grow geometrically: a mark goes when the two around it are no farther apart than the newer
 * one is deep. So for any depth d there is a mark between d and 2d + (the cursor's largest step) blocks down, with
 * about two marks per doubling of the depth. Below `deepest` only the newest mark is kept: the index keeps no hashes
 * that deep to compare with (a missing one counts as held), so that one mark is the floor a rollback goes no lower than.
 */
export function keepMarks(top: number, candidates: readonly ActivityMark[], deepest: number): ActivityMark[] {
  const m = [...candidates].filter((c) => c.block < top).sort((x, y) => y.block - x.block);
  for (let i = 1; i < m.length; ) {
    if (m[i]!.block === m[i - 1]!.block) m.splice(i, 1);
    else i++;
  }
  // One pass is enough: dropping a mark only widens the span around the marks before it.
  for (let i = 1; i < m.length - 1; ) {
    if (m[i - 1]!.block - m[i + 1]!.block <= top - m[i - 1]!.block) m.splice(i, 1);
    else i++;
  }
  const tooDeep = m.findIndex((c) => top - c.block > deepest);
  return tooDeep === -1 ? m : m.slice(0, tooDeep + 1);
}

/**
 * Where a webhook's cursor stands against the index: `follow` (scan on from it), `wait` (the index has not reached a
 * cursor it never saw, as when a webhook is made while the index catches up), or `rollBack` (the index no longer holds
 * the block the cursor stopped at). A cursor with no hash yet cannot tell a rollback and follows.
 */
export function cursorState(cursor: { block: number; hash: string | null }, view: IndexView): 'follow' | 'wait' | 'rollBack' {
  if (cursor.hash === null) return cursor.block > view.tip ? 'wait' : 'follow';
  return holds({ block: cursor.block, hash: cursor.hash }, view) ? 'follow' : 'rollBack';
}

/** The newest of `marks` the index still holds (null: none), below which a rollback need not look. */
export function newestHeld(marks: readonly ActivityMark[], view: IndexView): ActivityMark | null {
  let best: ActivityMark | null = null;
  for (const m of marks) if ((best === null || m.block > best.block) && holds(m, view)) best = m;
  return best;
}

/** One activity message the webhook was given (kept in its outbox): a move, or the withdrawal of one. */
export interface DeliveredMove {
  block: number;
  /** The block hash the move was delivered with. */
  hash: string;
  /** The move within its block (log index, contract, token id): with `hash`, what a withdrawal names. */
  key: string;
  removed: boolean;
}

export interface RollbackPlan<T extends DeliveredMove> {
  /** The block to scan on from, and its hash (null: unknown, as when no position the webhook knew is still held). */
  resume: { block: number; hash: string | null };
  /** The marks kept for the resumed cursor. */
  marks: ActivityMark[];
  /** Moves delivered from blocks the index dropped and not yet withdrawn, in the order they were delivered. */
  withdraw: T[];
}

/**
 * After a rollback under `cursor`: the highest position the webhook knows of (an earlier cursor position, or the block
 * of a move it delivered) that the index still holds is where the two chains still agree, so scanning resumes there and
 * every move delivered above it, not withdrawn yet, is withdrawn. No move at or below it is delivered again: any move
 * delivered between it and the fork would be a held position above it. When none is held (a reorganisation deeper than
 * everything remembered) it resumes just below the lowest of them, with an unknown hash.
 * `delivered`: the webhook's kept activity messages in the order they were stored, those above the newest held mark at least.
 */
export function planRollback<T extends DeliveredMove>(
  cursor: ActivityMark,
  marks: readonly ActivityMark[],
  delivered: readonly T[],
  view: IndexView,
): RollbackPlan<T> {
  const live = liveMoves(delivered);
  let resume: { block: number; hash: string | null } | null = null;
  for (const a of [...marks, ...live]) {
    if ((resume === null || a.block > resume.block) && a.block < cursor.block && holds(a, view)) resume = { block: a.block, hash: a.hash };
  }
  if (resume === null) {
    const lowest = Math.min(cursor.block, ...marks.map((m) => m.block), ...live.map((d) => d.block));
    resume = { block: Math.min(view.tip, lowest - 1), hash: null };
  }
  const at = resume.block;
  return { resume, marks: keepMarks(at, marks, view.keepBlocks), withdraw: live.filter((d) => d.block > at) };
}

/** The delivered moves not withdrawn since (a withdrawal cancels one earlier delivery of the same move and hash). */
export function liveMoves<T extends DeliveredMove>(delivered: readonly T[]): T[] {
  const withdrawn = new Map<string, number>();
  for (const d of delivered) if (d.removed) withdrawn.set(identity(d), (withdrawn.get(identity(d)) ?? 0) + 1);
  const live: T[] = [];
  for (const d of delivered) {
    if (d.removed) continue;
    const n = withdrawn.get(identity(d)) ?? 0;
    if (n > 0) withdrawn.set(identity(d), n - 1);
    else live.push(d);
  }
  return live;
}

const identity = (d: DeliveredMove) => `${d.hash.toLowerCase()}/${d.key}`;
