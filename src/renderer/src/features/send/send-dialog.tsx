// The Send form in a dialog over the dashboard: recipient, amount in ETH (Max fills in the balance less the fee at its
// worst) and optional data, each checked before sending with its own sentence; the button names the sum only while it
// can be sent; the core's refusal comes back beside its field or under the form. On success the dialog closes and the
// new nonce is on the dashboard with its timeline open.
import { Modal } from '../../components/modal.js';
import { weiToEtherInput } from '../../lib/eth-amount.js';
import { formatEthAmount, formatFee, shortHex } from '../../lib/format.js';
import { useApp } from '../../store/use-app.js';
import { Field } from '../settings/form-kit.js';
import { SendFormFooter, useSendForm, useSendSpeed, withSpeed } from './send-dialog-kit.js';
import {
  checkSendForm,
  dataProblem,
  emptySendForm,
  maxSendableWei,
  refusalToSendErrors,
  sendButtonLabel,
  transferFeeCapWei,
  type SendField,
  type SendForm,
  type SendFunds,
} from './send-form.js';

const fieldOrder: readonly SendField[] = ['to', 'amount', 'data'];

/** The amount's hint: what the account holds (rounded down, as in the sidebar) and what Max leaves for the fee. */
function amountHint(funds: SendFunds, withData: boolean): string {
  if (funds.balanceWei === null) return 'Up to 18 decimals.';
  const held = `This account holds ${formatEthAmount(funds.balanceWei)}`;
  if (!funds.feeCapWei) return `${held}.`;
  if (withData) return `${held}. With data the gas is estimated when sending, so Max is for a plain transfer only.`;
  return (
    `${held}; Max keeps ${formatEthAmount(transferFeeCapWei(funds.feeCapWei), 'exact')} for the fee (21,000 gas at up ` +
    `to the fee cap of ${formatFee(funds.feeCapWei)}).`
  );
}

export function SendDialog({ onClose }: { onClose: () => void }) {
  const balanceWei = useApp((s) => s.keyInfo?.balanceWei ?? null);
  const feeCapWei = useApp((s) => s.settings?.policy.maxFeeWei ?? null);
  const sendRequest = useApp((s) => s.sendRequest);
  const notify = useApp((s) => s.notify);
  const funds: SendFunds = { balanceWei, feeCapWei };
  const { form, errors, formError, busy, formRef, ids, update, submit } = useSendForm(
    emptySendForm,
    (f: SendForm) => checkSendForm(f, funds),
    fieldOrder,
  );
  const withData = form.data.trim() !== '' && form.data.trim() !== '0x' && dataProblem(form.data) === null;
  const max = withData ? null : maxSendableWei(funds);

  const { speed, setSpeed } = useSendSpeed();
  const send = submit(async (check) => {
    const result = await sendRequest(withSpeed(check.request, speed));
    if ('error' in result) return refusalToSendErrors(result.error);
    const to = check.request.to ?? '';
    notify('success', `Sent as nonce ${result.record.nonce}: ${formatEthAmount(check.valueWei, 'exact')} to ${shortHex(to, 8, 6)}.`);
    onClose();
    return null;
  });

  return (
    <Modal title="Send" onClose={onClose} testId="send-dialog" busy={busy} closeButton={false}>
      <form
        ref={formRef}
        className="send-form"
        noValidate
        onSubmit={(e) => void send(e)}
        aria-describedby={formError ? ids.formError : ids.fee}
      >
        <Field label="Recipient" error={errors.to} hint="The address to send to: 0x followed by 40 hex digits.">
          {(p) => (
            <input
              {...p}
              name="to"
              className="input mono"
              value={form.to}
              placeholder="0x…"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => update('to', e.target.value)}
            />
          )}
        </Field>
        <Field label="Amount (ETH)" error={errors.amount} hint={amountHint(funds, withData)}>
          {(p) => (
            <div className="input-group">
              <input
                {...p}
                name="amount"
                className="input mono"
                inputMode="decimal"
                value={form.amount}
                placeholder="0.0"
                autoComplete="off"
                onChange={(e) => update('amount', e.target.value)}
              />
              <button
                type="button"
                className="btn btn-secondary"
                data-testid="send-max"
                disabled={max === null}
                title={max === null ? undefined : `Fill in ${formatEthAmount(max, 'exact')}: the balance less the most the fee can cost`}
                onClick={() => max !== null && update('amount', weiToEtherInput(max))}
              >
                Max
              </button>
            </div>
          )}
        </Field>
        <Field
          label="Data (optional)"
          error={errors.data}
          hint="Calldata as 0x-hex, to call a contract at the recipient; leave it empty for a plain transfer."
        >
          {(p) => (
            <textarea
              {...p}
              name="data"
              className="input textarea mono"
              value={form.data}
              placeholder="0x"
              rows={3}
              spellCheck={false}
              onChange={(e) => update('data', e.target.value)}
            />
          )}
        </Field>
        <SendFormFooter
          ids={ids}
          formError={formError}
          busy={busy}
          onClose={onClose}
          submitTestId="send-submit"
          speed={speed}
          onSpeed={setSpeed}
          label={sendButtonLabel(form, funds)}
        />
      </form>
    </Modal>
  );
}
