// Broadcast refusals: what a node's answer to eth_sendRawTransaction means, the facts of the sentence a person can act
// on (describe.ts words it), and whether and how to try again. Pure: the node's message, balances and fees come in.
import type { NonceProblemReason, TxEvent, TxKind } from '../../shared/tx-record.js';

/**
 * Every way a broadcast can end besides "sent". `known` and `nonce-used` are not refusals (as good as sent, and
 * mined by someone); every other one is retryable: nothing a node refuses is a dead end for the nonce.
 */
export type BroadcastFailure =
  /** The node already has it (pool or chain): as good as sent. */
  | 'known'
  /** The nonce is below the account's count: mined by us or by someone else. */
  | 'nonce-used'
  /** A same-nonce transaction with a higher or equal fee is in the pool: bump more. */
  | 'underpriced'
  /** The fee is below what the node takes at all now (base fee, pool minimum): sign again at the network's price. */
  | 'fee-too-low'
  /** The balance does not cover gas x fee (+ value): wait for funds. */
  | 'funds'
  /** The node's pool is full: try again on a later block. */
  | 'pool-full'
  /** Refused for another reason: try again, then fill the nonce with a cancel. */
  | 'refused'
  /** The node could not be reached or timed out. */
  | 'unreachable';

export type Refusal = Exclude<BroadcastFailure, 'known' | 'nonce-used'>;

const PATTERNS: [Exclude<BroadcastFailure, 'unreachable'>, RegExp][] = [
  ['known', /already known|known transaction|already imported|alreadyknown|already in (the )?(pool|mempool)/i],
  ['nonce-used', /nonce too low|nonce.*(has )?already been used|noncetoolow|nonce is too low/i],
  ['underpriced', /replacement.*(underpriced|too low)|fee too low to replace|replace.*underpriced/i],
  ['funds', /insufficient funds|insufficient balance|not enough (funds|balance)|balance too low/i],
  [
    'fee-too-low',
    /base ?fee|fee ?cap.*(too )?low|max fee per gas less than|underpriced|gas price too low|fee too low|below (the )?(minimum|min)/i,
  ],
  ['pool-full', /pool is full|txpool is full|pool full|too many (pending )?transactions|pool.*capacity/i],
];

/** Classifies a node's error message (one that reached us as a JSON-RPC error, not a connection failure). */
export function classifyRefusal(message: string): Exclude<BroadcastFailure, 'unreachable'> {
  for (const [kind, re] of PATTERNS) if (re.test(message)) return kind;
  return 'refused';
}

/**
 * "0.0000378": wei in ETH with at most `digits` significant digits, rounded toward `direction`: a cost rounds up and a
 * balance down, so a rounded figure never makes a balance look sufficient.
 */
export function formatEth(wei: bigint, direction: 'up' | 'down' = 'down', digits = 6): string {
  const neg = wei < 0n;
  let v = neg ? -wei : wei;
  const extra = v.toString().length - digits;
  if (extra > 0) {
    const unit = 10n ** BigInt(extra);
    const rest = v % unit;
    v -= rest;
    if (direction === 'up' && rest > 0n) v += unit;
  }
  const whole = v / 10n ** 18n;
  const frac = (v % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export const REASON_OF_REFUSAL: Record<Refusal, NonceProblemReason> = {
  underpriced: 'underpriced',
  'fee-too-low': 'underpriced',
  funds: 'funds',
  'pool-full': 'refused',
  refused: 'refused',
  unreachable: 'unreachable',
};

/** The problems a refusal puts on a nonce: each ends when an attempt of the nonce is sent and taken. */
export const REFUSAL_PROBLEMS: ReadonlySet<NonceProblemReason> = new Set(['funds', 'underpriced', 'refused', 'unreachable']);

/**
 * Whether a nonce with this problem is the refusal retry's to look at: a refusal, or a cap or missing key that
 * stopped the cancel of a refused transaction (its refusal still stands; a skipped replacement has no refusal).
 */
export function refusalMayBeRetried(reason: NonceProblemReason): boolean {
  return REFUSAL_PROBLEMS.has(reason) || reason === 'fee-cap' || reason === 'no-key';
}

/**
 * Whether a send that the node took ends the nonce's refusal problem: a send of the newest attempt always does; an
 * older attempt resent (the nonce check) only ends "unreachable", since the node answered.
 */
export function sendEndsRefusal(reason: NonceProblemReason | undefined, sentIsNewest: boolean): boolean {
  return reason !== undefined && REFUSAL_PROBLEMS.has(reason) && (sentIsNewest || reason === 'unreachable');
}

/**
 * The refusal a transaction last got, from its history (oldest first): its last broadcast outcome, if that was a
 * refusal, with the count recorded then. Null when it was last sent, or last ended as known or nonce-used.
 */
export function lastRefusalIn(history: readonly TxEvent[]): { failure: Refusal; count: number } | null {
  const ev = [...history].reverse().find((e) => e.kind === 'broadcast-failed' || e.kind === 'broadcast' || e.kind === 'rebroadcast');
  if (ev?.kind !== 'broadcast-failed') return null;
  const failure = ev.detail.failure as BroadcastFailure;
  if (failure === 'known' || failure === 'nonce-used') return null;
  return { failure, count: Number(ev.detail.refusals ?? 1) };
}

/** After this many refusals in a row for another reason, the nonce is filled by a cancel signed afresh. */
export const REFUSALS_BEFORE_CANCEL = 3;

export interface RefusalFacts {
  failure: Refusal;
  /** The node's own words. */
  message: string;
  nonce: number;
  from: string;
  /** What the refused transaction is: a transaction, a replacement, a cancel or a speed-up. */
  kind: TxKind;
  /** Gas limit x headline fee (+ value): what the node checks the balance against. */
  costWei: bigint;
  feeWei: bigint;
  /** The sender's balance, when it was read (funds refusals). */
  balanceWei: bigint | null;
}

export type RetryAction =
  /** Nothing can succeed yet (funds still short). */
  | { action: 'wait' }
  /** Send the same signed bytes again. */
  | { action: 'resend' }
  /** Sign a replacement at the network's price now. */
  | { action: 'resign' }
  /** Fill the nonce with a freshly signed cancel. */
  | { action: 'cancel' };

export interface RetryFacts {
  failure: Refusal;
  /** Refusals of this very transaction in a row. */
  refusals: number;
  costWei: bigint;
  /** Null when unknown (not read): then a resend finds out. */
  balanceWei: bigint | null;
  /** The refused transaction's headline fee and the network's base fee now (null: not read or no EIP-1559). */
  feeWei: bigint;
  baseFeeWei: bigint | null;
  /** The refused transaction is already a cancel (a cancel is never cancelled again: it is resent). */
  isCancel: boolean;
}

/** What to do on a new block about a nonce whose newest transaction the node refused. */
export function decideRetry(f: RetryFacts): RetryAction {
  switch (f.failure) {
    case 'funds':
      return f.balanceWei !== null && f.balanceWei < f.costWei ? { action: 'wait' } : { action: 'resend' };
    case 'fee-too-low':
      return f.baseFeeWei !== null && f.feeWei < f.baseFeeWei ? { action: 'resign' } : { action: 'resend' };
    // underpriced: whatever outbid it may have been mined or dropped since; a resend that is refused again bumps at once.
    case 'underpriced':
    case 'pool-full':
    case 'unreachable':
      return { action: 'resend' };
    case 'refused':
      return f.refusals >= REFUSALS_BEFORE_CANCEL && !f.isCancel ? { action: 'cancel' } : { action: 'resend' };
  }
}
