// Which network a screen shows, in its header ("ethereum/local-2 · chain 31338", so two chains are never confused),
// and the switcher it opens: the networks the data service serves, each one click away (no restart), with a way to
// Settings › Networks for node URLs and more.
import { useEffect, useId, useRef, useState } from 'react';
import type { NetworkInfo } from '../../../shared/desktop-api.js';
import { networkLabel, stateTone, stateWords } from '../lib/network-words.js';
import { useApp } from '../store/use-app.js';
import { Spinner } from './states.js';

const keyOf = (n: { platform: string; network: string }) => `${n.platform}/${n.network}`;

function MenuRow({ row, onSwitched }: { row: NetworkInfo; onSwitched: () => void }) {
  const switchNetwork = useApp((s) => s.switchNetwork);
  const switchingTo = useApp((s) => s.switchingTo);
  const [error, setError] = useState<string | null>(null);
  const busy = switchingTo !== null && keyOf(switchingTo) === keyOf(row);
  return (
    <li className={`network-menu-row${row.active ? ' is-active' : ''}`} data-network={keyOf(row)}>
      <span className="network-menu-name">
        <span className="mono">{networkLabel(row)}</span>
        <span className={`badge tone-${stateTone[row.state]}`} data-state={row.state}>
          <span className="badge-dot" aria-hidden="true" />
          <span>{stateWords[row.state]}</span>
        </span>
      </span>
      {row.active ? (
        <span className="active-pill">Shown</span>
      ) : (
        <button
          type="button"
          className="btn btn-secondary btn-small"
          disabled={row.unavailable !== null || switchingTo !== null}
          title={row.unavailable ?? undefined}
          aria-label={`Switch to ${keyOf(row)}`}
          onClick={async () => {
            setError(null);
            const err = await switchNetwork(row);
            if (err) setError(err.message);
            else onSwitched();
          }}
        >
          {busy ? <Spinner label="Switching" /> : null}
          Switch
        </button>
      )}
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </li>
  );
}

export function NetworkBadge() {
  const info = useApp((s) => s.info);
  const networks = useApp((s) => s.networks);
  const networksState = useApp((s) => s.networksState);
  const loadNetworks = useApp((s) => s.loadNetworks);
  const setView = useApp((s) => s.setView);
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const chipRef = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const hintId = useId();

  // The list may have changed since Settings last read it (a network came up, another window switched).
  useEffect(() => {
    if (open) void loadNetworks();
  }, [open, loadNetworks]);
  // A click elsewhere closes the menu; Escape closes it and gives the focus back to the chip.
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (rootRef.current && !rootRef.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      chipRef.current?.focus();
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  if (!info) return null;
  const toSettings = () => {
    setOpen(false);
    if (!setView('settings')) return;
    // After the settings screen renders: bring its Networks card into view.
    setTimeout(() => document.getElementById('settings-networks')?.scrollIntoView({ block: 'start' }), 0);
  };
  return (
    <div className="network-switcher" ref={rootRef}>
      <button
        ref={chipRef}
        type="button"
        className="network-badge"
        data-testid="network-badge"
        data-chain-id={info.chainId}
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-describedby={hintId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="dot dot-success" aria-hidden="true" />
        {networkLabel(info)}
        <svg className="network-caret" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true">
          <path d="M2 3.5 5 6.5 8 3.5" stroke="currentColor" strokeWidth="1.6" fill="none" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </button>
      <span id={hintId} className="sr-only">
        The network this screen shows; opens the network switcher.
      </span>
      {open ? (
        <div className="network-menu" id={menuId} role="group" aria-label="Switch network" data-testid="network-menu">
          <p className="network-menu-title">Show and sign for</p>
          {networks ? (
            <ul className="network-menu-list">
              {networks.map((n) => (
                <MenuRow key={keyOf(n)} row={n} onSwitched={() => setOpen(false)} />
              ))}
            </ul>
          ) : networksState === 'error' ? (
            <p className="field-error">The networks could not be listed; see Settings › Networks.</p>
          ) : (
            <Spinner label="Listing networks" />
          )}
          <p className="hint">
            Each network keeps its own transactions, and each dev chain its own congestion; open nonces on the one you leave still settle.
          </p>
          <button type="button" className="link-btn" onClick={toSettings}>
            Settings › Networks
          </button>
        </div>
      ) : null}
    </div>
  );
}
