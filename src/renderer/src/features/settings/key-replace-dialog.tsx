// Before a new key replaces the current one: what is being replaced (address, balance, open nonces, where it is kept),
// a way to export it first as a passphrase-encrypted keystore file, and an explicit acknowledgement.
import { useId, useMemo, useState } from 'react';
import type { KeyInfo } from '../../../../shared/desktop-api.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { FullAddress } from '../../components/hex.js';
import { Spinner } from '../../components/states.js';
import { formatEthAmount } from '../../lib/format.js';
import { groupByNonce } from '../../store/tx-logic.js';
import { useApp } from '../../store/use-app.js';

/** Saves text as a file through the browser's download (no file-system access needed, in Electron or a browser). */
function download(fileName: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function KeyReplaceDialog({
  current,
  action,
  busy,
  onConfirm,
  onCancel,
}: {
  current: KeyInfo;
  action: 'generate' | 'import';
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const txs = useApp((s) => s.txs);
  const exportKey = useApp((s) => s.exportKey);
  const open = useMemo(
    () => groupByNonce(txs).filter((g) => g.state.open && g.from.toLowerCase() === current.address.toLowerCase()),
    [txs, current.address],
  );
  const [passphrase, setPassphrase] = useState('');
  const [exporting, setExporting] = useState(false);
  const [exported, setExported] = useState<string | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const [accepted, setAccepted] = useState(false);
  const ids = { pass: useId(), err: useId(), ack: useId() };
  const hasFunds = BigInt(current.balanceWei || '0') > 0n;

  const onExport = async () => {
    if (passphrase.length < 8) {
      setExportError('Choose a passphrase of at least 8 characters; you need it to open the file.');
      return;
    }
    setExporting(true);
    setExportError(null);
    const r = await exportKey(passphrase);
    setExporting(false);
    if ('keystore' in r) {
      download(r.fileName, r.keystore);
      setExported(r.fileName);
      setPassphrase('');
    } else setExportError(r.message);
  };

  return (
    <ConfirmDialog
      title="Replace the signing key?"
      confirmLabel={action === 'generate' ? 'Replace with a new key' : 'Replace with the imported key'}
      tone="danger"
      busy={busy}
      confirmDisabled={!exported && !accepted}
      onConfirm={onConfirm}
      onCancel={onCancel}
      testId="key-replace-dialog"
    >
      <p>
        The app will sign with {action === 'generate' ? 'a newly generated key' : 'the key you entered'} instead. Unless you have a copy,
        the current key and what it holds are lost:
      </p>
      <dl className="facts facts-wide replace-facts">
        <div>
          <dt>Address being replaced</dt>
          <dd>
            <FullAddress value={current.address} testId="replace-address" />
          </dd>
        </div>
        <div>
          <dt>Balance</dt>
          <dd className={`mono${hasFunds ? ' text-danger' : ''}`} data-testid="replace-balance">
            {formatEthAmount(current.balanceWei)}
          </dd>
        </div>
        <div>
          <dt>Open nonces</dt>
          <dd data-testid="replace-open">
            {open.length === 0
              ? 'none'
              : `${open.length} (nonce${open.length === 1 ? '' : 's'} ${open.map((g) => g.nonce).join(', ')}): the app ` +
                `stops watching and replacing ${open.length === 1 ? 'it' : 'them'}`}
          </dd>
        </div>
        <div>
          <dt>Kept in</dt>
          <dd>
            {current.storage === 'memory'
              ? 'memory only: lost for good once replaced'
              : current.storage === 'environment'
                ? 'the PRIVATE_KEY environment variable'
                : current.storage === 'keychain'
                  ? 'the OS keychain'
                  : 'an encrypted file'}
          </dd>
        </div>
      </dl>
      <div className="export-box">
        <p className="export-title">Export the current key first</p>
        {exported ? (
          <p className="saved" role="status" data-testid="exported">
            ✓ Saved as {exported}. Keep it with its passphrase.
          </p>
        ) : (
          <div className="input-group">
            <label htmlFor={ids.pass} className="sr-only">
              Passphrase for the key file
            </label>
            <input
              id={ids.pass}
              className="input"
              type="password"
              autoComplete="new-password"
              placeholder="Passphrase for the file (8+ characters)"
              value={passphrase}
              aria-invalid={exportError ? true : undefined}
              aria-describedby={exportError ? ids.err : undefined}
              onChange={(e) => {
                setPassphrase(e.target.value);
                setExportError(null);
              }}
            />
            <button type="button" className="btn btn-secondary" disabled={exporting} onClick={() => void onExport()}>
              {exporting ? <Spinner label="Exporting" /> : null}
              Download key file
            </button>
          </div>
        )}
        {exportError ? (
          <p id={ids.err} className="field-error" role="alert">
            {exportError}
          </p>
        ) : null}
      </div>
      {!exported ? (
        <label className="check" htmlFor={ids.ack}>
          <input id={ids.ack} type="checkbox" checked={accepted} onChange={(e) => setAccepted(e.target.checked)} />
          <span>I have a copy of this key, or I accept losing it and its {formatEthAmount(current.balanceWei)}.</span>
        </label>
      ) : null}
    </ConfirmDialog>
  );
}
