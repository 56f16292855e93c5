// The Send form in a dialog over the dashboard: recipient, amount in ETH and optional data, each checked before sending
// with its own sentence; the core's refusal comes back beside its field or under the form. On success the dialog
// closes and the new nonce is on the dashboard with its timeline open.
import { useId, useRef, useState, type FormEvent } from 'react';
import { Modal } from '../../components/modal.js';
import { Spinner } from '../../components/states.js';
import { formatWeiAsEther, parseEtherToWei } from '../../lib/eth-amount.js';
import { shortHex } from '../../lib/format.js';
import { useApp } from '../../store/use-app.js';
import { Field } from '../settings/form-kit.js';
import { FeeNote } from './fee-note.js';
import { checkSendForm, emptySendForm, refusalToSendErrors, type SendErrors, type SendField, type SendForm } from './send-form.js';

const fieldOrder: readonly SendField[] = ['to', 'amount', 'data'];

export function SendDialog({ onClose }: { onClose: () => void }) {
  const balanceWei = useApp((s) => s.keyInfo?.balanceWei ?? null);
  const sendRequest = useApp((s) => s.sendRequest);
  const notify = useApp((s) => s.notify);
  const [form, setForm] = useState<SendForm>(emptySendForm);
  const [errors, setErrors] = useState<SendErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const typed = parseEtherToWei(form.amount);
  // The button says what it will send once the amount reads as one, so the last look before sending is at the sum.
  const amountText = typed.ok && typed.wei !== '0' ? formatWeiAsEther(typed.wei) : null;
  const feeId = useId();
  const formErrorId = useId();

  const update = (field: SendField, value: string) => {
    const next = { ...form, [field]: value };
    setForm(next);
    setFormError(null);
    // After a first attempt, errors follow the typing, so a fixed field stops saying it is wrong.
    if (tried) {
      const check = checkSendForm(next, balanceWei);
      setErrors(check.ok ? {} : check.errors);
    }
  };

  const focusFirstInvalid = (found: SendErrors) => {
    const first = fieldOrder.find((f) => found[f]);
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    const check = checkSendForm(form, balanceWei);
    if (!check.ok) {
      setErrors(check.errors);
      focusFirstInvalid(check.errors);
      return;
    }
    setErrors({});
    setFormError(null);
    setBusy(true);
    const result = await sendRequest(check.request);
    setBusy(false);
    if ('error' in result) {
      const refusal = refusalToSendErrors(result.error);
      setErrors(refusal.fields);
      setFormError(refusal.form);
      focusFirstInvalid(refusal.fields);
      return;
    }
    const to = check.request.to ?? '';
    notify('success', `Sent as nonce ${result.record.nonce}: ${formatWeiAsEther(check.valueWei)} ETH to ${shortHex(to, 8, 6)}.`);
    onClose();
  };

  return (
    <Modal title="Send" onClose={onClose} testId="send-dialog" busy={busy} closeButton={false}>
      <form ref={formRef} className="send-form" noValidate onSubmit={(e) => void submit(e)} aria-describedby={formError ? formErrorId : feeId}>
        <Field label="Recipient" error={errors.to} hint="The address to send to: 0x followed by 40 hex digits.">
          {(p) => (
            <input {...p} name="to" className="input mono" value={form.to} placeholder="0x…" spellCheck={false} autoComplete="off" onChange={(e) => update('to', e.target.value)} />
          )}
        </Field>
        <Field label="Amount (ETH)" error={errors.amount} hint={balanceWei === null ? 'Up to 18 decimals.' : `Up to 18 decimals. This account holds ${formatWeiAsEther(balanceWei)} ETH.`}>
          {(p) => (
            <input {...p} name="amount" className="input mono" inputMode="decimal" value={form.amount} placeholder="0.0" autoComplete="off" onChange={(e) => update('amount', e.target.value)} />
          )}
        </Field>
        <Field label="Data (optional)" error={errors.data} hint="Calldata as 0x-hex, to call a contract at the recipient; leave it empty for a plain transfer.">
          {(p) => (
            <textarea {...p} name="data" className="input textarea mono" value={form.data} placeholder="0x" rows={3} spellCheck={false} onChange={(e) => update('data', e.target.value)} />
          )}
        </Field>
        <FeeNote id={feeId} />
        {formError ? (
          <p id={formErrorId} className="form-error send-refusal" role="alert" data-testid="send-refusal">
            {formError}
          </p>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            Close
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="send-submit">
            {busy ? <Spinner label="Sending" /> : null}
            {amountText ? `Send ${amountText} ETH` : 'Send'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
