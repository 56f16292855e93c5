// Every sentence the transaction engine writes (timeline events, nonce problems, refusals of a request), each built by
// one describe function from the codes and numbers the domain decides with. Nothing else words them, and nothing
// edits a sentence once it is made. Pure.
import { TxdeskError } from '../../shared/errors.js';
import type { TxKind } from '../../shared/tx-record.js';
import type { StuckVerdict } from './market-fees.js';
import { formatGwei } from '../../shared/fee-words.js';
import { headlineFee, percentIncrease } from './fees.js';
import { formatEth, REFUSALS_BEFORE_CANCEL, type RefusalFacts } from './refusal.js';
import type { ReplaceDecision, SkipDecision } from './replacement.js';
import type { RequestRefusal, UserReplacementKind } from './send-check.js';

export const short = (hash: string): string => `${hash.slice(0, 10)}…`;

/** What a record is, in a sentence: "transaction", "replacement", "cancel", "speed-up". */
export const kindNoun = (kind: TxKind): string => (kind === 'generate' ? 'transaction' : kind === 'replace' ? 'replacement' : kind);

const verbOf = (kind: UserReplacementKind): string => (kind === 'cancel' ? 'cancel' : 'speed up');

/** A timeline event other than a decision or a refusal: what happened to a record, with its sentence's numbers. */
export type RecordNews =
  // Signing and sending.
  | { code: 'signed'; nonce: number; feeWei: bigint; raisedFromWei: bigint | null; given?: boolean }
  | { code: 'signed-replacement'; kind: TxKind; attempt: number; replaces: string; feeWei: bigint }
  | { code: 'known' | 'nonce-used' }
  | { code: 'sent'; retried: boolean }
  | { code: 'sent-again'; why: string | undefined }
  // What the tracker and the chain say.
  | { code: 'tracker-timeout' }
  | { code: 'mined' | 'confirmed' | 'mined-again'; block: unknown }
  | { code: 'lost'; winner: string; block: unknown }
  | { code: 'withdrawn'; block: unknown; why: string }
  | { code: 'back-in-play'; winner: string }
  | { code: 'nonce-used-elsewhere'; nonce: number };

export function describeNews(n: RecordNews): string {
  switch (n.code) {
    case 'tracker-timeout':
      return 'Still not mined when the tracker timeout ran out.';
    case 'known':
      return 'The node already had it.';
    case 'nonce-used':
      return 'The node says its nonce is already used.';
    case 'mined':
      return `Mined in block ${String(n.block)}.`;
    case 'confirmed':
      return `Confirmed: block ${String(n.block)} is deep enough.`;
    case 'mined-again':
      return `Mined again in block ${String(n.block)} after a reorganisation.`;
    case 'lost':
      return `Another attempt of this nonce, ${short(n.winner)}, was mined instead in block ${String(n.block)}.`;
    case 'withdrawn':
      return `No longer mined: block ${String(n.block)} was reorganised away (${n.why}); back to pending.`;
    case 'back-in-play':
      return `Back in play: ${short(n.winner)}, which was mined instead of it, is no longer mined.`;
    case 'nonce-used-elsewhere':
      return `Nonce ${n.nonce} was used by a transaction sent outside txdesk; this one can never be mined.`;
    case 'sent':
      return n.retried ? 'Sent to the node; it took it this time.' : 'Sent to the node.';
    case 'sent-again':
      return `Sent to the node again, exactly as signed: ${n.why ?? 'after a restart'}.`;
    case 'signed':
      return `Signed nonce ${n.nonce} at ${formatGwei(n.feeWei)}${
        n.given ? ', the fee the request gave' : ''
      }${n.raisedFromWei === null ? '' : `, raised from ${formatGwei(n.raisedFromWei)} to the base fee`}.`;
    case 'signed-replacement':
      return `Signed as ${kindNoun(n.kind)} ${n.attempt} of ${short(n.replaces)} at ${formatGwei(n.feeWei)}.`;
  }
}

/** The `replacement-skipped` event's sentence, or (`problem`) what keeps the nonce and what the person can do. */
export function describeSkip(s: SkipDecision, as: 'event' | 'problem' = 'event'): string {
  switch (s.reason) {
    case 'not-stuck':
      return `Not replaced: it is already ${s.detail.status}.`;
    case 'nonce-mined':
      return `Not replaced: nonce ${s.nonce} was already mined by ${short(s.detail.minedBy)}.`;
    case 'superseded':
      return `Not replaced again: ${short(s.detail.newer)} already replaces it.`;
    case 'max-replacements': {
      const had = `nonce ${s.nonce} already had ${s.detail.attempt} of at most ${s.detail.maxReplacements} replacements`;
      return as === 'problem' ? `${had}; raise the limit in Settings to replace it again.` : `Not replaced: ${had}.`;
    }
    case 'cap': {
      const [needed, cap] = [formatGwei(BigInt(s.detail.neededWei)), formatGwei(BigInt(s.detail.capWei))];
      return as === 'problem'
        ? `A fee the network accepts is ${needed}, above your fee cap of ${cap}; raise the cap in Settings or wait for fees to fall.`
        : `Not replaced: a fee the network accepts is ${needed}, above the cap of ${cap}.`;
    }
    case 'no-key':
      return `${as === 'problem' ? '' : 'Not replaced: '}the signing key of ${s.detail.from} is not loaded; import it in Settings.`;
  }
}

/** The `replacement-sent` event's sentence: the new fee, who asked, the replacement's hash and why. */
export function describeReplacement(d: ReplaceDecision, replacement: string, why: string): string {
  const at = `at ${formatGwei(headlineFee(d.fees))} (${percentIncrease(d.prevFeeWei, headlineFee(d.fees))})`;
  const limit = d.by === 'policy' ? `of ${d.maxReplacements}` : '(outside the replacement limit)';
  const what =
    d.by === 'cancel' ? `Cancel ${at}` : d.by === 'speed-up' ? `Speed-up ${at}` : `Replacing ${at}, attempt ${d.attempt} ${limit}`;
  return `${what}: ${short(replacement)} (${why}).`;
}

/** Why the market policy calls a transaction stuck, in the market's terms (the `why` of its replacement). */
export function describeStuck(v: Extract<StuckVerdict, { stuck: true }>): string {
  const blocks = v.blocks === 1 ? 'the last block' : `the last ${v.blocks} blocks`;
  if (v.reason === 'base-fee-above-max')
    return `the base fee, ${formatGwei(v.baseFeeWei)}, passed its max fee of ${formatGwei(v.maxFeeWei)}`;
  return `${blocks} included tips of ${formatGwei(v.includedTipWei)} and more; this one offers ${formatGwei(v.offeredTipWei)}`;
}

/** The one sentence shown on the nonce (and in the history) while a node's refusal stands. */
export function describeRefusal(f: RefusalFacts): string {
  const what = kindNoun(f.kind);
  switch (f.failure) {
    case 'funds':
      if (f.balanceWei === null)
        return `The balance of ${f.from} is below the ${formatEth(f.costWei, 'up')} ETH this ${what} needs; add funds and it is sent again on the next block.`;
      // Nodes may also count the account's other pending transactions against the balance.
      if (f.balanceWei >= f.costWei)
        return (
          `The node says balance ${formatEth(f.balanceWei)} ETH does not cover ` +
          `this ${what}'s ${formatEth(f.costWei, 'up')} ETH with the account's other pending transactions; add funds ` +
          `to ${f.from} and it is sent again on the next block.`
        );
      return (
        `Balance ${formatEth(f.balanceWei)} ETH is below the ${formatEth(f.costWei, 'up')} ETH this ${what} needs; add ` +
        `funds to ${f.from} and it is sent again on the next block.`
      );
    case 'underpriced':
      return (
        `The node holds another transaction for nonce ${f.nonce} that this ${what} at ${formatGwei(f.feeWei)} does not ` +
        `outbid by enough; it is bumped again on the next block.`
      );
    case 'fee-too-low':
      return `The node takes no fee as low as ${formatGwei(f.feeWei)} now ("${clip(f.message)}"); it is signed again at the network's price on the next block.`;
    case 'pool-full':
      return `The node's pool is full and turned this ${what} away; it is sent again on every new block.`;
    case 'unreachable':
      return `The node could not be reached; this ${what} is sent again on every new block until it answers.`;
    case 'refused':
      return (
        `The node refused this ${what} ("${clip(f.message)}"); it is sent again on every new block, and ` +
        `after ${REFUSALS_BEFORE_CANCEL} refusals nonce ${f.nonce} is filled by a cancel.`
      );
  }
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 120 ? `${one.slice(0, 119)}…` : one;
}

/** The API's sentence for a request refused with nothing signed: what stands in the way and what to do. */
export function describeRequestRefusal(r: RequestRefusal): string {
  switch (r.code) {
    case 'unknown-tx':
      return `No transaction ${r.hash} is stored in this app; list them with GET /api/tx.`;
    case 'no-key':
      return 'There is no signing key yet; generate or import one in Settings (POST /api/key/generate), then retry.';
    case 'key-not-loaded':
      return `The signing key of ${r.from} is not loaded; import it in Settings, then ${verbOf(r.kind)} again.`;
    case 'nonce-mined':
      return `Nonce ${r.nonce} is already mined by ${short(r.minedBy)}; there is nothing left to ${verbOf(r.kind)}.`;
    case 'nonce-used-elsewhere':
      return `Nonce ${r.nonce} was used by a transaction sent outside txdesk; there is nothing left to ${verbOf(r.kind)}.`;
    case 'price-above-cap':
      return (
        `The network's price is ${formatGwei(r.feeWei)}, above your fee cap of ${formatGwei(r.capWei)}; raise the cap ` +
        `in Settings or wait for fees to fall, then retry.`
      );
    case 'initial-fee-above-cap':
      return (
        `The initial fee of ${formatGwei(r.feeWei)} is above your fee cap of ${formatGwei(r.capWei)}; lower the ` +
        `initial fee or raise the cap in Settings, then retry.`
      );
    case 'given-fee-above-cap':
      return (
        `The fee this request gives, ${formatGwei(r.feeWei)}, is above txdesk's fee cap of ${formatGwei(r.capWei)}; ` +
        `give a lower fee, or leave the fee out so txdesk prices it, or raise the cap in Settings.`
      );
    case 'bump-above-cap':
      return (
        `To ${verbOf(r.kind)} nonce ${r.nonce} needs a fee of ${formatGwei(r.feeWei)}, above your fee cap ` +
        `of ${formatGwei(r.capWei)}; raise the cap in Settings, then retry.`
      );
    case 'funds': {
      const costWei = r.valueWei + r.gasLimit * r.capWei;
      const [balance, cost, value] = sameGrid(
        r.balanceWei > costWei ? r.balanceWei : costWei,
        [r.balanceWei, 'down'],
        [costWei, 'up'],
        [r.valueWei, 'down'],
      );
      return (
        `The balance of ${r.from}, ${balance} ETH, does not cover the ${cost} ETH this transaction may cost (${value} ` +
        `ETH value plus ${r.gasLimit} gas at up to the fee cap of ${formatGwei(r.capWei)}): ` +
        `add ${formatEth(r.missingWei, 'up')} ETH, send less, or lower the fee cap in Settings.`
      );
    }
  }
}

/**
 * Amounts one sentence compares, in ETH to the same last decimal (six significant digits of `largest`): the value and
 * the balance round the same way, so a value equal to the balance reads equal and never larger, and the cost rounds
 * up, so it always reads above the balance it exceeds.
 */
function sameGrid(largest: bigint, ...amounts: [bigint, 'up' | 'down'][]): string[] {
  const dropped = Math.max(0, largest.toString().length - 6);
  return amounts.map(([wei, direction]) => formatEth(wei, direction, wei.toString().length - dropped));
}

/** Throws a refused request as the API's error: NOT_FOUND or CONFLICT, with its sentence. */
export function refuse(r: RequestRefusal): never {
  throw new TxdeskError(r.code === 'unknown-tx' ? 'NOT_FOUND' : 'CONFLICT', describeRequestRefusal(r));
}
