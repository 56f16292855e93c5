// How many blocks the next eth_getLogs asks for: shrink when the node refuses or answers too much, grow while answers are
// small, and remember what the node refused, so the span stays below a provider's limit instead of doubling into it.

export interface RangePolicy {
  min: number;
  max: number;
  /** Answers above twice this many logs shrink the span; below half of it grow the span. */
  targetLogs: number;
}

export const DEFAULT_RANGE_POLICY: RangePolicy = { min: 1, max: 100_000, targetLogs: 10_000 };

/** What one read returned: its logs (multi-token logs by their tokens), and the most of them in any one block. */
export interface RangeSize {
  logs: number;
  /** Unknown (undefined): the span follows the total alone. */
  densest?: number;
}

export type RangeOutcome = ({ kind: 'ok' } & RangeSize) | { kind: 'refused' };

/**
 * The span of the next read. Answers far above the target shrink it to the span that would have held about the
 * target at their density, answers far below it double it. And a block that alone holds half the target or more caps
 * the span at the blocks of that size the target holds: a span grown over empty blocks (a catch-up that starts
 * before a contract's first logs) would otherwise read several such blocks per request, whose answer arrives, and is
 * parsed, as one piece before anything of it can be written.
 */
export function nextSpan(span: number, outcome: RangeOutcome, policy: RangePolicy = DEFAULT_RANGE_POLICY): number {
  const clamp = (n: number) => Math.max(policy.min, Math.min(policy.max, Math.floor(n)));
  if (outcome.kind === 'refused') return clamp(span / 2);
  const { logs, densest = 0 } = outcome;
  let next = span;
  if (logs > policy.targetLogs * 2) next = Math.min(span / 2, (span * policy.targetLogs) / logs);
  else if (logs < policy.targetLogs / 2) next = span * 2;
  if (densest >= policy.targetLogs / 2) next = Math.min(next, Math.max(1, policy.targetLogs / densest));
  return clamp(next);
}

/** Answered reads after which a refused span is tried again: a refusal for a dense stretch must not cap a sparse one for good. */
export const RELEARN_AFTER = 500;

/** What the node's answers taught: the span to ask for next, and the limits it showed. */
export interface SpanMemory {
  span: number;
  /** The fewest blocks the node refused in one eth_getLogs (spans stay below it); null before any refusal. */
  refused: number | null;
  /** The most blocks one answered read held (the span to fall back to after a refusal above it); 0 before any. */
  answered: number;
  /** Reads answered since the last refusal. */
  sinceRefusal: number;
  /** The most results the node said it returns per request ("more than 10000 results"); answers aim at half of it. */
  resultsLimit: number | null;
}

export const firstSpan = (span: number): SpanMemory => ({
  span: Math.max(1, span),
  refused: null,
  answered: 0,
  sinceRefusal: 0,
  resultsLimit: null,
});

/**
 * After a read of `blocks` blocks was answered with `size`: the span grows or shrinks as nextSpan says, aiming at half a
 * results limit the node named, and grows toward a refused span by halving the gap, never onto it. Pure.
 */
export function spanAfterAnswer(m: SpanMemory, blocks: number, size: RangeSize, policy: RangePolicy = DEFAULT_RANGE_POLICY): SpanMemory {
  const targetLogs = m.resultsLimit === null ? policy.targetLogs : Math.max(1, Math.min(policy.targetLogs, Math.floor(m.resultsLimit / 2)));
  const sinceRefusal = m.sinceRefusal + 1;
  const refused = sinceRefusal >= RELEARN_AFTER ? null : m.refused;
  let span = nextSpan(m.span, { kind: 'ok', ...size }, { ...policy, targetLogs });
  if (refused !== null && span >= refused) span = Math.max(policy.min, Math.min(refused - 1, Math.floor((m.span + refused) / 2)));
  return { span, refused, answered: Math.max(m.answered, blocks), sinceRefusal, resultsLimit: m.resultsLimit };
}

/**
 * After the node refused a read of `blocks` blocks for its range or size (`err`, for a results limit it names): the
 * next span is the largest answered below it, else half of it, and no later span reaches it. Pure.
 */
export function spanAfterRefusal(m: SpanMemory, blocks: number, err: unknown, policy: RangePolicy = DEFAULT_RANGE_POLICY): SpanMemory {
  const refused = Math.min(m.refused ?? Infinity, blocks);
  // An answer as wide as a refusal came from a sparser stretch: it is no fallback here.
  const answered = m.answered < refused ? m.answered : 0;
  const named = resultsLimitIn(err);
  const span = Math.max(policy.min, Math.min(refused - 1, answered > 0 ? answered : Math.floor(blocks / 2)));
  return {
    span,
    refused,
    answered,
    sinceRefusal: 0,
    resultsLimit: named === null ? m.resultsLimit : Math.min(m.resultsLimit ?? Infinity, named),
  };
}

/** The results limit a node's refusal names ("query returned more than 10000 results"), or null. */
export function resultsLimitIn(err: unknown): number | null {
  const e = err as { message?: unknown; error?: { message?: unknown } } | null;
  const m = /more than (\d+) results/i.exec(`${String(e?.message ?? '')} ${String(e?.error?.message ?? '')}`);
  return m ? Number(m[1]) : null;
}

/**
 * True when a node refused eth_getLogs because of the range or the size of the answer (messages differ per node:
 * geth/erigon "query returned more than 10000 results", Alchemy/Infura "block range", "response size exceeded",
 * anvil/reth "exceeds max", -32005 "limit exceeded").
 */
export function isRangeRefusal(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  const codes = [e?.code, e?.error?.code];
  if (codes.includes(-32005) || codes.includes(413)) return true;
  const text = `${String(e?.message ?? '')} ${String(e?.error?.message ?? '')}`.toLowerCase();
  return (
    /(more than \d+ results|too many|block range|range (is )?too (large|wide|big)|limit exceeded)/.test(text) ||
    /(exceeds? (the )?(max|limit)|response size|query timeout|max results)/.test(text)
  );
}
