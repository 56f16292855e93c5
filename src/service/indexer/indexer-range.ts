// How many blocks the next eth_getLogs asks for: shrink when the node refuses or answers too much, grow while answers are small.

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
  return /(more than \d+ results|too many|block range|range (is )?too (large|wide|big)|limit exceeded|exceeds? (the )?(max|limit)|response size|query timeout|max results)/.test(
    text,
  );
}
