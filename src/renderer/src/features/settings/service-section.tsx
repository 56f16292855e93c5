// Access to the data service: paste a client ID, or sign in with e-mail and password to get one.
import { useEffect, useState, type FormEvent } from 'react';
import type { AppSettings } from '../../../../shared/desktop-api.js';
import { useApp } from '../../store/use-app.js';
import { Card, Field, SaveBar, idleSave, type SaveState } from './form-kit.js';

export function ServiceSection({ settings }: { settings: AppSettings }) {
  const save = useApp((s) => s.saveSettings);
  const signIn = useApp((s) => s.signIn);
  const [mode, setMode] = useState<'client-id' | 'sign-in'>('client-id');
  const [clientId, setClientId] = useState(settings.clientId ?? '');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [state, setState] = useState<SaveState>(idleSave);
  // A sign-in replaces the client ID; the field shows the new one.
  useEffect(() => setClientId(settings.clientId ?? ''), [settings.clientId]);

  const submitClientId = async (e: FormEvent) => {
    e.preventDefault();
    const next = clientId.trim() || null;
    if (next === settings.clientId) {
      setState({ busy: false, error: null, saved: true });
      return;
    }
    setState({ busy: true, error: null, saved: false });
    const error = await save({ clientId: next });
    setState({ busy: false, error, saved: !error });
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
    <Card id="settings-service" title="Data service access" description="The client ID the app uses for token listings and transaction tracking.">
      <div className="status-line">
        {settings.clientId ? (
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
        ) : (
          <>
            <span className="dot dot-warning" aria-hidden="true" /> No client ID yet
          </>
        )}
      </div>
      <div className="tabs" role="tablist" aria-label="How to connect">
        <button type="button" role="tab" aria-selected={mode === 'client-id'} className={`tab${mode === 'client-id' ? ' is-active' : ''}`} onClick={() => setMode('client-id')}>
          Client ID
        </button>
        <button type="button" role="tab" aria-selected={mode === 'sign-in'} className={`tab${mode === 'sign-in' ? ' is-active' : ''}`} onClick={() => setMode('sign-in')}>
          Sign in
        </button>
      </div>
      {mode === 'client-id' ? (
        <form onSubmit={(e) => void submitClientId(e)} className="form" role="tabpanel">
          <Field label="Client ID" hint="From `txdesk account:describe`, or sign in instead.">
            {(id, hint) => (
              <input id={id} className="input mono" name="clientId" value={clientId} spellCheck={false} autoComplete="off" aria-describedby={hint} onChange={(e) => setClientId(e.target.value)} />
            )}
          </Field>
          <SaveBar state={state} />
        </form>
      ) : (
        <form onSubmit={(e) => void submitSignIn(e)} className="form" role="tabpanel">
          <div className="form-grid">
            <Field label="E-mail">
              {(id) => <input id={id} className="input" type="email" name="email" required value={email} autoComplete="username" onChange={(e) => setEmail(e.target.value)} />}
            </Field>
            <Field label="Password">
              {(id) => (
                <input id={id} className="input" type="password" name="password" required value={password} autoComplete="current-password" onChange={(e) => setPassword(e.target.value)} />
              )}
            </Field>
          </div>
          <SaveBar state={state} label="Sign in" />
        </form>
      )}
    </Card>
  );
}
