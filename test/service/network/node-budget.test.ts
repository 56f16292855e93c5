// The per-node request budget (node-budget.ts) as properties over random runs of starts, answers and refusals at
// random times, a simulated provider with a fixed capacity, and the recognition of back-pressure as tables (pure: no
// clock, no network).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  afterAnswer,
  backPressureIn,
  BUDGET_POLICY,
  budgetAt,
  capacityPauseMs,
  freshBudget,
  isCapacityError,
  PROBE_SHARE,
  pressureOf,
  probeGapMs,
  retryAfterMs,
  started,
  waitBeforeStart,
  type BudgetOutcome,
  type BudgetPolicy,
  type BudgetState,
} from '../../../src/service/network/node-budget.js';

const p: BudgetPolicy = BUDGET_POLICY;

/** One thing that happens to a budget, `dt` ms after the previous one. */
type Event = { dt: number } & ({ kind: 'start' } | { kind: 'answered' } | { kind: 'refused'; retryAfterMs: number | null });

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.record({ dt: fc.integer({ min: 0, max: 3_000 }), kind: fc.constant('start' as const) }),
  fc.record({ dt: fc.integer({ min: 0, max: 3_000 }), kind: fc.constant('answered' as const) }),
  fc.record({
    dt: fc.integer({ min: 0, max: 3_000 }),
    kind: fc.constant('refused' as const),
    retryAfterMs: fc.option(fc.integer({ min: 0, max: 120_000 })),
  }),
);
const runArb = fc.array(eventArb, { minLength: 1, maxLength: 80 });

const apply = (s: BudgetState, e: Event, now: number): BudgetState => {
  if (e.kind === 'start') return started(s, now);
  const outcome: BudgetOutcome = e.kind === 'answered' ? { kind: 'answered' } : { kind: 'refused', retryAfterMs: e.retryAfterMs };
  return afterAnswer(s, outcome, now);
};

/** Every state of a run, with its time, from a fresh budget at t = 1,000,000. */
function replay(events: readonly Event[]): { before: BudgetState; after: BudgetState; e: Event; now: number }[] {
  let now = 1_000_000;
  let s = freshBudget(now);
  return events.map((e) => {
    now += e.dt;
    const before = s;
    s = apply(s, e, now);
    return { before, after: s, e, now };
  });
}

// The runs below check every step of a thousand random runs: each condition is tested first and `expect` called only
// when it fails (with the same matcher, so the message is the same), as one `expect` costs more than the step it checks.
describe('the budget, as properties over random runs', () => {
  const run = (check: (steps: ReturnType<typeof replay>) => void) =>
    fc.assert(
      fc.property(runArb, (events) => check(replay(events))),
      { numRuns: 1000 },
    );

  it('stays between the minimum and the ceiling, or is unlimited', () =>
    run((steps) => {
      for (const { after } of steps) {
        if (after.rate !== Infinity) {
          if (!(after.rate >= p.minPerSecond)) expect(after.rate).toBeGreaterThanOrEqual(p.minPerSecond);
          if (!(after.rate <= p.unlimitedAbove)) expect(after.rate).toBeLessThanOrEqual(p.unlimitedAbove);
        }
        const most = Math.max(1, after.rate === Infinity ? 1 : after.rate);
        if (!(after.tokens <= most)) expect(after.tokens).toBeLessThanOrEqual(most);
        if (!(after.tokens >= -1)) expect(after.tokens).toBeGreaterThanOrEqual(-1);
      }
    }));

  it('never raises the budget on a refusal, never lowers it on an answer or a start', () =>
    run((steps) => {
      for (const { before, after, e, now } of steps) {
        const grown = budgetAt(before, now).rate;
        if (e.kind === 'refused') {
          if (!(after.rate <= grown)) expect(after.rate).toBeLessThanOrEqual(grown);
        } else if (after.rate !== grown) expect(after.rate).toBe(grown);
      }
    }));

  it('halves at most once per halveEveryMs, and then to half of the lower of the budget and the recent send rate', () =>
    run((steps) => {
      let lastHalving = -Infinity;
      for (const { before, after, e, now } of steps) {
        if (after.halvedAt === before.halvedAt) continue;
        expect(e.kind).toBe('refused');
        expect(now - lastHalving).toBeGreaterThanOrEqual(p.halveEveryMs);
        const b = budgetAt(before, now);
        expect(after.rate).toBe(Math.max(p.minPerSecond, Math.min(b.rate, Math.max(b.recent, p.minPerSecond)) / 2));
        lastHalving = now;
      }
    }));

  it("honours the node's pause: no start before Retry-After (up to maxPauseMs) has passed", () =>
    fc.assert(
      fc.property(runArb, fc.option(fc.integer({ min: 0, max: 300_000 })), fc.integer({ min: 0, max: 400_000 }), (events, retry, later) => {
        const steps = replay(events);
        const { after, now } = steps.at(-1)!;
        const refused = afterAnswer(after, { kind: 'refused', retryAfterMs: retry }, now);
        const pause = Math.min(p.maxPauseMs, retry ?? p.defaultPauseMs);
        const wait = waitBeforeStart(refused, now + later);
        if (later < pause) expect(wait).toBeGreaterThanOrEqual(pause - later);
        // Never a wait longer than what the node (or an earlier refusal still running) asked for, plus two tokens: a
        // start may leave the budget one token in debt (tokens >= -1, above), and this start needs one of its own.
        expect(wait).toBeLessThanOrEqual(Math.max(refused.pausedUntil - (now + later), 0) + 2 * (1000 / p.minPerSecond) + 1);
      }),
      { numRuns: 1000 },
    ));

  it('counts back-pressure from the first refusal after an answer, and only an answer ends it', () =>
    run((steps) => {
      let since: number | null = null;
      for (const { after, e, now } of steps) {
        if (e.kind === 'answered') since = null;
        if (e.kind === 'refused') since ??= now;
        if (after.pressedSince !== since) expect(after.pressedSince).toBe(since);
        const pressure = pressureOf(after, now);
        const failing = since !== null && now - since >= p.failAfterMs;
        if (pressure.failing !== failing) expect(pressure.failing).toBe(failing);
        const forMs = since === null ? null : now - since;
        if (pressure.forMs !== forMs) expect(pressure.forMs).toBe(forMs);
      }
    }));

  it('lets no more requests start than the budget allows, over any stretch without refusals', () =>
    fc.assert(
      fc.property(fc.double({ min: 1, max: 400, noNaN: true }), fc.integer({ min: 1_000, max: 20_000 }), (rate, spanMs) => {
        // A client that starts a request whenever the budget lets it, for spanMs.
        let now = 0;
        let s: BudgetState = { ...freshBudget(0), rate, tokens: 1 };
        let count = 0;
        for (;;) {
          const wait = waitBeforeStart(s, now);
          if (now + wait > spanMs) break;
          now += wait;
          s = started(s, now);
          count++;
        }
        // The rate grows by increasePerSecond each second: the most it could allow is its value at the end, plus the
        // one token it starts with.
        const highest = Math.min(p.unlimitedAbove, rate + (p.increasePerSecond * spanMs) / 1000);
        expect(count).toBeLessThanOrEqual(Math.floor((highest * spanMs) / 1000) + 2);
      }),
      { numRuns: 500 },
    ));

  it('recovers additively and is lifted above the ceiling', () => {
    const refused = afterAnswer({ ...freshBudget(0), recent: 40 }, { kind: 'refused', retryAfterMs: 2_000 }, 0);
    expect(refused.rate).toBe(20);
    // Paused for 2 s: no growth yet.
    expect(budgetAt(refused, 2_000).rate).toBe(20);
    // Then increasePerSecond each second.
    expect(budgetAt(refused, 4_000).rate).toBe(20 + 2 * p.increasePerSecond);
    const lifted = 2_000 + ((p.unlimitedAbove - 20) / p.increasePerSecond) * 1000 + 1;
    expect(budgetAt(refused, lifted).rate).toBe(Infinity);
    expect(waitBeforeStart(refused, lifted)).toBe(0);
  });
});

describe('probes of a paced node', () => {
  it('take at most their share of the budget, and keep their own period otherwise', () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 50, max: 5_000 }),
        fc.option(fc.double({ min: p.minPerSecond, max: p.unlimitedAbove, noNaN: true })),
        (probeMs, rate) => {
          const gap = probeGapMs(probeMs, rate);
          expect(gap).toBeGreaterThanOrEqual(probeMs);
          if (rate === null) expect(gap).toBe(probeMs);
          // Two requests per probe.
          else expect(2 / (gap / 1000)).toBeLessThanOrEqual(rate * PROBE_SHARE + 1e-9);
        },
      ),
    ));
});

describe('against a provider with a fixed capacity', () => {
  /**
   * A provider that refuses (429, Retry-After 1 s) any request beyond `capacity` in the last second, and a client that
   * always has work: it starts requests whenever its budget lets it, for `seconds`, in 1 ms steps; each request is
   * answered after `rttMs`.
   */
  function simulate(capacity: number, seconds: number, rttMs: number, retryAfter: number | null) {
    let s = freshBudget(0);
    const accepted: number[] = [];
    const inFlight: { at: number; refused: boolean }[] = [];
    let ok = 0;
    let refusals = 0;
    for (let now = 0; now < seconds * 1000; now++) {
      for (let i = inFlight.length - 1; i >= 0; i--) {
        if (inFlight[i]!.at > now) continue;
        const r = inFlight.splice(i, 1)[0]!;
        s = afterAnswer(s, r.refused ? { kind: 'refused', retryAfterMs: retryAfter } : { kind: 'answered' }, now);
      }
      while (waitBeforeStart(s, now) === 0 && inFlight.length < 64) {
        s = started(s, now);
        while (accepted.length > 0 && accepted[0]! <= now - 1000) accepted.shift();
        const refused = accepted.length >= capacity;
        if (refused) refusals++;
        else {
          accepted.push(now);
          ok++;
        }
        inFlight.push({ at: now + rttMs, refused });
      }
    }
    return { okPerSecond: ok / seconds, refusedShare: refusals / (ok + refusals), rate: s.rate };
  }

  // Probing for the capacity costs refusals, more of them the smaller it is (the pause after each is a larger share of
  // the time, and one step of additive growth a larger share of the rate). Measured with this policy: capacity 5,
  // 2.7 answered/s and 33 % refused; 10, 5.8/s and 16 %; 25, 17.4/s and 3.4 %; 100, 72/s and 0.4 %.
  it.each([
    [5, 1_000, 0.4],
    [10, 1_000, 0.2],
    [25, null, 0.05],
    [100, 1_000, 0.01],
  ])(
    'settles below a capacity of %i requests/s (Retry-After %s ms): at least half of it answered, under %s refused',
    (capacity, retryAfter, refusedAtMost) => {
      const r = simulate(capacity, 120, 20, retryAfter);
      expect(r.okPerSecond).toBeGreaterThan(capacity * 0.5);
      expect(r.okPerSecond).toBeLessThanOrEqual(capacity);
      expect(r.refusedShare).toBeLessThan(refusedAtMost);
    },
  );
});

describe('what counts as back-pressure', () => {
  it.each<[string, string | null | undefined, number | null]>([
    ['seconds', '1', 1_000],
    ['seconds with spaces', ' 30 ', 30_000],
    ['decimal seconds, as some gateways send', '0.5', 500],
    ['an HTTP-date 5 s ahead', new Date(1_000_000 + 5_000).toUTCString(), 5_000],
    ['an HTTP-date in the past', new Date(0).toUTCString(), 0],
    ['absent', undefined, null],
    ['garbage', 'soon', null],
  ])('Retry-After: %s', (_name, header, ms) => expect(retryAfterMs(header, 1_000_000)).toBe(ms));

  it.each<[string, { code?: unknown; message?: unknown }, boolean]>([
    [
      'Alchemy',
      {
        code: 429,
        message:
          'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message.',
      },
      true,
    ],
    ['Infura rate', { code: -32005, message: 'project ID request rate exceeded' }, true],
    [
      'QuickNode',
      { code: -32007, message: '100/second request limit reached - reduce calls per second or upgrade your account at quicknode.com' },
      true,
    ],
    ['a gateway', { code: -32000, message: 'Too Many Requests' }, true],
    ['Infura log range (same code, not back-pressure)', { code: -32005, message: 'query returned more than 10000 results' }, false],
    ['a range limit', { code: -32005, message: 'query exceeds max block range 1000' }, false],
    ['a revert', { code: 3, message: 'execution reverted' }, false],
    ["a contract's own rate limit, reverting", { code: 3, message: 'execution reverted: rate limit exceeded' }, false],
    ['the same without the code', { code: -32000, message: 'execution reverted: Too Many Requests' }, false],
    ['a missing block', { code: -32000, message: 'header not found' }, false],
  ])('%s', (_name, error, yes) => expect(isCapacityError(error)).toBe(yes));

  it('reads the pause a capacity error names', () => {
    expect(capacityPauseMs({ data: { backoff_seconds: 30 } })).toBe(30_000);
    expect(capacityPauseMs({ data: { see: 'https://infura.io' } })).toBeNull();
    expect(capacityPauseMs(null)).toBeNull();
  });

  it.each<[string, number, string | null, unknown, { retryAfterMs: number | null } | null]>([
    ['HTTP 429 with Retry-After', 429, '2', 'Too Many Requests', { retryAfterMs: 2_000 }],
    ['HTTP 429 without', 429, null, null, { retryAfterMs: null }],
    [
      'a capacity error',
      200,
      null,
      { jsonrpc: '2.0', id: 1, error: { code: 429, message: 'exceeded its capacity' } },
      { retryAfterMs: null },
    ],
    [
      'a batch with one capacity error',
      200,
      null,
      [
        { id: 0, result: '0x1' },
        { id: 1, error: { code: -32005, message: 'request rate exceeded', data: { backoff_seconds: 3 } } },
      ],
      { retryAfterMs: 3_000 },
    ],
    ['an answer', 200, null, { jsonrpc: '2.0', id: 1, result: '0x10' }, null],
    [
      'a range refusal',
      200,
      null,
      { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'query returned more than 10000 results' } },
      null,
    ],
    ['HTTP 503 (a failure, not back-pressure)', 503, '5', null, null],
  ])('%s', (_name, status, header, answer, expected) => expect(backPressureIn(status, header, answer, 0)).toEqual(expected));
});
