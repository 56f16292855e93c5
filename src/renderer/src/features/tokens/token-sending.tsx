// "Being sent" on a token whose transfer is under way: on its card, a label with the transaction's state in the app's
// one vocabulary; in its detail, where it goes and a way to its nonce on the dashboard.
import type { Token } from '../../../../shared/listing.js';
import { Hex } from '../../components/hex.js';
import { StateBadge } from '../../components/state-badge.js';
import { stateTone, stateWords, type NonceStateName } from '../../store/nonce-state.js';
import { tokenSendKey, tokenSendState, type TokenSend } from '../../store/token-sends.js';
import { useApp } from '../../store/use-app.js';

/** The send under way for this token from the account shown, and its nonce's state; null when none. */
export function useTokenSend(token: Token) {
  const send = useApp((s) => s.tokenSends[tokenSendKey(token.contract.address, token.id)]);
  const txs = useApp((s) => s.txs);
  if (!send || send.owner !== token.owner.toLowerCase()) return null;
  const state = tokenSendState(send, txs);
  return { send, name: state?.name ?? 'sending' } as const;
}

export function SendingBadge({ token }: { token: Token }) {
  const sending = useTokenSend(token);
  if (!sending) return null;
  return (
    <span className={`token-sending tone-${stateTone(sending.name)}`} data-testid="token-sending" data-state={sending.name}>
      Being sent · {stateWords[sending.name]}
    </span>
  );
}

export function SendingFacts({ send, name }: { send: TokenSend; name: NonceStateName }) {
  const setView = useApp((s) => s.setView);
  const select = useApp((s) => s.selectTransaction);
  return (
    <div className="token-sending-facts" data-testid="token-sending-facts">
      <div className="token-sending-text">
        <p>
          <strong>Being sent</strong> {send.amount !== '1' ? `(${send.amount}) ` : ''}to{' '}
          <Hex value={send.to} head={8} tail={6} copy="recipient address" explorer="address" /> <StateBadge state={name} />
        </p>
        <p className="muted">It stays in this account’s listing until the indexer sees the transfer.</p>
      </div>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        onClick={() => {
          if (setView('transactions')) select(send.hash);
        }}
      >
        Show the transaction
      </button>
    </div>
  );
}
