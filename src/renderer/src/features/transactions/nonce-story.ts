// The line under a nonce card's head that says how the nonce got where it is, from the records' fees and attempt
// numbers (facts, never a sentence parsed): "Not mined in time at 1 gwei: replacement 1 sent at 1.8 gwei (+80%)" while
// it is stuck, "Mined after 1 replacement (+80%)" once settled. Pure.
import type { TxRecord } from '../../../../shared/tx-record.js';
import { formatFee } from '../../lib/format.js';
import { stateWords, type NonceState } from '../../store/nonce-state.js';

/** The nonce's first attempt: the lowest attempt number, of equal ones the earlier signed. */
function firstOf(attempts: readonly TxRecord[]): TxRecord {
  let first = attempts[0]!;
  for (const r of attempts) if (r.attempt < first.attempt || (r.attempt === first.attempt && r.createdAt < first.createdAt)) first = r;
  return first;
}

/** "+80%", "+12.5%": how much higher `later` pays than `first` (gas price, or max fee per gas), to a tenth; null when unknown. */
export function feeIncrease(firstWei: string, laterWei: string): string | null {
  try {
    const a = BigInt(firstWei);
    const b = BigInt(laterWei);
    if (a <= 0n) return null;
    const tenths = ((b - a) * 1000n) / a;
    const sign = tenths < 0n ? '−' : '+';
    const abs = tenths < 0n ? -tenths : tenths;
    return `${sign}${abs / 10n}${abs % 10n === 0n ? '' : `.${abs % 10n}`}%`;
  } catch {
    return null;
  }
}

const replacements = (n: number) => `${n} replacement${n === 1 ? '' : 's'}`;

/**
 * What the card says under its badge, or null when the badge says it all (a single attempt, waiting or mined as
 * sent) or the needs-you line speaks (a nonce that needs you carries its own sentence and fix).
 */
export function nonceStory(attempts: readonly TxRecord[], state: NonceState): string | null {
  if (attempts.length === 0) return null;
  const first = firstOf(attempts);
  const lead = state.lead;
  const rise = (r: TxRecord) => {
    const pct = feeIncrease(first.gasPrice, r.gasPrice);
    return pct ? ` (${pct})` : '';
  };
  switch (state.name) {
    case 'stuck-replacing':
      // A passing trouble the app retries by itself (node unreachable, a fee the node wants higher): the core's words.
      if (state.problem) return state.problem.summary;
      if (lead.attempt === 0) return `Not mined in time at ${formatFee(first.gasPrice)}: replacing it with a higher fee.`;
      return `Not mined in time at ${formatFee(first.gasPrice)}: replacement ${lead.attempt} sent at ${formatFee(lead.gasPrice)}${rise(lead)}.`;
    case 'mined':
    case 'confirmed':
      if (lead.attempt > 0) return `${stateWords[state.name]} after ${replacements(lead.attempt)}${rise(lead)}.`;
      // The first attempt won while a replacement was on its way.
      return attempts.length > 1
        ? `${stateWords[state.name]} as first sent, at ${formatFee(first.gasPrice)}, before its ${attempts.length > 2 ? 'replacements' : 'replacement'}.`
        : null;
    case 'cancelled':
      return `Cancelled at ${formatFee(lead.gasPrice)}${rise(lead)}: only the fee was paid.`;
    default:
      return null;
  }
}

/** How the fee was chosen, in a few words, from the record's `pricedBy` (facts kept when it was signed). */
function pricedWords(r: TxRecord): string | null {
  const p = r.pricedBy;
  if (!p) return null;
  switch (p.by) {
    case 'market':
      return `market, ${p.speed}: recent blocks tipped ${formatFee(p.tipWei)}${p.baseFeeWei === null ? '' : ` over a ${formatFee(p.baseFeeWei)} base fee`}`;
    case 'seed':
      return 'seed preset';
    case 'request':
      return 'the fee the request gave';
    case 'bump':
      return "a person's bump";
  }
}

/**
 * The card's fee line for the attempt that counts (the mined one, else the newest): what it offers, how that was
 * priced and the market at the time, and, once mined, what it paid per gas (the receipt's effective gas price).
 */
export function feeLine(attempts: readonly TxRecord[], lead: TxRecord): string | null {
  if (attempts.length === 0) return null;
  const offer =
    lead.txType === 'eip1559'
      ? `Offers up to ${formatFee(lead.gasPrice)}, tip ${formatFee(lead.maxPriorityFeePerGas)}`
      : `Offers ${formatFee(lead.gasPrice)}`;
  const priced = pricedWords(lead);
  const paid = typeof lead.data.effectiveGasPrice === 'string' ? `paid ${formatFee(lead.data.effectiveGasPrice)} per gas` : null;
  return [offer + (priced ? ` (${priced})` : ''), paid].filter(Boolean).join(' · ');
}
