// The left rail: product mark, navigation between the screens, the dev chain panel and the signing account.
import { DevchainPanel } from '../features/devchain/devchain-panel.js';
import { formatEthAmount } from '../lib/format.js';
import type { View } from '../store/slices/app-slice.js';
import { useApp } from '../store/use-app.js';
import { Hex } from './hex.js';
import { RelTime } from './rel-time.js';
import { seedGradient } from '../lib/seed-art.js';
import type { LinkStatus } from '../../../shared/desktop-api.js';

const nav: { view: View; label: string; icon: string }[] = [
  { view: 'transactions', label: 'Transactions', icon: '⇄' },
  { view: 'tokens', label: 'Tokens', icon: '◈' },
  { view: 'settings', label: 'Settings', icon: '⚙' },
];

function AccountChip() {
  const key = useApp((s) => s.keyInfo);
  const info = useApp((s) => s.info);
  const setView = useApp((s) => s.setView);
  const address = key?.address ?? info?.address ?? null;
  return (
    <button type="button" className="account-chip" onClick={() => setView('settings')}>
      <span className="avatar" aria-hidden="true" style={address ? { background: seedGradient(address) } : undefined} />
      <span className="account-text">
        <span className="account-label">{address ? 'Signing account' : 'No signing key'}</span>
        {address ? <Hex value={address} /> : <span className="account-hint">Create one in Settings</span>}
        {key ? <span className="account-balance">{formatEthAmount(key.balanceWei)}</span> : null}
        <span className="sr-only">, open the settings</span>
      </span>
    </button>
  );
}

const linkWord: Record<LinkStatus['state'], string> = { connecting: 'connecting…', connected: 'connected', unreachable: 'unreachable' };

/** Is the page live? The event stream (browser) and the core's tracker and node links, each with a dot. */
function LiveStatus() {
  const stream = useApp((s) => s.stream);
  const status = useApp((s) => s.appStatus);
  const streamTone = stream === 'down' ? 'danger' : stream === 'connecting' ? 'warning' : 'success';
  const streamText = stream === 'down' ? 'Reconnecting…' : stream === 'connecting' ? 'Connecting…' : 'Live';
  const link = (name: string, l: LinkStatus | undefined) =>
    l ? (
      <li className="live-row" data-link={name.toLowerCase()} data-state={l.state} title={l.reason ?? undefined}>
        <span
          className={`dot dot-${l.state === 'connected' ? 'success' : l.state === 'connecting' ? 'warning' : 'danger'}`}
          aria-hidden="true"
        />
        <span>
          {name} {linkWord[l.state]}
          {l.state !== 'connected' ? (
            <>
              {' '}
              <RelTime iso={l.since} prefix="for" suffix="" className="muted" />
            </>
          ) : null}
          {l.reason ? <span className="live-reason">{l.reason}</span> : null}
        </span>
      </li>
    ) : null;
  return (
    <section className="live-status" aria-label="Connection">
      <ul>
        <li className="live-row" data-testid="stream-state" data-state={stream}>
          <span className={`dot dot-${streamTone}`} aria-hidden="true" />
          <span>{stream === 'ipc' ? 'Live' : streamText}</span>
        </li>
        {link('Tracker', status?.tracker)}
        {link('Node', status?.node)}
      </ul>
    </section>
  );
}

export function Sidebar() {
  const view = useApp((s) => s.view);
  const setView = useApp((s) => s.setView);
  const info = useApp((s) => s.info);
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          <svg viewBox="0 0 512 512" width="18" height="18">
            <g fill="none" stroke="currentColor" strokeWidth="44" strokeLinecap="round" strokeLinejoin="round">
              <path d="M100 190h280l-70-70" />
              <path d="M412 322H132l70 70" />
            </g>
          </svg>
        </span>
        <div>
          <div className="brand-name">txdesk</div>
          <div className="brand-sub">
            {info ? (info.mode === 'embedded' ? `Local dev chain · ${info.chainId}` : `${info.platform} · ${info.network}`) : 'Connecting…'}
          </div>
        </div>
      </div>
      <nav aria-label="Main">
        <ul className="nav">
          {nav.map((item) => (
            <li key={item.view}>
              <button
                type="button"
                className={`nav-item${view === item.view ? ' is-active' : ''}`}
                aria-current={view === item.view ? 'page' : undefined}
                onClick={() => setView(item.view)}
              >
                <span className="nav-icon" aria-hidden="true">
                  {item.icon}
                </span>
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <div className="sidebar-fill" />
      <LiveStatus />
      <DevchainPanel />
      <AccountChip />
    </aside>
  );
}
