// One token in full: its image and metadata, the collection contract, the owner, the token id, its metadata URI and,
// where the listing gives it, the block of its last transfer; for an ERC-1155 token, the amount held; Send when the
// signing account holds it, and where it is going while it is being sent.
import { useContext } from 'react';
import type { Token } from '../../../../shared/listing.js';
import { Hex } from '../../components/hex.js';
import { Modal } from '../../components/modal.js';
import { formatInteger } from '../../lib/format.js';
import { seedGradient } from '../../lib/seed-art.js';
import { tokenImageSrc } from '../../lib/token-image.js';
import { TransportContext, useApp } from '../../store/use-app.js';
import { SendingFacts, useTokenSend } from './token-sending.js';

/** The listing's transfer block, under whichever name a service version gives it; null when it gives none. */
function transferBlock(token: Token): number | null {
  const t = token as unknown as Record<string, unknown>;
  const v = t.transferBlockNumber ?? t.transfer_block_number ?? t.blockNumber;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

export function TokenDetail({
  token,
  onClose,
  onSend,
}: {
  token: Token;
  onClose: () => void /** Set when the signing account holds the token. */;
  onSend?: ((token: Token) => void) | undefined;
}) {
  const meta = useApp((s) => (token.uri ? s.metadata[token.uri] : undefined));
  const transport = useContext(TransportContext);
  const image = tokenImageSrc(meta?.image, transport);
  const collection = token.contract.name || token.contract.symbol || 'Unnamed collection';
  const name = meta?.name || `${token.contract.symbol || collection} #${token.id}`;
  const block = transferBlock(token);
  const sending = useTokenSend(token);
  return (
    <Modal title={name} onClose={onClose} testId="token-detail" wide>
      <div className="token-detail">
        <div
          className="token-detail-media"
          style={image ? undefined : { background: seedGradient(`${token.contract.address}:${token.id}`) }}
        >
          {image ? <img src={image} alt={name} /> : <span className="token-fallback">#{token.id}</span>}
        </div>
        <div className="token-detail-body">
          {meta?.description ? (
            <p className="token-description">{meta.description}</p>
          ) : meta === null ? (
            <p className="muted">Loading metadata…</p>
          ) : null}
          {sending ? (
            <SendingFacts send={sending.send} name={sending.name} />
          ) : onSend ? (
            <div className="token-send-row">
              <button type="button" className="btn btn-primary" onClick={() => onSend(token)} data-testid="token-send">
                Send
              </button>
              <span className="muted">
                to another address{token.contract.standard === 'ERC1155' ? ', some or all of what this account holds' : ''}.
              </span>
            </div>
          ) : null}
          <dl className="facts facts-wide">
            <div>
              <dt>Collection</dt>
              <dd>
                {collection}
                {token.contract.symbol && token.contract.name ? <span className="muted"> · {token.contract.symbol}</span> : null}
              </dd>
            </div>
            <div>
              <dt>Contract</dt>
              <dd>
                <Hex value={token.contract.address} head={10} tail={8} copy="contract address" explorer="address" />
              </dd>
            </div>
            <div>
              <dt>Token ID</dt>
              <dd className="mono">{token.id}</dd>
            </div>
            <div>
              <dt>Owner</dt>
              <dd>
                <Hex value={token.owner} head={10} tail={8} copy="owner address" explorer="address" />
              </dd>
            </div>
            {token.contract.standard === 'ERC1155' && token.balance ? (
              <div>
                <dt>Held</dt>
                <dd className="mono">{token.balance}</dd>
              </div>
            ) : null}
            {block === null ? null : (
              // Only where the service's listing gives it (the seed's listing (docs/api.md) has no such field).
              <div>
                <dt>Transfer block</dt>
                <dd className="mono">{formatInteger(block)}</dd>
              </div>
            )}
            <div>
              <dt>Collection supply</dt>
              <dd className="mono">{formatInteger(token.contract.totalSupply)}</dd>
            </div>
            <div className="span-all">
              <dt>Metadata URI</dt>
              <dd className="mono token-uri">{token.uri || '—'}</dd>
            </div>
          </dl>
        </div>
      </div>
    </Modal>
  );
}
