// The replacement-policy form as text fields, and its check: every field that needs fixing, with what to enter. Pure.
import type { ReplacementPolicy } from '../../../../shared/desktop-api.js';
import { parseGweiToWei, weiToGweiInput } from '../../lib/format.js';
import { fieldRules, type FieldErrors } from './field-errors.js';
import { MAX_BUMP_PERCENT, MIN_BUMP_PERCENT } from '../../../../shared/defaults.js';

export interface PolicyForm {
  pricing: ReplacementPolicy['pricing'];
  speed: ReplacementPolicy['speed'];
  txType: ReplacementPolicy['txType'];
  initialFee: string;
  bumpPercent: string;
  maxFee: string;
  maxReplacements: string;
  timeoutSeconds: string;
  confirmations: string;
}

export const toForm = (p: ReplacementPolicy): PolicyForm => ({
  pricing: p.pricing,
  speed: p.speed,
  txType: p.txType,
  initialFee: weiToGweiInput(p.initialFeeWei),
  bumpPercent: String(p.bumpPercent),
  maxFee: weiToGweiInput(p.maxFeeWei),
  maxReplacements: String(p.maxReplacements),
  timeoutSeconds: String(p.timeoutMs / 1000),
  confirmations: String(p.confirmations),
});

const numberOr = (text: string) => (text.trim() === '' ? NaN : Number(text));

/** The form as a policy, or every field that needs fixing with what to do about it. */
export function parsePolicyForm(f: PolicyForm): { patch: ReplacementPolicy } | { errors: FieldErrors } {
  const e: Record<string, string> = {};
  const initialFeeWei = parseGweiToWei(f.initialFee);
  if (!initialFeeWei || initialFeeWei === '0') e.initialFee = fieldRules.initialFee!;
  const maxFeeWei = parseGweiToWei(f.maxFee);
  if (!maxFeeWei || (initialFeeWei && BigInt(maxFeeWei) < BigInt(initialFeeWei))) e.maxFee = fieldRules.maxFee!;
  const bumpPercent = numberOr(f.bumpPercent);
  if (!Number.isFinite(bumpPercent) || bumpPercent < MIN_BUMP_PERCENT || bumpPercent > MAX_BUMP_PERCENT)
    e.bumpPercent = fieldRules.bumpPercent!;
  const maxReplacements = numberOr(f.maxReplacements);
  if (!Number.isInteger(maxReplacements) || maxReplacements < 0 || maxReplacements > 100) e.maxReplacements = fieldRules.maxReplacements!;
  const timeoutMs = Math.round(numberOr(f.timeoutSeconds) * 1000);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 1000 || timeoutMs > 600_000) e.timeoutSeconds = fieldRules.timeoutSeconds!;
  const confirmations = numberOr(f.confirmations);
  if (!Number.isInteger(confirmations) || confirmations < 1 || confirmations > 1000) e.confirmations = fieldRules.confirmations!;
  if (Object.keys(e).length > 0 || !initialFeeWei || !maxFeeWei) return { errors: e };
  return {
    patch: {
      pricing: f.pricing,
      speed: f.speed,
      txType: f.txType,
      initialFeeWei,
      bumpPercent,
      maxFeeWei,
      maxReplacements,
      timeoutMs,
      confirmations,
    },
  };
}
