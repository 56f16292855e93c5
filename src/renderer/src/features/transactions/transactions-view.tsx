// The transaction dashboard: Generate, live counts, replacement chains grouped by nonce, and the selected transaction.
import { useCallback, useMemo } from 'react';
import { EmptyState, ErrorState, LoadingState, Spinner } from '../../components/states.js';
import { countRecords, groupByNonce } from '../../store/tx-logic.js';
import { useApp } from '../../store/use-app.js';
import { NonceGroupCard } from './nonce-group-card.js';
import { TxDetail } from './tx-detail.js';

function PlusIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" className="icon">
      <path d="M7 1.5v11M1.5 7h11" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

function Stat({ label, value, tone }: { label: string; value: number; tone: string }) {
  return (
    <div className={`stat tone-${tone}${value === 0 ? ' is-zero' : ''}`}>
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
    </div>
  );
}

export function TransactionsView() {
  const txs = useApp((s) => s.txs);
  const txState = useApp((s) => s.txState);
  const txError = useApp((s) => s.txError);
  const generating = useApp((s) => s.generating);
  const selectedHash = useApp((s) => s.selectedHash);
  const hasKey = useApp((s) => Boolean(s.info?.address));
  const generate = useApp((s) => s.generateTransaction);
  const select = useApp((s) => s.selectTransaction);
  const reload = useApp((s) => s.loadTransactions);
  const setView = useApp((s) => s.setView);

  const groups = useMemo(() => groupByNonce(txs), [txs]);
  const counts = useMemo(() => countRecords(txs), [txs]);
  const onSelect = useCallback((hash: string) => select(hash), [select]);

  let body;
  if (txState === 'error' && groups.length === 0) {
    body = <ErrorState title="Could not load transactions" error={txError} onRetry={() => void reload()} />;
  } else if ((txState === 'loading' || txState === 'idle') && groups.length === 0) {
    body = <LoadingState text="Loading transactions…" />;
  } else if (groups.length === 0) {
    body = (
      <EmptyState title="No transactions yet" icon="⇄">
        <p>Generate one to watch it travel: signed, broadcast, pending, replaced with a higher fee if it gets stuck, mined, confirmed.</p>
      </EmptyState>
    );
  } else {
    body = (
      <div className="tx-layout">
        <ul className="group-list" aria-label="Transactions by nonce">
          {groups.map((g) => (
            <NonceGroupCard key={g.key} group={g} selectedHash={selectedHash} onSelect={onSelect} />
          ))}
        </ul>
        <div className="detail-column">
          {selectedHash && txs[selectedHash] ? (
            <TxDetail hash={selectedHash} />
          ) : (
            <EmptyState title="Select a transaction" icon="⌁">
              <p>Its timeline and the fee bumps of its nonce appear here.</p>
            </EmptyState>
          )}
        </div>
      </div>
    );
  }

  return (
    <div className="view">
      <header className="view-head">
        <div>
          <h1>Transactions</h1>
          <p className="view-sub">Every transaction the app signed, grouped by nonce. Stuck ones are replaced with a higher fee, automatically.</p>
        </div>
        <div className="view-actions">
          {!hasKey ? (
            <button type="button" className="btn btn-secondary" onClick={() => setView('settings')}>
              Create a signing key
            </button>
          ) : null}
          <button type="button" className="btn btn-primary" onClick={() => void generate()} disabled={generating || !hasKey} data-testid="generate">
            {generating ? <Spinner label="Generating" /> : <PlusIcon />}
            Generate transaction
          </button>
        </div>
      </header>
      <div className="stats" aria-label="Summary">
        <Stat label="Transactions" value={counts.total} tone="neutral" />
        <Stat label="In flight" value={counts.open} tone="warning" />
        <Stat label="Confirmed" value={counts.confirmed} tone="success" />
        <Stat label="Replaced" value={counts.replaced} tone="muted" />
      </div>
      {txState === 'error' && groups.length > 0 ? (
        <p className="inline-error" role="alert">
          {txError?.message}{' '}
          <button type="button" className="link-btn" onClick={() => void reload()}>
            Reload
          </button>
        </p>
      ) : null}
      {body}
    </div>
  );
}
