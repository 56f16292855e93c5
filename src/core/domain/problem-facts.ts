// The facts a nonce problem and a node refusal are made of, as data beside their sentence: what the renderer acts on
// (the fee a replacement needs, the balance and the cost) and what the engine compares to tell news from a repeat, so
// no decision reads a sentence back. Pure.
import type { NonceProblem, NonceProblemFacts, NonceProblemReason, TxEvent } from '../../shared/tx-record.js';
import type { RefusalFacts } from './refusal.js';
import type { SkipDecision } from './replacement.js';
import type { RequestRefusal } from './send-check.js';

/** Refusals whose sentence quotes the node's own words: for them a change of words is news. */
const QUOTES_THE_NODE: ReadonlySet<string> = new Set(['fee-too-low', 'refused']);

/** A node's refusal of a broadcast: its kind, the attempt's fee and cost, the balance when read, the node's words when quoted. */
export function refusalProblemFacts(f: RefusalFacts): NonceProblemFacts {
  return {
    code: f.failure,
    feeWei: f.feeWei.toString(),
    costWei: f.costWei.toString(),
    ...(f.balanceWei !== null ? { balanceWei: f.balanceWei.toString() } : {}),
    ...(QUOTES_THE_NODE.has(f.failure) ? { nodeMessage: f.message } : {}),
  };
}

/** A replacement skipped for a reason the person can undo: the fee it needs and the cap, or the limit it reached. */
export function skipProblemFacts(s: SkipDecision): NonceProblemFacts {
  if (s.reason === 'cap') return { code: s.reason, neededWei: s.detail.neededWei, capWei: s.detail.capWei };
  if (s.reason === 'max-replacements') return { code: s.reason, attempt: s.detail.attempt, maxReplacements: s.detail.maxReplacements };
  return { code: s.reason };
}

/** A cancel the engine could not sign: the fee it needs above the cap, or the key it lacks. */
export function cancelRefusalFacts(r: RequestRefusal): NonceProblemFacts {
  if (r.code === 'bump-above-cap') return { code: r.code, neededWei: r.feeWei.toString(), capWei: r.capWei.toString() };
  return { code: r.code };
}

/** Two sets of facts that say the same: every fact equal, whatever the order they were written in. */
export function sameFacts(a: NonceProblemFacts | undefined, b: NonceProblemFacts | undefined): boolean {
  if (!a || !b) return a === b;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof NonceProblemFacts>;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether setting this problem changes the nonce's problem: another reason, or other facts behind the same one. */
export function problemChanges(was: NonceProblem | null, reason: NonceProblemReason, facts: NonceProblemFacts): boolean {
  return !(was?.reason === reason && sameFacts(was.facts, facts));
}

/**
 * Whether a refusal is news against the attempt's last event: not when the last event is a refusal of the same facts
 * (the node turning the same bytes away again for the same reason), so the history does not grow every block.
 */
export function refusalIsNews(last: TxEvent | undefined, facts: NonceProblemFacts): boolean {
  if (last?.kind !== 'broadcast-failed') return true;
  return !sameFacts(last.detail.facts as NonceProblemFacts | undefined, facts);
}
