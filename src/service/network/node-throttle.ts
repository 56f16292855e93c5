// Applies node-budget.ts where the service sends requests to a node: one budget per node URL in the process, kept in
// memory shared with the indexer's reader thread, and `throttled`, which waits for the budget, sends, and asks again
// after the node's pause when the answer is back-pressure (HTTP 429, "exceeded its capacity"), so a node that slows
// us down is never taken for a failed one until its back-pressure has lasted BACK_PRESSURE_LIMIT_MS.
import { redactNodeUrl } from './node-choice.js';
import {
  afterAnswer,
  BUDGET_POLICY,
  freshBudget,
  pressureOf,
  started,
  waitBeforeStart,
  type BudgetOutcome,
  type BudgetPolicy,
  type BudgetState,
} from './node-budget.js';

/** One node's budget as the parts of the service that talk to it use it. */
export interface NodeThrottle {
  readonly url: string;
  /** Waits until a request may start (the node's pause, then the budget) and counts it; rejects once `signal` aborts. */
  admit(signal?: AbortSignal): Promise<void>;
  /** Ms left of the node's pause (its Retry-After); 0 when requests may go. */
  pausedForMs(): number;
  /** Counts a request sent without waiting for the budget (a probe, which must not queue behind the indexer's reads). */
  startNow(): void;
  /** The outcome of a request counted by admit() or startNow(). */
  record(outcome: BudgetOutcome): void;
  report(): NodeThrottleReport;
  /** The budget's memory, for a worker thread that talks to the same node (adoptThrottleMemory). */
  readonly memory: SharedArrayBuffer;
}

export interface NodeThrottleReport {
  /** Requests per second allowed; null while the node is not limited. */
  requestsPerSecond: number | null;
  /** Since when (ms) the node has only pushed back; null while it answers. */
  pressedSince: number | null;
  /** Its back-pressure has lasted BACK_PRESSURE_LIMIT_MS: the node counts as failing. */
  failing: boolean;
  /** Back-pressure answers since the process started, by every thread. */
  refusals: number;
}

/** Thrown when a node has pushed back for BACK_PRESSURE_LIMIT_MS with no answer: callers treat it as a failed request. */
export class NodeBackPressureError extends Error {
  readonly code = 'node-back-pressure';
  constructor(url: string, forMs: number) {
    // Named without its path or query, where hosted nodes keep API keys: this sentence reaches the logs.
    super(
      `the node at ${redactNodeUrl(url)} has answered nothing but back-pressure (HTTP 429 or a capacity error) ` +
        `for ${Math.round(forMs / 1000)} s; it counts as failing until it answers again`,
    );
    this.name = 'NodeBackPressureError';
  }
}

/** A request's answer when it is back-pressure: the node asks us to wait `retryAfterMs` (null: it does not say). */
export class NodeBackPressure extends Error {
  constructor(
    readonly url: string,
    readonly retryAfterMs: number | null,
  ) {
    super(`the node at ${redactNodeUrl(url)} asks to slow down (HTTP 429 or a capacity error)`);
    this.name = 'NodeBackPressure';
  }
}

// One budget per node URL in the process, not one per caller: the node's limits are the node's, whoever asks (the
// indexer, the receipt watcher, the webhooks' activity scan, the probes, and a network configured twice on one node).
// Module-level on purpose: the webhooks' scan opens its own node client by URL, and a worker thread joins through
// adoptThrottleMemory. Entries are a few bytes per node URL and live as long as the process.
const throttles = new Map<string, NodeThrottle>();

/** The budget of the node at `url` in this process, made on first use with `policy` (tests shorten its times). */
export function nodeThrottle(url: string, policy: BudgetPolicy = BUDGET_POLICY): NodeThrottle {
  let t = throttles.get(url);
  if (!t) throttles.set(url, (t = createThrottle(url, new SharedArrayBuffer(FIELDS.length * 8), true, policy)));
  return t;
}

/** In a worker thread: the node at `url` uses the main thread's budget memory, so both threads share one budget. */
export function adoptThrottleMemory(url: string, memory: SharedArrayBuffer): void {
  throttles.set(url, createThrottle(url, memory, false));
}

/**
 * Sends through `attempt` once the budget allows, again after the node's pause while the answer is NodeBackPressure,
 * and resolves with the first real answer. Rejects with NodeBackPressureError once the back-pressure has lasted
 * BACK_PRESSURE_LIMIT_MS, with whatever `attempt` threw otherwise (a dead node is not back-pressure), and with
 * `signal`'s reason once it aborts.
 */
export async function throttled<T>(throttle: NodeThrottle, attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (;;) {
    await throttle.admit(signal);
    try {
      const answer = await attempt();
      throttle.record({ kind: 'answered' });
      return answer;
    } catch (e) {
      if (!(e instanceof NodeBackPressure)) throw e;
      throttle.record({ kind: 'refused', retryAfterMs: e.retryAfterMs });
      const pressure = throttle.report();
      if (pressure.failing) throw new NodeBackPressureError(throttle.url, Date.now() - (pressure.pressedSince ?? Date.now()));
    }
  }
}

/** The state's numbers in the shared memory, in this order; null is stored as NaN. */
const FIELDS = [
  'rate',
  'tokens',
  'at',
  'pausedUntil',
  'pressedSince',
  'halvedAt',
  'recent',
  'refusals',
] as const satisfies readonly (keyof BudgetState)[];

function createThrottle(url: string, memory: SharedArrayBuffer, fresh: boolean, policy: BudgetPolicy = BUDGET_POLICY): NodeThrottle {
  const cells = new Float64Array(memory);
  // Each thread reads, decides and writes back in one synchronous step; two threads deciding in the same instant may
  // lose one token or one refusal count, which the next answer corrects. No lock is worth that.
  const load = (): BudgetState => {
    const s = Object.fromEntries(FIELDS.map((f, i) => [f, cells[i]!])) as unknown as BudgetState;
    return Number.isNaN(s.pressedSince) ? { ...s, pressedSince: null } : s;
  };
  const store = (s: BudgetState) =>
    FIELDS.forEach((f, i) => (cells[i] = f === 'pressedSince' && s.pressedSince === null ? NaN : (s[f] as number)));
  if (fresh) store(freshBudget(Date.now()));
  return {
    url,
    memory,
    async admit(signal) {
      for (;;) {
        signal?.throwIfAborted();
        const now = Date.now();
        const wait = waitBeforeStart(load(), now, policy);
        if (wait === 0) return store(started(load(), now, policy));
        await sleep(wait, signal);
      }
    },
    pausedForMs: () => Math.max(0, load().pausedUntil - Date.now()),
    startNow: () => store(started(load(), Date.now(), policy)),
    record: (outcome) => store(afterAnswer(load(), outcome, Date.now(), policy)),
    report() {
      const s = load();
      const { failing } = pressureOf(s, Date.now(), policy);
      return {
        requestsPerSecond: s.rate === Infinity ? null : Math.round(s.rate * 10) / 10,
        pressedSince: s.pressedSince,
        failing,
        refusals: s.refusals,
      };
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
