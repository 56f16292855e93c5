// The Send form's check before anything is sent (recipient, amount in ETH, optional data), every field that needs
// fixing with a sentence; the most a transfer can send with room for the fee (Max) and what the button says; and the
// core's refusal put back beside the field it names. Pure.
import type { TxRequest } from '../../../../shared/tx-request.js';
import type { ErrorInfo } from '../../transport/api-error.js';
import { hasValidChecksum } from '../../lib/address-checksum.js';
import { parseEtherToWei } from '../../lib/eth-amount.js';
import { formatEthAmount, formatFee } from '../../lib/format.js';

export interface SendForm {
  to: string;
  amount: string;
  data: string;
}

export type SendField = keyof SendForm;
export type SendErrors = Partial<Record<SendField, string>>;

export const emptySendForm: SendForm = { to: '', amount: '', data: '' };

/** The largest calldata the core takes (its schema's 256 KiB). */
const MAX_DATA_BYTES = 256 * 1024;
const ZERO_ADDRESS = '0x' + '0'.repeat(40);

/** A recipient as typed: one sentence saying what is wrong with it, or null. */
export function recipientProblem(text: string): string | null {
  const t = text.trim();
  if (t === '') return 'Enter the recipient’s address: 0x followed by 40 hex digits.';
  if (!/^0x/i.test(t)) return 'An address starts with 0x, followed by 40 hex digits.';
  const body = t.slice(2);
  if (/[^0-9a-fA-F]/.test(body)) return 'An address holds only hex digits (0–9, a–f) after 0x; check what was pasted.';
  if (body.length !== 40) return `This address has ${body.length} hex digits after 0x; an address has 40. Check that it is complete.`;
  if (!hasValidChecksum(t))
    return 'The capital letters of this address do not match its checksum, so it probably has a typo; check it, or write it in lower case.';
  if (t.toLowerCase() === ZERO_ADDRESS) return 'That is the zero address: whatever is sent there is lost for good.';
  return null;
}

/** Optional calldata as typed: a sentence, or null when empty or valid 0x-hex bytes. */
export function dataProblem(text: string): string | null {
  const t = text.trim();
  if (t === '' || t === '0x') return null;
  if (!t.startsWith('0x')) return 'Data is 0x-hex: start it with 0x, or leave it empty for a plain transfer.';
  const body = t.slice(2);
  if (/[^0-9a-fA-F]/.test(body)) return 'Data may only hold hex digits (0–9, a–f) after 0x.';
  if (body.length % 2 === 1) return `Data is whole bytes, an even number of hex digits after 0x; this has ${body.length}.`;
  if (body.length / 2 > MAX_DATA_BYTES) return 'Data is limited to 256 KiB.';
  return null;
}

export type SendCheck = { ok: true; request: TxRequest; valueWei: string } | { ok: false; errors: SendErrors };

/** What the account can pay with, when known: its balance and the policy's fee cap (decimal wei). */
export interface SendFunds {
  balanceWei: string | null;
  feeCapWei?: string | null;
}

/** The gas of a plain transfer. A call's gas is estimated by the core when it is sent, so the form cannot count it. */
export const TRANSFER_GAS = 21_000n;

/** The most the fee of a plain transfer can cost: its gas at the fee cap (the core refuses a send the balance cannot cover so). */
export function transferFeeCapWei(feeCapWei: string): bigint {
  return TRANSFER_GAS * BigInt(feeCapWei);
}

/**
 * Max: the balance less the fee at its worst (21,000 gas at the fee cap), so what is filled in is never refused for the
 * fee; decimal wei. Null when the balance or the cap is unknown, or the fee would take it all.
 */
export function maxSendableWei(funds: SendFunds): string | null {
  if (funds.balanceWei === null || !funds.feeCapWei) return null;
  const rest = BigInt(funds.balanceWei) - transferFeeCapWei(funds.feeCapWei);
  return rest > 0n ? rest.toString() : null;
}

const hasCalldata = (form: SendForm): boolean => dataProblem(form.data) === null && form.data.trim() !== '' && form.data.trim() !== '0x';

/** The amount as decimal wei, or the sentence that says what is wrong with it (given the funds, when known). */
function checkAmount(form: SendForm, funds: SendFunds): { wei: string } | { error: string } {
  const hasData = hasCalldata(form);
  const amount = parseEtherToWei(form.amount.trim() === '' && hasData ? '0' : form.amount);
  if (!amount.ok) return { error: amount.error };
  if (amount.wei === '0' && !hasData && dataProblem(form.data) === null)
    return { error: 'Enter an amount above 0, or data to call the recipient with.' };
  const { balanceWei, feeCapWei } = funds;
  if (balanceWei === null) return { wei: amount.wei };
  const value = BigInt(amount.wei);
  const balance = BigInt(balanceWei);
  // The balance is written rounded toward zero, so an amount above it also reads above it.
  if (value > balance) return { error: `That is more than the ${formatEthAmount(balanceWei)} this account holds.` };
  // Only a plain transfer's fee is known here; the core counts a call's estimated gas when it is sent.
  if (feeCapWei && !hasData && value + transferFeeCapWei(feeCapWei) > balance) {
    const fee = `21,000 gas at up to the fee cap of ${formatFee(feeCapWei)} may cost ${formatEthAmount(transferFeeCapWei(feeCapWei), 'exact')}`;
    const max = maxSendableWei(funds);
    return {
      error: max
        ? `That leaves too little for the fee: ${fee}, so at most ${formatEthAmount(max)} can be sent (Max fills it in).`
        : `The ${formatEthAmount(balanceWei)} this account holds does not cover the fee: ${fee}.`,
    };
  }
  return { wei: amount.wei };
}

/** The form as a request to the core, or every field that needs fixing, given what the account can pay with. */
export function checkSendForm(form: SendForm, funds: SendFunds): SendCheck {
  const errors: SendErrors = {};
  const to = recipientProblem(form.to);
  if (to) errors.to = to;
  const data = dataProblem(form.data);
  if (data) errors.data = data;
  const amount = checkAmount(form, funds);
  if ('error' in amount) errors.amount = amount.error;
  if (Object.keys(errors).length > 0 || 'error' in amount) return { ok: false, errors };
  // The address goes as typed: lower-casing it would throw away the checksum the core checks again.
  const request: TxRequest = { to: form.to.trim(), value: amount.wei };
  if (hasCalldata(form)) request.data = form.data.trim().toLowerCase();
  return { ok: true, request, valueWei: amount.wei };
}

/**
 * The submit button's words: the sum ("Send 0.125 ETH") once the amount is one that can be sent, so the last look
 * before sending is at it; plain "Send" while the amount is missing, malformed or more than the account can send.
 */
export function sendButtonLabel(form: SendForm, funds: SendFunds): string {
  const amount = checkAmount(form, funds);
  return 'wei' in amount && amount.wei !== '0' ? `Send ${formatEthAmount(amount.wei, 'exact')}` : 'Send';
}

/** The request's fields as the core names them (the paths of its field issues), and the form field each one is. */
const coreFields: Readonly<Record<string, { field: SendField; noun: string }>> = {
  to: { field: 'to', noun: 'The recipient' },
  value: { field: 'amount', noun: 'The amount' },
  data: { field: 'data', noun: 'The data' },
};

/**
 * A refusal from the core, shown where it belongs: an issue of a field this form has (the error's `fields`) beside that
 * field, anything else (a call that would revert, a balance that cannot cover value and gas) as the form's own sentence.
 */
export function refusalToSendErrors(error: ErrorInfo): { fields: SendErrors; form: string | null } {
  const fields: SendErrors = {};
  const rest: string[] = [];
  for (const issue of error.fields ?? []) {
    const known = coreFields[issue.path];
    if (known && issue.problem) fields[known.field] = `${known.noun} ${issue.problem}.`;
    else rest.push(issue.sentence);
  }
  if (!error.fields) rest.push(error.message);
  return { fields, form: rest.length > 0 ? rest.join(' ') : null };
}
