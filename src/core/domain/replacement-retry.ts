// Which skipped replacements deserve another look: a nonce left stuck by the fee cap, the replacement limit or a
// missing key is asked again when fees fall, the user raises the limits or the key is loaded. Pure: the records, their histories and the policy come in.
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import type { TxEvent, TxRecord } from '../../shared/tx-record.js';
import { isMined, PROBLEM_OF_SKIP, type RetryableSkipReason, type SkipDecision } from './replacement.js';

const RETRYABLE: ReadonlySet<unknown> = new Set(Object.keys(PROBLEM_OF_SKIP));

export interface WaitingAttempt {
  /** The newest attempt of the nonce: the one a retry replaces. */
  record: TxRecord;
  /** Every other record of the nonce. */
  others: TxRecord[];
  reason: RetryableSkipReason;
  /** The `replacement-skipped` event that left it waiting. */
  lastSkip: TxEvent;
}

/**
 * The newest attempt of a nonce: the highest `attempt`; of equal ones the later created (a nonce whose first
 * transaction the node refused is reused at attempt 0), and of equal times the later in the list.
 */
export function newestAttempt(records: readonly TxRecord[]): TxRecord | null {
  let best: TxRecord | null = null;
  for (const r of records) {
    if (!best || r.attempt > best.attempt || (r.attempt === best.attempt && r.createdAt >= best.createdAt)) best = r;
  }
  return best;
}

const DECISIONS: ReadonlySet<string> = new Set(['replacement-sent', 'replacement-skipped']);

/**
 * Whether the nonce of `records` (every record of one sender and nonce) waits for a retry: nothing of it is mined,
 * its newest attempt is neither replaced nor superseded, that attempt's last replacement decision was a skip for
 * `cap` or `max-replacements`, and asking again can help now. For `max-replacements` only once the policy allows
 * more attempts; for `cap` always, since fees move and the fee check decides. `histories` maps a hash to its events,
 * oldest first; only the newest attempt's is read.
 */
export function waitingForRetry(
  records: readonly TxRecord[],
  histories: ReadonlyMap<string, readonly TxEvent[]>,
  policy: ReplacementPolicy,
): WaitingAttempt | null {
  const newest = newestAttempt(records);
  if (!newest) return null;
  if (records.some(isMined)) return null;
  // `replaced` without a winner of ours means the nonce was used elsewhere. A record with no status yet is a
  // replacement the node refused as underpriced whose re-bump was skipped: the nonce is stuck all the same.
  if ((newest.status !== undefined && newest.status !== 'pending') || newest.replacedBy !== null) return null;
  const lastSkip = [...(histories.get(newest.transactionHash) ?? [])].reverse().find((e) => DECISIONS.has(e.kind));
  if (lastSkip?.kind !== 'replacement-skipped' || !RETRYABLE.has(lastSkip.detail.reason)) return null;
  const reason = lastSkip.detail.reason as RetryableSkipReason;
  if (reason === 'max-replacements' && newest.attempt >= policy.maxReplacements) return null;
  return { record: newest, others: records.filter((r) => r !== newest), reason, lastSkip };
}

/**
 * Movement of the needed fee below this share of the last recorded one is not news: fees drift a little every
 * block, and on a real network an event per retry would bury the history.
 */
export const NOTABLE_FEE_CHANGE_PERCENT = 10;

/**
 * Whether a retry's skip says something the last recorded skip did not: another reason, another cap, a needed fee
 * at least NOTABLE_FEE_CHANGE_PERCENT away from the recorded one, or (other reasons) any other fact.
 */
export function skipIsNews(last: TxEvent, next: SkipDecision): boolean {
  const prev = last.detail;
  if (prev.reason !== next.reason) return true;
  if (next.reason === 'cap') {
    if (String(prev.capWei) !== String(next.detail.capWei)) return true;
    const was = weiOf(prev.neededWei);
    const now = weiOf(next.detail.neededWei);
    if (was === null || now === null || was === 0n) return true;
    const moved = was > now ? was - now : now - was;
    return moved * 100n >= was * BigInt(NOTABLE_FEE_CHANGE_PERCENT);
  }
  const facts = { ...next.detail, reason: next.reason } as Record<string, unknown>;
  const keys = new Set([...Object.keys(prev), ...Object.keys(facts)]);
  return [...keys].some((k) => String(prev[k]) !== String(facts[k]));
}

function weiOf(v: unknown): bigint | null {
  if (typeof v !== 'string' || !/^\d+$/.test(v)) return null;
  return BigInt(v);
}
