// The words of the Send forms' fee note: how the first attempt is priced and when it is replaced, in the policy's own
// terms (market: the speed; seed preset: the first fee and the timeout). Pure.
import type { ReplacementPolicy } from '../../../../shared/desktop-api.js';
import type { Speed } from '../../../../shared/tx-request.js';
import { formatFee } from '../../lib/format.js';

const checks = 'The gas limit is estimated, and a call that would fail is refused before anything is signed.';

/** The note for `policy` (undefined before settings arrive) and the speed the form asks for (null: none). */
export function feeNoteText(policy: ReplacementPolicy | undefined, speed: Speed | null): string {
  if (!policy) return `The fee comes from the replacement policy in Settings. ${checks}`;
  const cap = formatFee(policy.maxFeeWei);
  if (policy.pricing === 'market')
    return (
      `Priced from recent blocks at the ${speed ?? policy.speed} speed; if blocks go by that included higher tips, the app ` +
      `replaces it at the market price, never above the cap of ${cap}. ${checks}`
    );
  return (
    `Signed at ${formatFee(policy.initialFeeWei)}; if it is not mined in ${policy.timeoutMs / 1000} s, the app replaces it ` +
    `at a higher fee, never above the cap of ${cap}. ${checks}`
  );
}
