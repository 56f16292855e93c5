// The transaction dashboard: Send (the form in a dialog) and Generate, live counts, replacement chains grouped by nonce,
// and the selected transaction.
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { EmptyState, ErrorState, LoadingState, Spinner } from '../../components/states.js';
import { countGroups, groupByNonce, type HistoryMap } from '../../store/tx-logic.js';
import { useApp } from '../../store/use-app.js';
import { NonceGroupCard } from './nonce-group-card.js';
import { TxDetail } from './tx-detail.js';
import { SendDialog } from '../send/send-dialog.js';
import { NetworkBadge } from '../../components/network-badge.js';

function PlusIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" className="icon">
      <path d="M7 1.5v11M1.5 7h11" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

function SendIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" className="icon">
      <path d="M2 7h9.5M7.5 3 11.5 7l-4 4" stroke="currentColor" strokeWidth="2" fill="none" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

function Stat({ label, value, tone, hint }: { label: string; value: number; tone: string; hint: string }) {
  return (
    <div className={`stat tone-${tone}${value === 0 ? ' is-zero' : ''}`} title={hint}>
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
    </div>
  );
}

/** Arrow keys, Home and End move between the rows of every nonce; Tab leaves the list (one stop for all rows); C copies the row's hash. */
function moveFocus(e: KeyboardEvent<HTMLButtonElement>) {
  if (e.key === 'c' && !e.ctrlKey && !e.metaKey && !e.altKey) {
    e.currentTarget.closest('.attempt-item')?.querySelector<HTMLButtonElement>('.copy-btn')?.click();
    return;
  }
  const keys = ['ArrowDown', 'ArrowUp', 'Home', 'End'];
  if (!keys.includes(e.key)) return;
  const list = e.currentTarget.closest('.group-list');
  if (!list) return;
  const rows = [...list.querySelectorAll<HTMLButtonElement>('.attempt-row')];
  const i = rows.indexOf(e.currentTarget);
  const next =
    e.key === 'Home'
      ? 0
      : e.key === 'End'
        ? rows.length - 1
        : e.key === 'ArrowDown'
          ? Math.min(rows.length - 1, i + 1)
          : Math.max(0, i - 1);
  e.preventDefault();
  rows[next]?.focus();
}

/** Below this width the detail sits under the list, so selecting a row brings it into view. */
const narrow = () => typeof window !== 'undefined' && window.matchMedia('(max-width: 1240px)').matches;

export function TransactionsView() {
  const txs = useApp((s) => s.txs);
  const txState = useApp((s) => s.txState);
  const txError = useApp((s) => s.txError);
  const generating = useApp((s) => s.generating);
  const selectedHash = useApp((s) => s.selectedHash);
  const hasKey = useApp((s) => Boolean(s.info?.address));
  const generate = useApp((s) => s.sendTransaction);
  const select = useApp((s) => s.selectTransaction);
  const reload = useApp((s) => s.loadTransactions);
  const setView = useApp((s) => s.setView);
  const details = useApp((s) => s.details);
  const [sendOpen, setSendOpen] = useState(false);

  const histories = useMemo<HistoryMap>(
    () => Object.fromEntries(Object.entries(details).map(([h, d]) => [h, d.record?.history])),
    [details],
  );
  const groups = useMemo(() => groupByNonce(txs, histories), [txs, histories]);
  const counts = useMemo(() => countGroups(groups), [groups]);
  const detailRef = useRef<HTMLDivElement>(null);
  const [focusHash, setFocusHash] = useState<string | null>(null);
  const scrollOnSelect = useRef(false);
  const onSelect = useCallback(
    (hash: string) => {
      scrollOnSelect.current = true;
      select(hash);
    },
    [select],
  );
  // The detail is where the eye should go after a click: side by side it is in view; stacked, it is brought there.
  useEffect(() => {
    if (!scrollOnSelect.current || !selectedHash) return;
    scrollOnSelect.current = false;
    const el = detailRef.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top;
    if (narrow() || top < 0 || top > window.innerHeight - 120) el.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [selectedHash]);
  const allHashes = groups.flatMap((g) => g.attempts.map((a) => a.transactionHash));
  const tabbableHash =
    focusHash && allHashes.includes(focusHash)
      ? focusHash
      : selectedHash && allHashes.includes(selectedHash)
        ? selectedHash
        : (allHashes[0] ?? null);

  let body;
  if (txState === 'error' && groups.length === 0) {
    body = <ErrorState title="Could not load transactions" error={txError} onRetry={() => void reload()} />;
  } else if ((txState === 'loading' || txState === 'idle') && groups.length === 0) {
    body = <LoadingState text="Loading transactions…" />;
  } else if (groups.length === 0) {
    body = (
      <EmptyState title="No transactions yet" icon="⇄">
        <p>
          Send ETH, or generate a 0 ETH transfer to yourself, to watch it travel: Sending, Waiting, Stuck — replacing when it needs a higher
          fee, Mined, Confirmed.
        </p>
      </EmptyState>
    );
  } else {
    body = (
      <div className="tx-layout">
        <ul className="group-list" aria-label="Transactions by nonce">
          {groups.map((g) => (
            <NonceGroupCard
              key={g.key}
              group={g}
              selectedHash={selectedHash}
              tabbableHash={tabbableHash}
              onSelect={onSelect}
              onRowFocus={setFocusHash}
              onRowKey={moveFocus}
            />
          ))}
        </ul>
        <div className="detail-column" ref={detailRef}>
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
          <div className="view-title">
            <h1>Transactions</h1>
            <NetworkBadge />
          </div>
          <p className="view-sub">
            Every transaction the app signed, one card per nonce. Stuck ones are replaced with a higher fee automatically; when the app
            cannot, the card says “Stuck — needs you” and what to do.
          </p>
        </div>
        <div className="view-actions">
          {!hasKey ? (
            <button type="button" className="btn btn-secondary" onClick={() => setView('settings')}>
              Create a signing key
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => void generate()}
            disabled={generating || !hasKey}
            data-testid="generate"
            title="A 0 ETH transfer to yourself, to watch the app get a transaction mined"
          >
            {generating ? <Spinner label="Generating" /> : <PlusIcon />}
            Generate transaction
          </button>
          <button type="button" className="btn btn-primary" onClick={() => setSendOpen(true)} disabled={!hasKey} data-testid="send">
            <SendIcon />
            Send
          </button>
        </div>
      </header>
      <div className="stats" aria-label="Summary">
        <Stat
          label="Transactions"
          value={counts.transactions}
          tone="neutral"
          hint="Nonces: one per transaction you generated, whatever its replacements."
        />
        <Stat
          label="Attempts"
          value={counts.attempts}
          tone="neutral"
          hint="Signed transactions: originals, replacements, speed-ups and cancels."
        />
        <Stat label="Open" value={counts.open} tone="warning" hint="Not mined yet: Sending, Waiting or Stuck." />
        <Stat label="Needs you" value={counts.needsYou} tone="danger" hint="Stuck, and the app will not replace them on its own." />
        <Stat label="Confirmed" value={counts.confirmed} tone="success" hint="Confirmed or cancelled: final." />
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
      {sendOpen ? <SendDialog onClose={() => setSendOpen(false)} /> : null}
    </div>
  );
}
