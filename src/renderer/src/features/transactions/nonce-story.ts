// The line under a nonce card's head that says how the nonce got where it is, from the records' fees and attempt
// numbers (facts, never a sentence parsed): "Not mined in time at 1 gwei: replacement 1 sent at 1.8 gwei (+80%)" while
// it is stuck, "Mined after 1 replacement (+80%)" once settled. Pure.
import type { TxRecord } from '../../../../shared/tx-record.js';
import { formatFee, normalizeFees } from '../../lib/format.js';
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
      if (state.problem) return normalizeFees(state.problem.summary);
      if (lead.attempt === 0) return `Not mined in time at ${formatFee(first.gasPrice)}: replacing it with a higher fee.`;
      return `Not mined in time at ${formatFee(first.gasPrice)}: replacement ${lead.attempt} sent at ${formatFee(lead.gasPrice)}${rise(lead)}.`;
    case 'mined':
    case 'confirmed':
      if (lead.attempt > 0) return `${stateWords[state.name]} after ${replacements(lead.attempt)}${rise(lead)}.`;
      // The first attempt won while a replacement was on its way.
      return attempts.length > 1 ? `${stateWords[state.name]} as first sent, at ${formatFee(first.gasPrice)}, before its ${attempts.length > 2 ? 'replacements' : 'replacement'}.` : null;
    case 'cancelled':
      return `Cancelled at ${formatFee(lead.gasPrice)}${rise(lead)}: only the fee was paid.`;
    default:
      return null;
  }
}
