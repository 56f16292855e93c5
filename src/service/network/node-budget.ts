// How fast the service may send requests to one node, and when a node's back-pressure (HTTP 429, a provider's
// "exceeded its capacity" error) has lasted long enough to count as the node failing: pure functions over one record
// of numbers (no clock, no I/O), so the rules are tested as properties and node-throttle.ts applies them where
// requests are sent. A node that pushes back is slowed down, not given up.

/** The numbers of the policy; BUDGET_POLICY is the service's. */
export interface BudgetPolicy {
  /** The budget never goes below this many requests per second. */
  minPerSecond: number;
  /** Additive recovery: each second without a halving adds this many requests per second to the budget. */
  increasePerSecond: number;
  /** A budget that has recovered above this many requests per second is lifted (the node is no longer limited). */
  unlimitedAbove: number;
  /** At most one halving per this many ms: refusals of requests sent before a halving are not new news. */
  halveEveryMs: number;
  /** The pause after a refusal that names no time (no Retry-After). */
  defaultPauseMs: number;
  /** A longer Retry-After is shortened to this (a quota reset hours away would leave the node unprobed that long). */
  maxPauseMs: number;
  /** Back-pressure with no answer in between for this long counts as the node failing. */
  failAfterMs: number;
}

/**
 * 60 s of nothing but back-pressure before a node counts as failing: long enough for a provider's per-minute quota to
 * refill, short enough that a node that will not serve us is left for another within the minute. docs/deploy.md.
 */
export const BACK_PRESSURE_LIMIT_MS = 60_000;

export const BUDGET_POLICY: BudgetPolicy = {
  minPerSecond: 1,
  increasePerSecond: 5,
  unlimitedAbove: 500,
  halveEveryMs: 1_000,
  defaultPauseMs: 1_000,
  maxPauseMs: 60_000,
  failAfterMs: BACK_PRESSURE_LIMIT_MS,
};

/** One node's budget. Only numbers (and Infinity, and null), so it can live in memory shared with a worker thread. */
export interface BudgetState {
  /** Requests per second allowed; Infinity until the node first pushes back, and again once recovered. */
  rate: number;
  /** Requests that may start now without waiting; refills at `rate`, holds at most one second's worth (at least 1). */
  tokens: number;
  /** When `tokens`, `rate` and `recent` were last brought up to date (ms). */
  at: number;
  /** No request starts before this (ms): the node's Retry-After. */
  pausedUntil: number;
  /** When the current run of refusals began (ms): set by a refusal after an answer, cleared by the next answer. */
  pressedSince: number | null;
  /** When the budget was last halved (ms). */
  halvedAt: number;
  /** Requests started in about the last second (decayed), what the budget is halved from while unlimited. */
  recent: number;
  /** Refusals since the budget was made (for /metrics). */
  refusals: number;
}

export const freshBudget = (now: number): BudgetState => ({
  rate: Infinity,
  tokens: 1,
  at: now,
  pausedUntil: 0,
  pressedSince: null,
  halvedAt: -Infinity,
  recent: 0,
  refusals: 0,
});

/** What a request's answer tells the budget: the node answered (anything but back-pressure), or it pushed back. */
export type BudgetOutcome = { kind: 'answered' } | { kind: 'refused'; retryAfterMs: number | null };

/** The budget brought up to `now`: tokens refilled, the rate grown additively since the last halving, `recent` decayed. */
export function budgetAt(s: BudgetState, now: number, p: BudgetPolicy = BUDGET_POLICY): BudgetState {
  const dt = Math.max(0, now - s.at);
  if (dt === 0) return s;
  const recent = s.recent * Math.exp(-dt / 1000);
  if (s.rate === Infinity) return { ...s, at: now, recent, tokens: 1 };
  // Growth starts once the pause is over: a node that asked for quiet is not owed more requests for having had it.
  const growing = Math.max(0, now - Math.max(s.at, s.pausedUntil));
  const grown = s.rate + (p.increasePerSecond * growing) / 1000;
  const rate = grown > p.unlimitedAbove ? Infinity : grown;
  const tokens = rate === Infinity ? 1 : Math.min(Math.max(1, rate), s.tokens + (s.rate * dt) / 1000);
  return { ...s, at: now, recent, rate, tokens };
}

/** Milliseconds before a request may start: the node's pause, then a token. 0 means now. */
export function waitBeforeStart(s: BudgetState, now: number, p: BudgetPolicy = BUDGET_POLICY): number {
  const b = budgetAt(s, now, p);
  const paused = Math.max(0, b.pausedUntil - now);
  if (paused > 0) return paused;
  if (b.rate === Infinity || b.tokens >= 1) return 0;
  return Math.ceil(((1 - b.tokens) / b.rate) * 1000);
}

/** A request started: it takes a token (a probe that did not wait may take the last one and leave a debt). */
export function started(s: BudgetState, now: number, p: BudgetPolicy = BUDGET_POLICY): BudgetState {
  const b = budgetAt(s, now, p);
  return { ...b, tokens: b.rate === Infinity ? 1 : Math.max(-1, b.tokens - 1), recent: b.recent + 1 };
}

/**
 * A request's answer. An answer ends a run of refusals. A refusal pauses the node for its Retry-After (or the default
 * pause), starts the run if none is under way, and halves the budget (from the recent send rate while unlimited) unless
 * it was halved less than `halveEveryMs` ago.
 */
export function afterAnswer(s: BudgetState, outcome: BudgetOutcome, now: number, p: BudgetPolicy = BUDGET_POLICY): BudgetState {
  const b = budgetAt(s, now, p);
  if (outcome.kind === 'answered') return b.pressedSince === null ? b : { ...b, pressedSince: null };
  const pause = Math.min(p.maxPauseMs, Math.max(0, outcome.retryAfterMs ?? p.defaultPauseMs));
  const halve = now - b.halvedAt >= p.halveEveryMs;
  const from = Math.min(b.rate, Math.max(b.recent, p.minPerSecond));
  const rate = halve ? Math.max(p.minPerSecond, from / 2) : b.rate;
  return {
    ...b,
    rate,
    tokens: Math.min(b.tokens, Math.max(1, rate)),
    pausedUntil: Math.max(b.pausedUntil, now + pause),
    pressedSince: b.pressedSince ?? now,
    halvedAt: halve ? now : b.halvedAt,
    refusals: b.refusals + 1,
  };
}

/** How long the node has pushed back without answering (null when it is not pushing back), and whether that is failing. */
export function pressureOf(s: BudgetState, now: number, p: BudgetPolicy = BUDGET_POLICY): { forMs: number | null; failing: boolean } {
  if (s.pressedSince === null) return { forMs: null, failing: false };
  const forMs = Math.max(0, now - s.pressedSince);
  return { forMs, failing: forMs >= p.failAfterMs };
}

/** Probes may take at most this share of a paced node's budget: the reads they watch over come first. */
export const PROBE_SHARE = 0.25;

/**
 * The pause between two probes of a node (each probe is two requests): `probeMs` while the node is not paced, else long
 * enough that probes take at most PROBE_SHARE of its budget (at 5 requests a second, one probe every 1.6 s).
 */
export function probeGapMs(probeMs: number, requestsPerSecond: number | null): number {
  if (requestsPerSecond === null) return probeMs;
  return Math.max(probeMs, Math.ceil((2 / (requestsPerSecond * PROBE_SHARE)) * 1000));
}

/**
 * Retry-After as ms from `now`: delay-seconds (RFC 9110; decimals accepted, as some gateways send them) or an
 * HTTP-date. Null when absent or unreadable.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | null {
  if (header == null) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Whether a JSON-RPC error is a provider saying "too fast" rather than refusing the request itself: Alchemy (code
 * 429, "exceeded its compute units per second capacity"), Infura (-32005 "project ID request rate exceeded"),
 * QuickNode (-32007 "100/second request limit reached"), and "Too Many Requests" from the rest. Infura's -32005 also
 * refuses a log range ("query returned more than 10000 results"), which is not back-pressure: it must be asked
 * differently, so a code alone never decides.
 */
export function isCapacityError(error: { code?: unknown; message?: unknown } | null | undefined): boolean {
  if (!error) return false;
  const text = String(error.message ?? '');
  // A contract's own words in a revert ("rate limit exceeded" from its require) are the call's answer, not the node's.
  if (error.code === 3 || /revert/i.test(text)) return false;
  if (error.code === 429) return true;
  return (
    /exceeded (its|your|the)\b.*\bcapacity|capacity (exceeded|reached)|\brate[- ]limit|request rate|too many requests/i.test(text) ||
    /requests? per second|\/second request limit|compute units per second|throughput (limit|exceeded)/i.test(text)
  );
}

/** The pause a capacity error asks for in its `data` (Infura: `backoff_seconds`), in ms; null when it names none. */
export function capacityPauseMs(error: { data?: unknown } | null | undefined): number | null {
  const data = error?.data as { backoff_seconds?: unknown; retryAfter?: unknown; retry_after?: unknown } | null | undefined;
  const seconds = data?.backoff_seconds ?? data?.retryAfter ?? data?.retry_after;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null;
}

/**
 * The back-pressure in one HTTP answer (its status, its Retry-After and its parsed JSON-RPC body, an object or a
 * batch array), or null when it holds none. A batch with one capacity error is refused as a whole: the calls are
 * reads, and asking again for all of them is simpler than for the few.
 */
export function backPressureIn(
  status: number,
  retryAfter: string | null | undefined,
  answer: unknown,
  now: number,
): { retryAfterMs: number | null } | null {
  const header = retryAfterMs(retryAfter, now);
  if (status === 429) return { retryAfterMs: header };
  const errors = (Array.isArray(answer) ? answer : [answer]).map((a) =>
    a && typeof a === 'object' ? (a as { error?: { code?: unknown; message?: unknown; data?: unknown } }).error : undefined,
  );
  const capacity = errors.find((e) => isCapacityError(e));
  return capacity ? { retryAfterMs: header ?? capacityPauseMs(capacity) } : null;
}
