// The network the app signs for and the data service it talks to.
import { useEffect, useState, type FormEvent } from 'react';
import type { AppSettings, SettingsPatch } from '../../../../shared/desktop-api.js';
import { useApp } from '../../store/use-app.js';
import { Card, Field, SaveBar, idleSave, type SaveState } from './form-kit.js';

export function NetworkSection({ settings }: { settings: AppSettings }) {
  const save = useApp((s) => s.saveSettings);
  const embedded = useApp((s) => s.info?.mode === 'embedded');
  const [form, setForm] = useState({ nodeUrl: settings.nodeUrl, serviceUrl: settings.serviceUrl, platform: settings.platform, network: settings.network });
  const [state, setState] = useState<SaveState>(idleSave);
  const { nodeUrl, serviceUrl, platform, network } = settings;
  useEffect(() => setForm({ nodeUrl, serviceUrl, platform, network }), [nodeUrl, serviceUrl, platform, network]);
  // Editing again clears the last outcome, so a fixed mistake stops being reported.
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [k]: e.target.value }));
    setState(idleSave);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // Only what the user changed: saving the embedded chain's ephemeral URLs would pin the next start to dead ports.
    const patch: SettingsPatch = {};
    for (const k of ['nodeUrl', 'serviceUrl', 'platform', 'network'] as const) {
      const value = form[k].trim();
      if (value !== settings[k]) patch[k] = value;
    }
    if (Object.keys(patch).length === 0) {
      setState({ busy: false, error: null, saved: true });
      return;
    }
    setState({ busy: true, error: null, saved: false });
    const error = await save(patch);
    setState({ busy: false, error, saved: !error });
  };

  return (
    <Card
      id="settings-network"
      title="Network"
      description={embedded ? 'The app runs its own dev chain and data service; change these to use a real network.' : 'The Ethereum node and data service the app uses.'}
    >
      <form onSubmit={(e) => void submit(e)} className="form">
        <div className="form-grid">
          <Field label="Node URL">{(id) => <input id={id} className="input mono" name="nodeUrl" value={form.nodeUrl} spellCheck={false} onChange={set('nodeUrl')} />}</Field>
          <Field label="Data service URL">
            {(id) => <input id={id} className="input mono" name="serviceUrl" value={form.serviceUrl} spellCheck={false} onChange={set('serviceUrl')} />}
          </Field>
          <Field label="Platform" hint="For example ethereum.">
            {(id, hint) => <input id={id} className="input" name="platform" value={form.platform} aria-describedby={hint} onChange={set('platform')} />}
          </Field>
          <Field label="Network" hint="For example local, mainnet, sepolia.">
            {(id, hint) => <input id={id} className="input" name="network" value={form.network} aria-describedby={hint} onChange={set('network')} />}
          </Field>
        </div>
        <SaveBar state={state} />
      </form>
    </Card>
  );
}
