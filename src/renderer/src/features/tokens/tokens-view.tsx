// The token browser: controls, total count, a grid of token cards, prev/next through the listing's pagination, a
// token's detail and, for a token the signing account holds, its Send form.
import { useCallback, useMemo, useState } from 'react';
import type { Token } from '../../../../shared/listing.js';
import { EmptyState, ErrorState, LoadingState, Spinner } from '../../components/states.js';
import { formatInteger } from '../../lib/format.js';
import { effectiveOwner } from '../../store/slices/tokens-slice.js';
import { pageNav } from '../../store/token-logic.js';
import { useApp } from '../../store/use-app.js';
import { Hex } from '../../components/hex.js';
import { TokenCard } from './token-card.js';
import { TokenControlsBar } from './token-controls.js';
import { TokenDetail } from './token-detail.js';
import { TokenSendDialog } from '../send/token-send-dialog.js';
import { NetworkBadge } from '../../components/network-badge.js';

export function TokensView() {
  const page = useApp((s) => s.tokenPage);
  const state = useApp((s) => s.tokensState);
  const error = useApp((s) => s.tokensError);
  const controls = useApp((s) => s.tokenControls);
  const shown = useApp((s) => s.tokenPageControls);
  const appAddress = useApp((s) => s.info?.address ?? null);
  const setControls = useApp((s) => s.setTokenControls);
  const reload = useApp((s) => s.loadTokens);
  const owner = effectiveOwner(controls, appAddress);
  const nav = useMemo(() => (page ? pageNav(page, shown) : null), [page, shown]);
  const [open, setOpen] = useState<Token | null>(null);
  const onOpen = useCallback((t: Token) => setOpen(t), []);
  const [sending, setSending] = useState<Token | null>(null);
  // One dialog at a time: Send closes the detail and opens the send form.
  const onSend = useCallback((t: Token) => {
    setOpen(null);
    setSending(t);
  }, []);
  const holds = (t: Token) => Boolean(appAddress) && t.owner.toLowerCase() === appAddress!.toLowerCase();

  let body;
  if (!owner) {
    body = (
      <EmptyState title="No account to show" icon="◈">
        <p>Create or import a signing key in Settings, or enter any address above.</p>
      </EmptyState>
    );
  } else if (state === 'error') {
    body = <ErrorState title="Could not load tokens" error={error} onRetry={() => void reload()} />;
  } else if (!page) {
    body = <LoadingState text="Loading tokens…" />;
  } else if (page.data.length === 0) {
    body = (
      <EmptyState title={controls.contracts.length ? 'No tokens in these collections' : 'This account holds no tokens'} icon="◈">
        <p>
          {controls.contracts.length
            ? 'Clear the collection filter to see everything the account holds.'
            : 'Tokens appear here once the indexer sees a transfer to this account.'}
        </p>
      </EmptyState>
    );
  } else {
    body = (
      <ul className={`token-grid${state === 'loading' ? ' is-stale' : ''}`} aria-label="Tokens" aria-busy={state === 'loading'}>
        {page.data.map((t) => (
          <TokenCard key={`${t.contract.address}:${t.id}`} token={t} onOpen={onOpen} />
        ))}
      </ul>
    );
  }

  return (
    <div className="view">
      <header className="view-head">
        <div>
          <div className="view-title">
            <h1>Tokens</h1>
            <NetworkBadge />
          </div>
          <p className="view-sub">
            ERC-721 and ERC-1155 tokens held by {owner ? <Hex value={owner} copy="address" explorer="address" /> : 'an account'}
            {owner && owner === appAddress ? ' (your signing account)' : ''}.
          </p>
        </div>
        <div className="view-actions">
          {page ? (
            <span className="total-pill" data-testid="token-total">
              <strong>{formatInteger(page.pagination.totalCount)}</strong> token{page.pagination.totalCount === 1 ? '' : 's'}
            </span>
          ) : null}
          {state === 'loading' && page ? <Spinner label="Refreshing" /> : null}
        </div>
      </header>
      <TokenControlsBar />
      {body}
      {page && nav && page.data.length > 0 ? (
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            className="btn btn-secondary"
            disabled={nav.prev === null || state === 'loading'}
            onClick={() => nav.prev !== null && void setControls({ page: nav.prev })}
          >
            ← Previous
          </button>
          <span className="pager-status" data-testid="page-status">
            Page {shown.page + 1} of {nav.pageCount}
          </span>
          <button
            type="button"
            className="btn btn-secondary"
            disabled={nav.next === null || state === 'loading'}
            onClick={() => nav.next !== null && void setControls({ page: nav.next })}
          >
            Next →
          </button>
        </nav>
      ) : null}
      {open ? <TokenDetail token={open} onClose={() => setOpen(null)} onSend={holds(open) ? onSend : undefined} /> : null}
      {sending ? <TokenSendDialog token={sending} onClose={() => setSending(null)} /> : null}
    </div>
  );
}
