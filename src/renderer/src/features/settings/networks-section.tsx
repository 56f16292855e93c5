// Settings → Networks: every network the data service serves, with its chain, state and whether it is the one shown;
// one click switches (no restart). A network the app has no node for says so; on a configured network its node URL
// is set here.
import { useEffect, useState, type FormEvent } from 'react';
import type { NetworkInfo } from '../../../../shared/desktop-api.js';
import { ErrorState, LoadingState, Spinner } from '../../components/states.js';
import { networkLabel, stateTone, stateWords, watchedNote } from '../../lib/network-words.js';
import { useApp } from '../../store/use-app.js';
import { Card } from './form-kit.js';

const keyOf = (n: { platform: string; network: string }) => `${n.platform}/${n.network}`;

/** A node URL for a network other than the start one (configured mode): saved per network, used on the next switch. */
function NodeUrlForm({ row }: { row: NetworkInfo }) {
  const save = useApp((s) => s.saveSettings);
  const reload = useApp((s) => s.loadNetworks);
  const [url, setUrl] = useState(row.nodeUrl ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const err = await save({ nodeUrls: { [keyOf(row)]: url.trim() === '' ? null : url.trim() } });
    setBusy(false);
    if (err) setError(err.message);
    else void reload();
  };
  return (
    <form className="network-node" onSubmit={(e) => void submit(e)} noValidate>
      <label className="sr-only" htmlFor={`node-${keyOf(row)}`}>
        Node URL of {keyOf(row)}
      </label>
      <input
        id={`node-${keyOf(row)}`}
        className="input mono"
        placeholder="https://… node of this network"
        value={url}
        spellCheck={false}
        onChange={(e) => setUrl(e.target.value)}
      />
      <button type="submit" className="btn btn-secondary btn-small" disabled={busy}>
        {busy ? <Spinner label="Saving" /> : null}
        Save
      </button>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

function NetworkRow({ row, configured }: { row: NetworkInfo; configured: boolean }) {
  const switchNetwork = useApp((s) => s.switchNetwork);
  const savedNode = useApp((s) => Boolean(s.settings?.nodeUrls?.[keyOf(row)]));
  // The start network's node is the Network card's; others are set here (the dev chains bring their own).
  const editable = configured && !row.active && (row.nodeUrl === null || savedNode);
  const switchingTo = useApp((s) => s.switchingTo);
  const [error, setError] = useState<string | null>(null);
  const busy = switchingTo !== null && keyOf(switchingTo) === keyOf(row);
  const note = watchedNote(row);
  return (
    <li className={`network-row${row.active ? ' is-active' : ''}`} data-network={keyOf(row)} data-active={row.active}>
      <div className="network-main">
        <span className="network-name mono">{networkLabel({ ...row, chainId: null })}</span>
        <span className="network-meta">
          {row.chainId !== null ? <span className="muted">chain {row.chainId}</span> : null}
          <span className={`badge tone-${stateTone[row.state]}`} data-state={row.state}>
            <span className="badge-dot" aria-hidden="true" />
            <span>{stateWords[row.state]}</span>
          </span>
          {row.isDefault ? <span className="muted">service default</span> : null}
        </span>
        {note ? <span className="network-note">{note}</span> : null}
        {row.unavailable ? <span className="network-note muted">{row.unavailable}</span> : null}
        {error ? (
          <span className="field-error" role="alert">
            {error}
          </span>
        ) : null}
      </div>
      <div className="network-action">
        {row.active ? (
          <span className="active-pill" aria-label={`${keyOf(row)} is active`}>
            Active
          </span>
        ) : (
          <button
            type="button"
            className="btn btn-secondary btn-small"
            disabled={row.unavailable !== null || switchingTo !== null}
            aria-label={`Switch to ${keyOf(row)}`}
            onClick={async () => {
              setError(null);
              const err = await switchNetwork(row);
              if (err) setError(err.message);
            }}
          >
            {busy ? <Spinner label="Switching" /> : null}
            Switch
          </button>
        )}
      </div>
      {editable ? <NodeUrlForm row={row} /> : null}
    </li>
  );
}

export function NetworksSection() {
  const networks = useApp((s) => s.networks);
  const state = useApp((s) => s.networksState);
  const error = useApp((s) => s.networksError);
  const load = useApp((s) => s.loadNetworks);
  const configured = useApp((s) => s.info?.mode === 'configured');
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <Card
      id="settings-networks"
      title="Networks"
      description={
        'The networks the data service serves. Switching takes effect at once: the dashboard, the token browser, /api/tx and /rpc ' +
        'follow; transactions still open on the network you leave keep being watched and settled.'
      }
    >
      {!networks && state === 'error' ? (
        <ErrorState title="Could not list the networks" error={error} onRetry={() => void load()} />
      ) : !networks ? (
        <LoadingState text="Listing networks…" />
      ) : (
        <ul className="network-list" aria-label="Networks">
          {networks.map((n) => (
            <NetworkRow key={keyOf(n)} row={n} configured={configured} />
          ))}
        </ul>
      )}
    </Card>
  );
}
