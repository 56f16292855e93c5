// Access to the data service: paste a client ID, or sign in with e-mail and password to get one. "Connected" is said
// only when the core's tracker link is up with it; the core checks a new client ID against the service before saving.
import { useEffect, useState, type FormEvent } from 'react';
import type { AppSettings } from '../../../../shared/desktop-api.js';
import { useApp } from '../../store/use-app.js';
import { apiErrorToFields } from './field-errors.js';
import { Card, Field, SaveBar, idleSave, type SaveState } from './form-kit.js';
import { PendingRestart } from './network-section.js';
import { useDirty } from './use-dirty.js';

function ConnectionLine({ settings }: { settings: AppSettings }) {
  const tracker = useApp((s) => s.appStatus?.tracker);
  if (!settings.clientId) {
    return (
      <>
        <span className="dot dot-warning" aria-hidden="true" /> No client ID yet
      </>
    );
  }
  if (tracker && tracker.state !== 'connected') {
    return (
      <>
        <span className={`dot dot-${tracker.state === 'connecting' ? 'warning' : 'danger'}`} aria-hidden="true" />{' '}
        {tracker.state === 'connecting'
          ? 'Connecting to the data service…'
          : `Not connected: ${tracker.reason ?? 'the data service cannot be reached.'}`}
      </>
    );
  }
  return (
    <>
      <span className="dot dot-success" aria-hidden="true" /> Connected
      {settings.signedInAs ? (
        <>
          {' '}
          as <strong>{settings.signedInAs}</strong>
        </>
      ) : (
        ' with a client ID'
      )}
    </>
  );
}

/** What the data service says about itself: reachable, how far its token index is behind, the instance's roles. */
function ServiceHealthLine() {
  const health = useApp((s) => s.serviceHealth);
  const load = useApp((s) => s.loadServiceHealth);
  useEffect(() => void load(), [load]);
  if (!health) return null;
  if (!health.reachable) return <p className="hint service-health">Data service: {health.reason}</p>;
  const lag =
    health.indexLagBlocks === null
      ? null
      : health.indexLagBlocks === 0
        ? 'tokens indexed up to date'
        : `token index ${health.indexLagBlocks} blocks behind`;
  return (
    <p className="hint service-health">
      Data service at {health.url}: answering{lag ? `, ${lag}` : ''}
      {health.roles.length > 0 ? ` (this instance: ${health.roles.join(', ')})` : ''}.
    </p>
  );
}

export function ServiceSection({ settings }: { settings: AppSettings }) {
  const save = useApp((s) => s.saveSettings);
  const signIn = useApp((s) => s.signIn);
  const [mode, setMode] = useState<'client-id' | 'sign-in'>('client-id');
  const [clientId, setClientId] = useState(settings.clientId ?? '');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [state, setState] = useState<SaveState>(idleSave);
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  // A sign-in replaces the client ID; the field shows the new one.
  useEffect(() => setClientId(settings.clientId ?? ''), [settings.clientId]);
  useDirty('the client ID', mode === 'client-id' && (clientId.trim() || null) !== settings.clientId);

  const submitClientId = async (e: FormEvent) => {
    e.preventDefault();
    const next = clientId.trim() || null;
    if (next === settings.clientId) {
      setState({ busy: false, error: null, saved: true });
      return;
    }
    setState({ busy: true, error: null, saved: false });
    setFieldError(undefined);
    const error = await save({ clientId: next });
    if (error) {
      // The core asked the service: an unknown client ID is refused with a sentence that goes beside the field.
      const mapped = apiErrorToFields(error, ['clientId']);
      setFieldError(mapped.fields.clientId ? error.message : (mapped.form ?? undefined));
      setState({ busy: false, error: { code: error.code, message: 'The client ID was not saved.' }, saved: false });
    } else setState({ busy: false, error: null, saved: true });
  };
  const submitSignIn = async (e: FormEvent) => {
    e.preventDefault();
    setState({ busy: true, error: null, saved: false });
    const error = await signIn({ email: email.trim(), password });
    setPassword('');
    setState({ busy: false, error, saved: !error });
    if (!error) setMode('client-id');
  };

  return (
    <Card
      id="settings-service"
      title="Data service access"
      description="The client ID the app uses for token listings and transaction tracking."
    >
      <div className="status-line" data-testid="service-status">
        <ConnectionLine settings={settings} />
      </div>
      <ServiceHealthLine />
      <div className="tabs" role="tablist" aria-label="How to connect">
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'client-id'}
          className={`tab${mode === 'client-id' ? ' is-active' : ''}`}
          onClick={() => setMode('client-id')}
        >
          Client ID
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'sign-in'}
          className={`tab${mode === 'sign-in' ? ' is-active' : ''}`}
          onClick={() => setMode('sign-in')}
        >
          Sign in
        </button>
      </div>
      {mode === 'client-id' ? (
        <form onSubmit={(e) => void submitClientId(e)} className="form" role="tabpanel">
          <Field label="Client ID" hint="From `txdesk account:describe`, or sign in instead." error={fieldError}>
            {(p) => (
              <input
                {...p}
                className="input mono"
                name="clientId"
                value={clientId}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => {
                  setClientId(e.target.value);
                  setFieldError(undefined);
                  setState(idleSave);
                }}
              />
            )}
          </Field>
          <SaveBar
            state={state}
            savedText={settings.pendingRestart?.includes('clientId') ? '✓ Saved; applies after a restart' : '✓ Saved'}
          />
        </form>
      ) : (
        <form onSubmit={(e) => void submitSignIn(e)} className="form" role="tabpanel">
          <div className="form-grid">
            <Field label="E-mail">
              {(p) => (
                <input
                  {...p}
                  className="input"
                  type="email"
                  name="email"
                  required
                  value={email}
                  autoComplete="username"
                  onChange={(e) => setEmail(e.target.value)}
                />
              )}
            </Field>
            <Field label="Password">
              {(p) => (
                <input
                  {...p}
                  className="input"
                  type="password"
                  name="password"
                  required
                  value={password}
                  autoComplete="current-password"
                  onChange={(e) => setPassword(e.target.value)}
                />
              )}
            </Field>
          </div>
          <SaveBar state={state} label="Sign in" />
        </form>
      )}
      {settings.pendingRestart?.includes('clientId') ? <PendingRestart names={['clientId']} /> : null}
    </Card>
  );
}
