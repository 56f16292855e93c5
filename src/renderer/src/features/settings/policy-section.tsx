// The replacement policy: how a first attempt is priced, how much each replacement bumps, the cap and the limits.
// Every field is checked on its own; each mistake is shown beside its field. Fields only one pricing reads (speed for
// the market; transaction type, first fee and timeout for the seed preset) show under that pricing only, keeping their saved values.
import { useEffect, useState, type FormEvent } from 'react';
import type { ReplacementPolicy } from '../../../../shared/desktop-api.js';
import { useApp } from '../../store/use-app.js';
import { apiErrorToFields, type FieldErrors } from './field-errors.js';
import { parsePolicyForm, toForm, type PolicyForm } from './policy-form.js';
import { Card, Field, SaveBar, idleSave, type SaveState } from './form-kit.js';
import { useDirty } from './use-dirty.js';
import { MIN_BUMP_PERCENT } from '../../../../shared/defaults.js';

const fieldNames = ['initialFee', 'maxFee', 'bumpPercent', 'maxReplacements', 'timeoutSeconds', 'confirmations'] as const;

export function PolicySection({ policy }: { policy: ReplacementPolicy }) {
  const save = useApp((s) => s.saveSettings);
  const [form, setForm] = useState(() => toForm(policy));
  const [state, setState] = useState<SaveState>(idleSave);
  const [errors, setErrors] = useState<FieldErrors>({});
  // The saved policy changed (our own save, or another window, or a fix on a card): show it.
  const savedKey = JSON.stringify(policy);
  useEffect(() => setForm(toForm(JSON.parse(savedKey) as ReplacementPolicy)), [savedKey]);
  const dirty = JSON.stringify(form) !== JSON.stringify(toForm(policy));
  useDirty('the replacement policy', dirty);
  // Editing a field clears its own error and the last outcome, so a fixed mistake stops being reported.
  const set = (k: keyof PolicyForm) => (e: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [k]: e.target.value }));
    setErrors(({ [k]: _gone, ...rest }) => rest);
    setState(idleSave);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parsePolicyForm(form);
    if ('errors' in parsed) {
      setErrors(parsed.errors);
      const n = Object.keys(parsed.errors).length;
      setState({
        busy: false,
        error: { code: 'INVALID_PARAMETER', message: `Nothing was saved: ${n === 1 ? 'one field needs' : `${n} fields need`} fixing.` },
        saved: false,
      });
      return;
    }
    setErrors({});
    setState({ busy: true, error: null, saved: false });
    const error = await save({ policy: parsed.patch });
    if (error) {
      const mapped = apiErrorToFields(error, fieldNames);
      setErrors(mapped.fields);
      setState({
        busy: false,
        error: { code: error.code, message: mapped.form ?? 'Nothing was saved: one field needs fixing.' },
        saved: false,
      });
    } else setState({ busy: false, error: null, saved: true });
  };

  const input = (name: (typeof fieldNames)[number], label: string, mode: 'decimal' | 'numeric', hint?: string) => (
    <Field label={label} hint={hint} error={errors[name]}>
      {(p) => <input {...p} className="input mono" name={name} inputMode={mode} value={form[name]} onChange={set(name)} />}
    </Field>
  );

  return (
    <Card
      id="settings-policy"
      title="Replacement policy"
      description={
        form.pricing === 'market'
          ? 'A transaction that recent blocks outbid is re-sent with the same nonce at the market price.'
          : 'When a transaction is still pending after the timeout, it is re-sent with the same nonce and a higher fee.'
      }
    >
      <form onSubmit={(e) => void submit(e)} className="form" noValidate>
        <div className="form-grid">
          <Field
            label="Pricing"
            hint={
              form.pricing === 'market'
                ? 'From recent blocks; replaced when blocks go by that included higher tips.'
                : "The seed's example: the first fee below, replaced after the timeout."
            }
          >
            {(p) => (
              <select
                {...p}
                className="input"
                name="pricing"
                value={form.pricing}
                onChange={(e) => setForm((f) => ({ ...f, pricing: e.target.value === 'seed' ? 'seed' : 'market' }))}
              >
                <option value="market">Market (recent blocks)</option>
                <option value="seed">Seed preset (fixed first fee, timeout)</option>
              </select>
            )}
          </Field>
          {form.pricing === 'market' && (
            <Field label="Speed" hint="The tip recent full blocks included: their 1st, 10th or 50th percentile (market pricing).">
              {(p) => (
                <select
                  {...p}
                  className="input"
                  name="speed"
                  value={form.speed}
                  onChange={(e) =>
                    setForm((f) => ({ ...f, speed: e.target.value === 'slow' || e.target.value === 'fast' ? e.target.value : 'normal' }))
                  }
                >
                  <option value="slow">Slow</option>
                  <option value="normal">Normal</option>
                  <option value="fast">Fast</option>
                </select>
              )}
            </Field>
          )}
          {form.pricing === 'seed' && (
            <Field label="Transaction type">
              {(p) => (
                <select
                  {...p}
                  className="input"
                  name="txType"
                  value={form.txType}
                  onChange={(e) => setForm((f) => ({ ...f, txType: e.target.value === 'eip1559' ? 'eip1559' : 'legacy' }))}
                >
                  <option value="legacy">Legacy (gas price)</option>
                  <option value="eip1559">EIP-1559 (max fee + tip)</option>
                </select>
              )}
            </Field>
          )}
          {form.pricing === 'seed' && input('initialFee', 'First fee (gwei)', 'decimal')}
          {input(
            'bumpPercent',
            'Bump per replacement (%)',
            'decimal',
            `At least ${MIN_BUMP_PERCENT}${form.pricing === 'market' ? '; a replacement pays the market price or this much more, whichever is higher' : ''}.`,
          )}
          {input('maxFee', 'Fee cap (gwei)', 'decimal')}
          {input('maxReplacements', 'Replacements per nonce', 'numeric')}
          {form.pricing === 'seed' &&
            input(
              'timeoutSeconds',
              'Pending after (seconds)',
              'decimal',
              'Not mined (included in a block) within this time: the transaction counts as stuck and is replaced with a higher fee.',
            )}
          {input('confirmations', 'Confirmations', 'numeric')}
        </div>
        <SaveBar state={state} dirty={dirty} />
      </form>
    </Card>
  );
}
