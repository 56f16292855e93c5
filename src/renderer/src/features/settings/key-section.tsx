// The signing key: only its address, balance and where it is kept are ever shown. A key typed for import is sent once
// and the field is cleared whatever the outcome. Over an existing key, generate and import go through a confirmation
// that names what is lost and offers the export first.
import { useState, type FormEvent } from 'react';
import type { KeyInfo } from '../../../../shared/desktop-api.js';
import { formatEthAmount } from '../../lib/format.js';
import { FullAddress } from '../../components/hex.js';
import { FormError, Spinner } from '../../components/states.js';
import type { ErrorInfo } from '../../transport/api-error.js';
import { useApp } from '../../store/use-app.js';
import { Card, Field } from './form-kit.js';
import { KeyReplaceDialog } from './key-replace-dialog.js';

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
  const [confirming, setConfirming] = useState<'generate' | 'import' | null>(null);
  const [busy, setBusy] = useState<'generate' | 'import' | null>(null);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<ErrorInfo | null>(null);

  const generate = async (replace: boolean) => {
    setBusy('generate');
    setError(null);
    const err = await generateKey(replace);
    setBusy(null);
    setConfirming(null);
    if (err) setError(err);
    else notify('success', 'A new signing key was created.');
  };

  const doImport = async (replace: boolean) => {
    const value = secret.trim();
    setSecret(''); // the key leaves the page's state before the request is even answered
    setBusy('import');
    setError(null);
    const err = await importKey(value, replace);
    setBusy(null);
    setConfirming(null);
    if (err) setError(err);
    else notify('success', 'The key was imported; only its address is kept here.');
  };

  const onGenerate = () => (key ? setConfirming('generate') : void generate(false));
  const onImport = (e: FormEvent) => {
    e.preventDefault();
    if (key) setConfirming('import');
    else void doImport(false);
  };

  return (
    <Card
      id="settings-key"
      title="Signing key"
      description="Kept by the app, never shown again after import. Transactions are signed with it."
    >
      <div className="key-box" data-testid="key-info">
        {keyState === 'loading' && !key ? (
          <Spinner label="Loading key" />
        ) : keyState === 'error' ? (
          <FormError error={keyError} />
        ) : key ? (
          <dl className="facts facts-wide">
            <div>
              <dt>Address</dt>
              <dd>
                <FullAddress value={key.address} testId="key-address" />
              </dd>
            </div>
            <div>
              <dt>Balance</dt>
              <dd className="mono" data-testid="key-balance">
                {formatEthAmount(key.balanceWei)}
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
        <button type="button" className="btn btn-secondary" disabled={busy !== null} onClick={onGenerate}>
          {busy === 'generate' ? <Spinner label="Generating" /> : null}
          {key ? 'Generate a new key…' : 'Generate a key'}
        </button>
      </div>
      <form className="form import-form" onSubmit={onImport} autoComplete="off">
        <Field label="Import a private key" hint="64 hex digits, with or without 0x. It is stored by the app and never displayed again.">
          {(p) => (
            <div className="input-group">
              <input
                {...p}
                className="input mono"
                type="password"
                name="import-private-key"
                autoComplete="off"
                spellCheck={false}
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
              />
              <button type="submit" className="btn btn-secondary" disabled={busy !== null || secret.trim() === ''}>
                {busy === 'import' ? <Spinner label="Importing" /> : null}
                {key ? 'Import…' : 'Import'}
              </button>
            </div>
          )}
        </Field>
        <FormError error={error} />
      </form>
      {confirming && key ? (
        <KeyReplaceDialog
          current={key}
          action={confirming}
          busy={busy !== null}
          onCancel={() => {
            setConfirming(null);
            setSecret('');
          }}
          onConfirm={() => void (confirming === 'generate' ? generate(true) : doImport(true))}
        />
      ) : null}
    </Card>
  );
}
