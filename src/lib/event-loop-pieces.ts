// Long synchronous work cut into pieces with a turn of the event loop between them, so that one caller's big job (a
// fleet's index write of a 10,000-move range) never holds the thread that answers everyone else for long.

/** A turn of the event loop: resolves after the I/O that is waiting has been handled. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `steps` to its end, giving the event loop a turn at each of its yields; returns what it returns. */
export async function runInPieces<T>(steps: Generator<unknown, T, undefined>): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await nextTurn();
  }
}

/** Runs `steps` to its end at once, without a turn between its pieces (for a caller inside a transaction). */
export function runWhole<T>(steps: Generator<unknown, T, undefined>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Calls `f` on each item, giving the event loop a turn after every `size` items (never when Infinity). */
export async function forEachInPieces<T>(items: Iterable<T>, size: number, f: (item: T) => void): Promise<void> {
  let n = 0;
  for (const item of items) {
    f(item);
    if (++n % size === 0) await nextTurn();
  }
}
