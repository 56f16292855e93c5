// A shutdown registry: whatever start-up creates registers how to undo it, and run() undoes everything newest first,
// once, so a failure half-way through start-up and a normal stop take the same path (Ponder's createShutdown).
export interface Shutdown {
  /** Registers an undo; it runs before everything registered earlier. */
  add(dispose: () => unknown): void;
  /** Runs every undo newest first; a failing one is reported and the rest still run. Later calls share the first run. */
  run(): Promise<void>;
  /** True once run() has been called: nothing new should start. */
  readonly isStopping: boolean;
}

export function createShutdown(onError: (error: unknown) => void): Shutdown {
  const disposers: Array<() => unknown> = [];
  let running: Promise<void> | undefined;
  return {
    add: (dispose) => void disposers.push(dispose),
    run: () =>
      (running ??= (async () => {
        for (const dispose of disposers.splice(0).reverse()) {
          try {
            await dispose();
          } catch (e) {
            onError(e);
          }
        }
      })()),
    get isStopping() {
      return running !== undefined;
    },
  };
}
