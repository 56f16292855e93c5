// The network the app shows now (its name and node, which follow a switch) and the one it starts on with the data
// service it talks to. The start values take effect after a restart: the card says which saved ones wait for it and
// offers the restart (switching between served networks is networks-section.tsx).
import { useEffect, useState, type FormEvent } from 'react';
import type { AppSettings, SettingsPatch } from '../../../../shared/desktop-api.js';
import { Spinner } from '../../components/states.js';
import { networkLabel } from '../../lib/network-words.js';
import { useApp } from '../../store/use-app.js';
import { apiErrorToFields, checkNetwork, type FieldErrors } from './field-errors.js';
import { Card, Field, SaveBar, idleSave, type SaveState } from './form-kit.js';
import { useDirty } from './use-dirty.js';

const labels: Record<string, string> = {
  nodeUrl: 'Node URL',
  serviceUrl: 'Data service URL',
  platform: 'Platform',
  network: 'Network',
  clientId: 'Client ID',
  localApi: 'Local API',
};
const keys = ['nodeUrl', 'serviceUrl', 'platform', 'network'] as const;

/** "Node URL and Network apply after a restart." with the Restart button. */
export function PendingRestart({ names }: { names: readonly string[] }) {
  const restart = useApp((s) => s.restart);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (names.length === 0) return null;
  const list = names.map((n) => labels[n] ?? n);
  const text = list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
  return (
    <div className="pending-restart" role="status" data-testid="pending-restart">
      <p>
        <strong>{text}</strong> {list.length === 1 ? 'applies' : 'apply'} after a restart; until then the app keeps using the values it
        started with.
      </p>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          const err = await restart();
          setBusy(false);
          if (err) setError(err.message);
        }}
      >
        {busy ? <Spinner label="Restarting" /> : null}
        Restart now
      </button>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The active network from AppInfo, which the core pushes again after every switch (onNetworkChanged): the saved
 * settings below name the start network only, so without this the card kept saying the first network after a switch.
 */
function ActiveNetwork({ settings }: { settings: AppSettings }) {
  const info = useApp((s) => s.info);
  if (!info) return null;
  const switched = info.platform !== settings.platform || info.network !== settings.network;
  return (
    <div className="network-now" data-testid="active-network" data-network={`${info.platform}/${info.network}`}>
      <dl className="facts facts-wide">
        <div>
          <dt>Shown and signed for now</dt>
          <dd className="mono" data-testid="active-network-name">
            {networkLabel(info)}
          </dd>
        </div>
        <div>
          <dt>Its node</dt>
          <dd className="mono" data-testid="active-node-url">
            {info.nodeUrl}
          </dd>
        </div>
        <div>
          <dt>Its data service</dt>
          <dd className="mono">{info.serviceUrl}</dd>
        </div>
      </dl>
      <h3 className="section-title">
        {switched ? `Starts on ${settings.platform}/${settings.network} (switched since, under Networks)` : 'Starts on'}
      </h3>
    </div>
  );
}

export function NetworkSection({ settings }: { settings: AppSettings }) {
  const save = useApp((s) => s.saveSettings);
  const embedded = useApp((s) => s.info?.mode === 'embedded');
  const [form, setForm] = useState({
    nodeUrl: settings.nodeUrl,
    serviceUrl: settings.serviceUrl,
    platform: settings.platform,
    network: settings.network,
  });
  const [state, setState] = useState<SaveState>(idleSave);
  const [errors, setErrors] = useState<FieldErrors>({});
  const { nodeUrl, serviceUrl, platform, network } = settings;
  useEffect(() => setForm({ nodeUrl, serviceUrl, platform, network }), [nodeUrl, serviceUrl, platform, network]);
  const dirty = keys.some((k) => form[k].trim() !== settings[k]);
  useDirty('the network settings', dirty);
  // Editing a field clears its own error and the last outcome, so a fixed mistake stops being reported.
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [k]: e.target.value }));
    setErrors(({ [k]: _gone, ...rest }) => rest);
    setState(idleSave);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = checkNetwork(form);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      setState({ busy: false, error: { code: 'INVALID_PARAMETER', message: 'Nothing was saved: fix the marked fields.' }, saved: false });
      return;
    }
    // Only what the user changed: saving the embedded chain's ephemeral URLs would pin the next start to dead ports.
    const patch: SettingsPatch = {};
    for (const k of keys) {
      const value = form[k].trim();
      if (value !== settings[k]) patch[k] = value;
    }
    if (Object.keys(patch).length === 0) {
      setState({ busy: false, error: null, saved: true });
      return;
    }
    setState({ busy: true, error: null, saved: false });
    const error = await save(patch);
    if (error) {
      const mapped = apiErrorToFields(error, keys);
      setErrors(mapped.fields);
      setState({
        busy: false,
        error: { code: error.code, message: mapped.form ?? 'Nothing was saved: fix the marked field.' },
        saved: false,
      });
    } else setState({ busy: false, error: null, saved: true });
  };

  const pending = settings.pendingRestart ?? [];
  const input = (k: (typeof keys)[number], hint?: string) => (
    <Field label={labels[k]!} hint={hint} error={errors[k]}>
      {(p) => (
        <input
          {...p}
          className={`input${k.endsWith('Url') ? ' mono' : ''}`}
          name={k}
          value={form[k]}
          spellCheck={false}
          onChange={set(k)}
        />
      )}
    </Field>
  );

  return (
    <Card
      id="settings-network"
      title="Network"
      description={
        embedded
          ? 'The network shown now, and what the app starts on: its own dev chains and data service; change these to use a ' +
            'real network. Switching between served networks is under Networks, at once.'
          : 'The network shown now, and the Ethereum node, data service and network the app starts on. Switching between ' +
            'served networks is under Networks, at once.'
      }
    >
      <ActiveNetwork settings={settings} />
      <form onSubmit={(e) => void submit(e)} className="form" noValidate>
        <div className="form-grid">
          {input('nodeUrl')}
          {input('serviceUrl')}
          {input('platform', 'For example ethereum.')}
          {input('network', 'For example local, mainnet, sepolia.')}
        </div>
        <SaveBar state={state} dirty={dirty} savedText={pending.length > 0 ? '✓ Saved; applies after a restart' : '✓ Saved'} />
      </form>
      <PendingRestart names={pending.filter((n) => n !== 'clientId')} />
    </Card>
  );
}
