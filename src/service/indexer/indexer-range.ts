// How many blocks the next eth_getLogs asks for: shrink when the node refuses or answers too much, grow while answers are small.

export interface RangePolicy {
  min: number;
  max: number;
  /** Answers above twice this many logs shrink the span; below half of it grow the span. */
  targetLogs: number;
}

export const DEFAULT_RANGE_POLICY: RangePolicy = { min: 1, max: 100_000, targetLogs: 10_000 };

export type RangeOutcome = { kind: 'ok'; logs: number } | { kind: 'refused' };

export function nextSpan(span: number, outcome: RangeOutcome, policy: RangePolicy = DEFAULT_RANGE_POLICY): number {
  const clamp = (n: number) => Math.max(policy.min, Math.min(policy.max, Math.floor(n)));
  if (outcome.kind === 'refused') return clamp(span / 2);
  if (outcome.logs > policy.targetLogs * 2) return clamp(span / 2);
  if (outcome.logs < policy.targetLogs / 2) return clamp(span * 2);
  return clamp(span);
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
