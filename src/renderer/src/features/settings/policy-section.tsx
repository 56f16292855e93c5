// The replacement policy: how a first attempt is priced, how much each replacement bumps, the cap and the limits.
import { useEffect, useState, type FormEvent } from 'react';
import type { ReplacementPolicy } from '../../../../shared/desktop-api.js';
import { parseGweiToWei, weiToGweiInput } from '../../lib/format.js';
import { useApp } from '../../store/use-app.js';
import { Card, Field, SaveBar, idleSave, type SaveState } from './form-kit.js';

interface PolicyForm {
  txType: ReplacementPolicy['txType'];
  initialFee: string;
  bumpPercent: string;
  maxFee: string;
  maxReplacements: string;
  timeoutSeconds: string;
  confirmations: string;
}

const toForm = (p: ReplacementPolicy): PolicyForm => ({
  txType: p.txType,
  initialFee: weiToGweiInput(p.initialFeeWei),
  bumpPercent: String(p.bumpPercent),
  maxFee: weiToGweiInput(p.maxFeeWei),
  maxReplacements: String(p.maxReplacements),
  timeoutSeconds: String(p.timeoutMs / 1000),
  confirmations: String(p.confirmations),
});

/** The form as a policy patch, or the one thing to fix. */
export function parsePolicyForm(f: PolicyForm): { patch: ReplacementPolicy } | { error: string } {
  const initialFeeWei = parseGweiToWei(f.initialFee);
  if (!initialFeeWei || initialFeeWei === '0') return { error: 'The first fee is a positive number of gwei, e.g. 1 or 1.5.' };
  const maxFeeWei = parseGweiToWei(f.maxFee);
  if (!maxFeeWei) return { error: 'The fee cap is a number of gwei, e.g. 50.' };
  if (BigInt(maxFeeWei) < BigInt(initialFeeWei)) return { error: 'The fee cap must be at least the first fee.' };
  const bumpPercent = Number(f.bumpPercent);
  if (!Number.isFinite(bumpPercent) || bumpPercent < 12.5 || bumpPercent > 1000) return { error: 'The bump is between 12.5 and 1000 percent; nodes refuse less than 12.5.' };
  const maxReplacements = Number(f.maxReplacements);
  if (!Number.isInteger(maxReplacements) || maxReplacements < 0 || maxReplacements > 100) return { error: 'Replacements per nonce is a whole number from 0 to 100.' };
  const timeoutMs = Math.round(Number(f.timeoutSeconds) * 1000);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 1000 || timeoutMs > 600_000) return { error: 'The pending timeout is between 1 and 600 seconds.' };
  const confirmations = Number(f.confirmations);
  if (!Number.isInteger(confirmations) || confirmations < 1 || confirmations > 1000) return { error: 'Confirmations is a whole number from 1 to 1000.' };
  return { patch: { txType: f.txType, initialFeeWei, bumpPercent, maxFeeWei, maxReplacements, timeoutMs, confirmations } };
}

export function PolicySection({ policy }: { policy: ReplacementPolicy }) {
  const save = useApp((s) => s.saveSettings);
  const [form, setForm] = useState(() => toForm(policy));
  const [state, setState] = useState<SaveState>(idleSave);
  // The saved policy changed (our own save, or another window): show it.
  const savedKey = JSON.stringify(policy);
  useEffect(() => setForm(toForm(JSON.parse(savedKey) as ReplacementPolicy)), [savedKey]);
  // Editing again clears the last outcome, so a fixed mistake stops being reported.
  const set = (k: keyof PolicyForm) => (e: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [k]: e.target.value }));
    setState(idleSave);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parsePolicyForm(form);
    if ('error' in parsed) {
      setState({ busy: false, error: { code: 'INVALID_PARAMETER', message: parsed.error }, saved: false });
      return;
    }
    setState({ busy: true, error: null, saved: false });
    const error = await save({ policy: parsed.patch });
    setState({ busy: false, error, saved: !error });
  };

  return (
    <Card id="settings-policy" title="Replacement policy" description="When a transaction is still pending after the timeout, it is re-sent with the same nonce and a higher fee.">
      <form onSubmit={(e) => void submit(e)} className="form" noValidate>
        <div className="form-grid">
          <Field label="Transaction type">
            {(id) => (
              <select id={id} className="input" name="txType" value={form.txType} onChange={(e) => setForm((f) => ({ ...f, txType: e.target.value === 'eip1559' ? 'eip1559' : 'legacy' }))}>
                <option value="legacy">Legacy (gas price)</option>
                <option value="eip1559">EIP-1559 (max fee + tip)</option>
              </select>
            )}
          </Field>
          <Field label="First fee (gwei)">{(id) => <input id={id} className="input mono" name="initialFee" inputMode="decimal" value={form.initialFee} onChange={set('initialFee')} />}</Field>
          <Field label="Bump per replacement (%)" hint="At least 12.5.">
            {(id, hint) => <input id={id} className="input mono" name="bumpPercent" inputMode="decimal" value={form.bumpPercent} aria-describedby={hint} onChange={set('bumpPercent')} />}
          </Field>
          <Field label="Fee cap (gwei)">{(id) => <input id={id} className="input mono" name="maxFee" inputMode="decimal" value={form.maxFee} onChange={set('maxFee')} />}</Field>
          <Field label="Replacements per nonce">
            {(id) => <input id={id} className="input mono" name="maxReplacements" inputMode="numeric" value={form.maxReplacements} onChange={set('maxReplacements')} />}
          </Field>
          <Field label="Pending after (seconds)">
            {(id) => <input id={id} className="input mono" name="timeoutSeconds" inputMode="decimal" value={form.timeoutSeconds} onChange={set('timeoutSeconds')} />}
          </Field>
          <Field label="Confirmations">
            {(id) => <input id={id} className="input mono" name="confirmations" inputMode="numeric" value={form.confirmations} onChange={set('confirmations')} />}
          </Field>
        </div>
        <SaveBar state={state} />
      </form>
    </Card>
  );
}
