// The signing key: only its address, balance and where it is kept are ever shown. A key typed for import is sent once
// and the field is cleared whatever the outcome.
import { useState, type FormEvent } from 'react';
import type { KeyInfo } from '../../../../shared/desktop-api.js';
import { formatEther } from '../../lib/format.js';
import { FormError, Spinner } from '../../components/states.js';
import type { ErrorInfo } from '../../store/api-error.js';
import { useApp } from '../../store/use-app.js';
import { Card, Field } from './form-kit.js';

const storageLabel: Record<KeyInfo['storage'], string> = {
  keychain: 'OS keychain',
  'encrypted-file': 'Encrypted file',
  environment: 'PRIVATE_KEY environment variable',
  memory: 'Memory only (lost on exit)',
};

export function KeySection() {
  const key = useApp((s) => s.keyInfo);
  const keyState = useApp((s) => s.keyState);
  const keyError = useApp((s) => s.keyError);
  const generateKey = useApp((s) => s.generateKey);
  const importKey = useApp((s) => s.importKey);
  const notify = useApp((s) => s.notify);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState<'generate' | 'import' | null>(null);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<ErrorInfo | null>(null);

  const onGenerate = async () => {
    if (key && !confirming) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    setBusy('generate');
    setError(null);
    const err = await generateKey();
    setBusy(null);
    if (err) setError(err);
    else notify('success', 'A new signing key was created.');
  };

  const onImport = async (e: FormEvent) => {
    e.preventDefault();
    const value = secret.trim();
    setSecret(''); // the key leaves the page's state before the request is even answered
    setBusy('import');
    setError(null);
    const err = await importKey(value);
    setBusy(null);
    if (err) setError(err);
    else notify('success', 'The key was imported; only its address is kept here.');
  };

  return (
    <Card id="settings-key" title="Signing key" description="Kept by the app, never shown again after import. Transactions are signed with it.">
      <div className="key-box" data-testid="key-info">
        {keyState === 'loading' && !key ? (
          <Spinner label="Loading key" />
        ) : keyState === 'error' ? (
          <FormError error={keyError} />
        ) : key ? (
          <dl className="facts facts-wide">
            <div>
              <dt>Address</dt>
              <dd className="mono" data-testid="key-address">
                {key.address}
              </dd>
            </div>
            <div>
              <dt>Balance</dt>
              <dd className="mono" data-testid="key-balance">
                {formatEther(key.balanceWei)} ETH
              </dd>
            </div>
            <div>
              <dt>Stored in</dt>
              <dd>{storageLabel[key.storage]}</dd>
            </div>
          </dl>
        ) : (
          <p className="muted">No signing key yet. Generate one or import an existing key.</p>
        )}
      </div>
      <div className="key-actions">
        <button type="button" className={`btn ${confirming ? 'btn-danger' : 'btn-secondary'}`} disabled={busy !== null} onClick={() => void onGenerate()}>
          {busy === 'generate' ? <Spinner label="Generating" /> : null}
          {confirming ? 'Replace the current key' : key ? 'Generate a new key' : 'Generate a key'}
        </button>
        {confirming ? (
          <button type="button" className="btn btn-ghost" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        ) : null}
      </div>
      <form className="form import-form" onSubmit={(e) => void onImport(e)} autoComplete="off">
        <Field label="Import a private key" hint="64 hex digits, with or without 0x. It is stored by the app and never displayed again.">
          {(id, hint) => (
            <div className="input-group">
              <input
                id={id}
                className="input mono"
                type="password"
                name="import-private-key"
                autoComplete="off"
                spellCheck={false}
                value={secret}
                aria-describedby={hint}
                onChange={(e) => setSecret(e.target.value)}
              />
              <button type="submit" className="btn btn-secondary" disabled={busy !== null || secret.trim() === ''}>
                {busy === 'import' ? <Spinner label="Importing" /> : null}
                Import
              </button>
            </div>
          )}
        </Field>
        <FormError error={error} />
      </form>
    </Card>
  );
}
