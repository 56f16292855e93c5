// Where a nonce stands, in the one vocabulary every screen, badge, label and doc uses (Sending, Waiting, Stuck —
// replacing, Stuck — needs you, Mined, Confirmed, Replaced, Cancelled), and which action fixes it. Pure: derived from
// the nonce's records (status, kind, problem) and, when known, the newest attempt's history.
import type { NonceProblem, NonceProblemReason, TxEvent, TxRecord } from '../../../shared/tx-record.js';

export type NonceStateName = 'sending' | 'waiting' | 'stuck-replacing' | 'needs-you' | 'mined' | 'confirmed' | 'replaced' | 'cancelled';

/** The words, once. Screen-reader labels, badges, rows and the docs say exactly these. */
export const stateWords: Record<NonceStateName, string> = {
  sending: 'Sending',
  waiting: 'Waiting',
  'stuck-replacing': 'Stuck — replacing',
  'needs-you': 'Stuck — needs you',
  mined: 'Mined',
  confirmed: 'Confirmed',
  replaced: 'Replaced',
  cancelled: 'Cancelled',
};

/** What each word means, for tooltips and the docs. */
export const stateMeanings: Record<NonceStateName, string> = {
  sending: 'Signed; the node has not accepted it yet.',
  waiting: 'Sent; waiting for a block.',
  'stuck-replacing': 'Not mined in time; the app sends a same-nonce replacement with a higher fee.',
  'needs-you': 'Not mined, and the app will not replace it on its own: the reason says what to do.',
  mined: 'In a block; waiting for the confirmations.',
  confirmed: 'In a block with enough confirmations. Final.',
  replaced: 'Another transaction with this nonce was mined instead.',
  cancelled: 'A 0-value transfer to yourself took the nonce: nothing else was sent.',
};

/** Why a nonce needs you, in the words the card shows after "Stuck — needs you". */
export type NeedsYouReason = 'fee-cap' | 'max-replacements' | 'funds' | 'refused' | 'no-key';
export const reasonWords: Record<NeedsYouReason, string> = {
  'fee-cap': 'fee cap',
  'max-replacements': 'replacement limit',
  funds: 'funds',
  refused: 'node refusal',
  'no-key': 'no signing key',
};

/** The one action that fixes a nonce that needs you. */
export type FixAction =
  | { kind: 'raise-cap' /** The fee a replacement needs now, decimal wei, when the core said so. */; neededWei: string | null }
  | { kind: 'raise-limit' }
  | { kind: 'top-up' }
  | { kind: 'speed-up' }
  | { kind: 'cancel' }
  | { kind: 'add-key' };

export interface NonceState {
  name: NonceStateName;
  /** Set for `needs-you`; `stuck-replacing` may carry a passing problem (node unreachable, underpriced) too. */
  problem: NonceProblem | null;
  reason: NeedsYouReason | null;
  fix: FixAction | null;
  /** The record that decides the state: the mined one, else the newest attempt. */
  lead: TxRecord;
  /** Open: nothing of the nonce mined yet, so speed-up and cancel apply. */
  open: boolean;
}

const MINED = new Set(['receipt', 'confirmation']);

/** The newest attempt: the highest `attempt`; of equal ones (a refused first transaction reused), the later created. */
export function newestOf(attempts: readonly TxRecord[]): TxRecord {
  let best = attempts[0]!;
  for (const r of attempts) if (r.attempt > best.attempt || (r.attempt === best.attempt && r.createdAt >= best.createdAt)) best = r;
  return best;
}

const skipReasons: Record<string, NonceProblemReason> = { cap: 'fee-cap', 'max-replacements': 'max-replacements', 'no-key': 'no-key' };

/**
 * The problem the history of the newest attempt shows, for records from a core that does not set `problem`: its last
 * replacement decision was a skip the user can undo, or its broadcast was refused and nothing came after.
 */
export function problemFromHistory(history: readonly TxEvent[]): NonceProblem | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i]!;
    if (
      e.kind === 'replacement-sent' ||
      e.kind === 'receipt' ||
      e.kind === 'confirmation' ||
      e.kind === 'broadcast' ||
      e.kind === 'rebroadcast'
    )
      return null;
    if (e.kind === 'replacement-skipped') {
      const reason = skipReasons[String(e.detail.reason)];
      if (!reason) return null;
      return { reason, summary: e.summary, since: e.at };
    }
    if (e.kind === 'broadcast-failed') {
      const failure = String(e.detail.failure ?? '');
      if (failure === 'nonce-used') return null; // the core reconciles the nonce with the chain by itself
      const reason: NonceProblemReason = /insufficient funds/i.test(String(e.detail.message ?? ''))
        ? 'funds'
        : failure === 'underpriced' || failure === 'unreachable'
          ? failure
          : 'refused';
      return { reason, summary: e.summary, since: e.at };
    }
  }
  return null;
}

const needsYou: Record<NonceProblemReason, NeedsYouReason | null> = {
  'fee-cap': 'fee-cap',
  'max-replacements': 'max-replacements',
  funds: 'funds',
  refused: 'refused',
  'no-key': 'no-key',
  // The app keeps trying these by itself.
  underpriced: null,
  unreachable: null,
};

function fixFor(reason: NeedsYouReason, problem: NonceProblem, history: readonly TxEvent[] | undefined): FixAction {
  switch (reason) {
    case 'fee-cap': {
      // The problem's facts say it; a core that kept none said it in the skip event's detail.
      const skip = [...(history ?? [])].reverse().find((e) => e.kind === 'replacement-skipped');
      const needed = problem.facts?.neededWei ?? skip?.detail.neededWei;
      return { kind: 'raise-cap', neededWei: typeof needed === 'string' && /^\d+$/.test(needed) ? needed : null };
    }
    case 'max-replacements':
      return { kind: 'raise-limit' };
    case 'funds':
      return { kind: 'top-up' };
    case 'refused':
      return { kind: 'cancel' };
    case 'no-key':
      return { kind: 'add-key' };
  }
}

/**
 * The state of one nonce from all its attempts (any order, at least one) and, optionally, the newest attempt's
 * history. The core's `problem` wins over what the history suggests.
 */
export function nonceState(attempts: readonly TxRecord[], newestHistory?: readonly TxEvent[]): NonceState {
  // One attempt of a nonce can be mined; should the records ever say two (a reorg in flight), the confirmed, then the
  // newer, speaks for the nonce, whatever the order they come in.
  let winner: TxRecord | undefined;
  for (const a of attempts) {
    if (a.status === undefined || !MINED.has(a.status)) continue;
    if (
      !winner ||
      (a.status === 'confirmation') > (winner.status === 'confirmation') ||
      (a.status === winner.status && a.attempt > winner.attempt)
    )
      winner = a;
  }
  if (winner) {
    const name: NonceStateName = winner.kind === 'cancel' ? 'cancelled' : winner.status === 'confirmation' ? 'confirmed' : 'mined';
    return { name, problem: null, reason: null, fix: null, lead: winner, open: false };
  }
  const newest = newestOf(attempts);
  // Every attempt replaced and none of ours mined: the nonce went to a transaction sent elsewhere.
  if (attempts.every((a) => a.status === 'replaced'))
    return { name: 'replaced', problem: null, reason: null, fix: null, lead: newest, open: false };
  const problem = newest.problem !== undefined ? newest.problem : newestHistory ? problemFromHistory(newestHistory) : null;
  const reason = problem ? needsYou[problem.reason] : null;
  if (problem && reason)
    return { name: 'needs-you', problem, reason, fix: fixFor(reason, problem, newestHistory), lead: newest, open: true };
  let name: NonceStateName;
  if (newest.status === 'pending' || problem) name = 'stuck-replacing';
  else if (newest.kind === 'cancel') name = 'waiting';
  else if (newest.attempt > 0 && newest.status === undefined) name = 'stuck-replacing';
  else if (newestHistory && !newestHistory.some((e) => e.kind === 'broadcast' || e.kind === 'rebroadcast' || e.kind === 'broadcast-failed'))
    name = 'sending';
  else name = 'waiting';
  return { name, problem, reason: null, fix: null, lead: newest, open: true };
}

/** Problems where the node turned the lead attempt away: the attempt it was meant to replace stays in the pool. */
const REFUSED_REASONS: ReadonlySet<string> = new Set(['funds', 'underpriced', 'refused', 'unreachable']);

/**
 * The word for one attempt's row: the lead attempt says the nonce's state, every other one was replaced by it, except
 * the one a refused lead was meant to replace, which is still live and waiting in the node's pool.
 */
export function attemptState(record: TxRecord, state: NonceState): NonceStateName {
  if (record.transactionHash === state.lead.transactionHash) return state.name;
  const leadRefused = state.lead.problem != null && REFUSED_REASONS.has(state.lead.problem.reason);
  if (state.open && leadRefused && state.lead.replaces === record.transactionHash && record.status !== 'replaced') return 'waiting';
  return 'replaced';
}

/** The colour family of a state, shared by badges, card edges and chart bars. */
export function stateTone(name: NonceStateName): 'neutral' | 'warning' | 'danger' | 'info' | 'success' | 'muted' {
  switch (name) {
    case 'sending':
    case 'waiting':
      return 'neutral';
    case 'stuck-replacing':
      return 'warning';
    case 'needs-you':
      return 'danger';
    case 'mined':
      return 'info';
    case 'confirmed':
    case 'cancelled':
      return 'success';
    case 'replaced':
      return 'muted';
  }
}

/** "Stuck — needs you: fee cap": the state with its reason, as badges and screen readers say it. */
export function stateLabel(state: Pick<NonceState, 'name' | 'reason'>): string {
  return state.reason ? `${stateWords[state.name]}: ${reasonWords[state.reason]}` : stateWords[state.name];
}

/** Why an attempt was signed, in a word for rows: Original, Replacement 2, Speed-up, Cancel. */
export function attemptWord(r: TxRecord): string {
  if (r.kind === 'cancel') return 'Cancel';
  if (r.kind === 'speed-up') return 'Speed-up';
  return r.attempt === 0 ? 'Original' : `Replacement ${r.attempt}`;
}
