// One token: its image and name from metadata, else a generated swatch; collection and id below; the ERC-1155 balance
// as a badge; "being sent" while a transfer of it is under way; a refresh action that asks the data service to read
// the metadata URI again.
import { memo, useContext, useState } from 'react';
import type { TokenMetadata } from '../../../../shared/desktop-api.js';
import type { Token } from '../../../../shared/listing.js';
import { seedGradient } from '../../lib/seed-art.js';
import { tokenImageSrc } from '../../lib/token-image.js';
import { TransportContext, useApp } from '../../store/use-app.js';
import { SendingBadge } from './token-sending.js';

const NO_METADATA: TokenMetadata = {};

export const TokenCard = memo(function TokenCard({ token, onOpen }: { token: Token; onOpen?: (token: Token) => void }) {
  const meta = useApp((s) => (token.uri ? s.metadata[token.uri] : NO_METADATA));
  const transport = useContext(TransportContext);
  const [broken, setBroken] = useState(false);
  const image = broken ? undefined : tokenImageSrc(meta?.image, transport);
  const collection = token.contract.name || token.contract.symbol || 'Unnamed collection';
  const name = meta?.name || `${token.contract.symbol || collection} #${token.id}`;
  const refresh = useApp((s) => s.tokenRefresh[`${token.contract.address}:${token.id}`]);
  const refreshToken = useApp((s) => s.refreshToken);
  const multi = token.contract.standard === 'ERC1155';
  return (
    <li
      className="token-card"
      data-contract={token.contract.address}
      data-token-id={token.id}
      data-standard={token.contract.standard ?? 'ERC721'}
    >
      <div className="token-media" style={image ? undefined : { background: seedGradient(`${token.contract.address}:${token.id}`) }}>
        {multi ? (
          <span className="token-balance" data-testid="token-balance" title={`Holds ${token.balance ?? '?'} of this ERC-1155 token`}>
            ×{token.balance ?? '?'}
          </span>
        ) : null}
        <button
          type="button"
          className="token-refresh"
          aria-label={`Refresh metadata of ${name}`}
          title={refresh?.state === 'error' ? refresh.message : 'Refresh metadata'}
          data-state={refresh?.state ?? 'idle'}
          disabled={refresh?.state === 'pending'}
          onClick={() => void refreshToken(token.contract.address, token.id)}
        >
          ↻
        </button>
        <SendingBadge token={token} />
        {meta === null ? <span className="skeleton token-skeleton" aria-hidden="true" /> : null}
        {image ? <img src={image} alt={name} loading="lazy" onError={() => setBroken(true)} /> : null}
        {!image && meta !== null ? (
          <span className="token-fallback" aria-hidden="true">
            #{token.id}
          </span>
        ) : null}
      </div>
      {onOpen ? (
        <button type="button" className="token-open" aria-label={`Open ${name}`} onClick={() => onOpen(token)}>
          <span className="sr-only">Open {name}</span>
        </button>
      ) : null}
      <div className="token-info">
        <h3 className="token-name" title={name}>
          {name}
        </h3>
        <p className="token-meta">
          <span className="token-collection" title={token.contract.address}>
            {collection}
          </span>
          <span className="mono muted">#{token.id}</span>
        </p>
        {refresh?.state === 'error' ? (
          <p className="token-refresh-error" role="alert">
            {refresh.message}
          </p>
        ) : null}
      </div>
    </li>
  );
});
