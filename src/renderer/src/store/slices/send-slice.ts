// Sending: a request from the Send form or a token's Send goes through the core's engine like any other nonce (the
// record joins the list and opens its timeline), and a token sent is remembered as "being sent" until it moves.
import type { Token } from '../../../../shared/listing.js';
import type { TxRecord } from '../../../../shared/tx-record.js';
import type { TxRequest } from '../../../../shared/tx-request.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import { outcomeText, settleTokenSends, tokenSendKey, type ListingView, type TokenSends } from '../token-sends.js';
import { upsertRecord } from '../tx-logic.js';
import type { SliceCreator } from './types.js';

export type SendResult = { record: TxRecord } | { error: ErrorInfo };

export interface SendSlice {
  /** Tokens being sent, by `contract:tokenId` (store/token-sends.ts). */
  tokenSends: TokenSends;
  /** Asks the core to send `request`; the record joins the list and is selected. A refusal comes back, not as a notice: the form shows it. */
  sendRequest(request: TxRequest): Promise<SendResult>;
  /** Sends `amount` of `token` with `request` (built by features/send/token-send-form.ts) and marks it being sent. */
  sendToken(token: Token, request: TxRequest, to: string, amount: string): Promise<SendResult>;
  /** Ends the sends the transactions or `listing` say are over, with a notice each. */
  settleTokenSends(listing?: ListingView | null): void;
}

export const createSendSlice: SliceCreator<SendSlice> = (api) => (set, get) => ({
  tokenSends: {},
  async sendRequest(request) {
    try {
      const record = await api.sendTransaction(request);
      set((s) => ({ txs: upsertRecord(s.txs, record) }));
      // The person just asked for it: its timeline is what they want to watch.
      get().selectTransaction(record.transactionHash);
      return { record };
    } catch (e) {
      return { error: errorInfo(e) };
    }
  },
  async sendToken(token, request, to, amount) {
    const result = await get().sendRequest(request);
    if ('error' in result) return result;
    const contract = token.contract.address.toLowerCase();
    const label = `${token.contract.name || token.contract.symbol || 'Token'} #${token.id}`;
    const send = {
      contract,
      tokenId: token.id,
      owner: token.owner.toLowerCase(),
      to: to.toLowerCase(),
      amount,
      heldBefore: token.balance ?? '1',
      hash: result.record.transactionHash,
      label,
    };
    set((s) => ({ tokenSends: { ...s.tokenSends, [tokenSendKey(contract, token.id)]: send } }));
    return result;
  },
  settleTokenSends(listing = null) {
    const { tokenSends, txs } = get();
    if (Object.keys(tokenSends).length === 0) return;
    const { sends, ended } = settleTokenSends(tokenSends, txs, listing);
    if (sends === tokenSends) return;
    set({ tokenSends: sends });
    for (const e of ended) get().notify(e.outcome === 'moved' ? 'success' : 'info', outcomeText(e.send, e.outcome));
  },
});
