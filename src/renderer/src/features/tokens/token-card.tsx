// One token: its image and name from metadata, else a generated swatch; collection and id below.
import { memo, useContext, useState } from 'react';
import type { TokenMetadata } from '../../../../shared/desktop-api.js';
import type { Token } from '../../../../shared/listing.js';
import { seedGradient } from '../../lib/seed-art.js';
import { tokenImageSrc } from '../../lib/token-image.js';
import { TransportContext, useApp } from '../../store/use-app.js';

const NO_METADATA: TokenMetadata = {};

export const TokenCard = memo(function TokenCard({ token, onOpen }: { token: Token; onOpen?: (token: Token) => void }) {
  const meta = useApp((s) => (token.uri ? s.metadata[token.uri] : NO_METADATA));
  const transport = useContext(TransportContext);
  const [broken, setBroken] = useState(false);
  const image = broken ? undefined : tokenImageSrc(meta?.image, transport);
  const collection = token.contract.name || token.contract.symbol || 'Unnamed collection';
  const name = meta?.name || `${token.contract.symbol || collection} #${token.id}`;
  return (
    <li className="token-card" data-contract={token.contract.address} data-token-id={token.id}>
      <div className="token-media" style={image ? undefined : { background: seedGradient(`${token.contract.address}:${token.id}`) }}>
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
      </div>
    </li>
  );
});
