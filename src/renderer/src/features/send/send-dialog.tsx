// The Send form in a dialog over the dashboard: recipient, amount in ETH and optional data, each checked before sending
// with its own sentence; the core's refusal comes back beside its field or under the form. On success the dialog
// closes and the new nonce is on the dashboard with its timeline open.
import { Modal } from '../../components/modal.js';
import { formatWeiAsEther, parseEtherToWei } from '../../lib/eth-amount.js';
import { shortHex } from '../../lib/format.js';
import { useApp } from '../../store/use-app.js';
import { Field } from '../settings/form-kit.js';
import { SendFormFooter, useSendForm } from './send-dialog-kit.js';
import { checkSendForm, emptySendForm, refusalToSendErrors, type SendField, type SendForm } from './send-form.js';

const fieldOrder: readonly SendField[] = ['to', 'amount', 'data'];

export function SendDialog({ onClose }: { onClose: () => void }) {
  const balanceWei = useApp((s) => s.keyInfo?.balanceWei ?? null);
  const sendRequest = useApp((s) => s.sendRequest);
  const notify = useApp((s) => s.notify);
  const { form, errors, formError, busy, formRef, ids, update, submit } = useSendForm(emptySendForm, (f: SendForm) => checkSendForm(f, balanceWei), fieldOrder);
  const typed = parseEtherToWei(form.amount);
  // The button says what it will send once the amount reads as one, so the last look before sending is at the sum.
  const amountText = typed.ok && typed.wei !== '0' ? formatWeiAsEther(typed.wei) : null;

  const send = submit(async (check) => {
    const result = await sendRequest(check.request);
    if ('error' in result) return refusalToSendErrors(result.error);
    const to = check.request.to ?? '';
    notify('success', `Sent as nonce ${result.record.nonce}: ${formatWeiAsEther(check.valueWei)} ETH to ${shortHex(to, 8, 6)}.`);
    onClose();
    return null;
  });

  return (
    <Modal title="Send" onClose={onClose} testId="send-dialog" busy={busy} closeButton={false}>
      <form ref={formRef} className="send-form" noValidate onSubmit={(e) => void send(e)} aria-describedby={formError ? ids.formError : ids.fee}>
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
        <SendFormFooter ids={ids} formError={formError} busy={busy} onClose={onClose} submitTestId="send-submit" label={amountText ? `Send ${amountText} ETH` : 'Send'} />
      </form>
    </Modal>
  );
}
