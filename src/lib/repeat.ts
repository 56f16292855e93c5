// A task repeated on a timer that never overlaps itself: a tick that comes while the last run is still going is
// skipped, and a failed run is the task's own business (it logs what it wants). The timer keeps no process alive.
export function repeatWithoutOverlap(run: () => Promise<unknown>, everyMs: number): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void run()
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
