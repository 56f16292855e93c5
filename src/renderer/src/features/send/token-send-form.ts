// Send on a token you hold: the recipient and, for ERC-1155, how many (1 up to the balance) checked before sending,
// then the request the core signs: a call of the token contract's safeTransferFrom, no ETH. Pure.
import type { Token } from '../../../../shared/listing.js';
import type { TxRequest } from '../../../../shared/tx-request.js';
import { encodeErc1155SafeTransferFrom, encodeErc721SafeTransferFrom } from '../../lib/token-transfer-abi.js';
import type { ErrorInfo } from '../../transport/api-error.js';
import { recipientProblem, refusalToSendErrors } from './send-form.js';

export interface TokenSendForm {
  to: string;
  /** How many; ERC-1155 only (an ERC-721 token is one of a kind). */
  amount: string;
}

export type TokenSendErrors = Partial<Record<keyof TokenSendForm, string>>;

export const isMultiToken = (token: Token) => token.contract.standard === 'ERC1155';

/** What the owner holds: the listing's balance, 1 for an ERC-721 token (or a service too old to say). */
export const heldAmount = (token: Token): bigint => {
  try {
    return BigInt(token.balance ?? '1');
  } catch {
    return 1n;
  }
};

export type TokenSendCheck = { ok: true; request: TxRequest; amount: string } | { ok: false; errors: TokenSendErrors };

export function checkTokenSendForm(form: TokenSendForm, token: Token): TokenSendCheck {
  const errors: TokenSendErrors = {};
  const to = recipientProblem(form.to);
  if (to) errors.to = to;
  else if (form.to.trim().toLowerCase() === token.owner.toLowerCase())
    errors.to = 'That is the account that holds the token; enter the address to send it to.';
  let amount = 1n;
  if (isMultiToken(token)) {
    const held = heldAmount(token);
    const t = form.amount.trim();
    if (!/^\d{1,78}$/.test(t) || BigInt(t) < 1n || BigInt(t) > held)
      errors.amount =
        held === 1n
          ? 'This account holds 1 of this token: the amount is 1.'
          : `Enter a whole number from 1 to ${held}, the amount this account holds.`;
    else amount = BigInt(t);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // Calldata carries the address without a checksum, so recipientProblem checked it above.
  const recipient = form.to.trim().toLowerCase();
  const data = isMultiToken(token)
    ? encodeErc1155SafeTransferFrom(token.owner, recipient, token.id, amount)
    : encodeErc721SafeTransferFrom(token.owner, recipient, token.id);
  return { ok: true, request: { to: token.contract.address.toLowerCase(), value: '0', data }, amount: amount.toString() };
}

/**
 * The core's refusal of a token transfer as one sentence under the form. Its fields are the contract and the calldata,
 * which nobody typed, so nothing goes beside a field; a revert says what usually causes one for a transfer, since the
 * core's own advice ("fix the call or its arguments") names nothing a person can change here.
 */
export function tokenRefusalText(error: ErrorInfo): string {
  const { fields, form } = refusalToSendErrors(error);
  const text = [form, ...Object.values(fields)].filter(Boolean).join(' ');
  if (error.code !== 'WOULD_REVERT') return text;
  return (
    `${text} The collection's contract refused this transfer: it may not implement safeTransferFrom, or the recipient ` +
    `is a contract that does not accept tokens.`
  );
}
