// The Send forms' fee note says how the first attempt is priced and when it is replaced, in the policy's own terms.
import { describe, expect, it } from 'vitest';
import type { ReplacementPolicy } from '../../src/shared/desktop-api.js';
import { feeNoteText } from '../../src/renderer/src/features/send/fee-note-text.js';

const policy = (over: Partial<ReplacementPolicy>): ReplacementPolicy => ({
  pricing: 'seed',
  speed: 'normal',
  txType: 'legacy',
  initialFeeWei: '1000000000',
  maxFeeWei: '50000000000',
  bumpPercent: 12.5,
  maxReplacements: 5,
  timeoutMs: 10_000,
  confirmations: 1,
  ...over,
});

describe('feeNoteText', () => {
  it('under the seed preset: the first fee and the timeout', () => {
    expect(feeNoteText(policy({}), null)).toMatch(
      /^Signed at 1 gwei; if it is not mined in 10 s, the app replaces it at a higher fee, never above the cap of 50 gwei\./,
    );
  });

  it('under market pricing: the speed asked for, else the policy’s, and no timeout', () => {
    const market = policy({ pricing: 'market', speed: 'slow' });
    expect(feeNoteText(market, 'fast')).toMatch(/^Priced from recent blocks at the fast speed; .* never above the cap of 50 gwei\./);
    expect(feeNoteText(market, null)).toMatch(/at the slow speed/);
    expect(feeNoteText(market, 'fast')).not.toMatch(/ s, /);
  });

  it('before settings arrive: where the fee comes from', () => {
    expect(feeNoteText(undefined, null)).toMatch(/^The fee comes from the replacement policy in Settings\./);
  });
});
