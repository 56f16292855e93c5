// Send on a token you hold: the recipient and, for ERC-1155, how many, checked before sending; the core signs a call of
// the token contract's safeTransferFrom (no ETH, gas estimated) and refuses one that would revert, with the reason.
import { useContext, useId, useRef, useState, type FormEvent } from 'react';
import type { Token } from '../../../../shared/listing.js';
import { Modal } from '../../components/modal.js';
import { Spinner } from '../../components/states.js';
import { shortHex } from '../../lib/format.js';
import { seedGradient } from '../../lib/seed-art.js';
import { tokenImageSrc } from '../../lib/token-image.js';
import { TransportContext, useApp } from '../../store/use-app.js';
import { Field } from '../settings/form-kit.js';
import { FeeNote } from './fee-note.js';
import { checkTokenSendForm, heldAmount, isMultiToken, tokenRefusalText, type TokenSendErrors, type TokenSendForm } from './token-send-form.js';

export function TokenSendDialog({ token, onClose }: { token: Token; onClose: () => void }) {
  const meta = useApp((s) => (token.uri ? s.metadata[token.uri] : undefined));
  const transport = useContext(TransportContext);
  const sendToken = useApp((s) => s.sendToken);
  const notify = useApp((s) => s.notify);
  const [form, setForm] = useState<TokenSendForm>({ to: '', amount: '1' });
  const [errors, setErrors] = useState<TokenSendErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const feeId = useId();
  const formErrorId = useId();
  const multi = isMultiToken(token);
  const held = heldAmount(token);
  const collection = token.contract.name || token.contract.symbol || 'Unnamed collection';
  const name = meta?.name || `${token.contract.symbol || collection} #${token.id}`;
  const image = tokenImageSrc(meta?.image, transport);

  const update = (field: keyof TokenSendForm, value: string) => {
    const next = { ...form, [field]: value };
    setForm(next);
    setFormError(null);
    if (tried) {
      const check = checkTokenSendForm(next, token);
      setErrors(check.ok ? {} : check.errors);
    }
  };

  const focusFirstInvalid = (found: TokenSendErrors) => {
    const first = (['to', 'amount'] as const).find((f) => found[f]);
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    const check = checkTokenSendForm(form, token);
    if (!check.ok) {
      setErrors(check.errors);
      focusFirstInvalid(check.errors);
      return;
    }
    setErrors({});
    setFormError(null);
    setBusy(true);
    const result = await sendToken(token, check.request, form.to.trim(), check.amount);
    setBusy(false);
    if ('error' in result) {
      setFormError(tokenRefusalText(result.error));
      return;
    }
    notify('success', `Sending ${multi ? `${check.amount} of ` : ''}${name} to ${shortHex(form.to.trim(), 8, 6)} as nonce ${result.record.nonce}.`);
    onClose();
  };

  return (
    <Modal title={`Send ${name}`} onClose={onClose} testId="token-send-dialog" busy={busy} closeButton={false}>
      <form ref={formRef} className="send-form" noValidate onSubmit={(e) => void submit(e)} aria-describedby={formError ? formErrorId : feeId}>
        <div className="send-token">
          <div className="send-token-media" style={image ? undefined : { background: seedGradient(`${token.contract.address}:${token.id}`) }} aria-hidden="true">
            {image ? <img src={image} alt="" /> : <span className="token-fallback">#{token.id}</span>}
          </div>
          <div>
            <p className="send-token-name">{name}</p>
            <p className="muted">
              {collection} · {multi ? 'ERC-1155' : 'ERC-721'} · token <span className="mono">{token.id}</span>
              {multi ? ` · this account holds ${held}` : ''}
            </p>
          </div>
        </div>
        <Field label="Recipient" error={errors.to} hint="The address to send the token to: 0x followed by 40 hex digits. A contract there must accept tokens.">
          {(p) => <input {...p} name="to" className="input mono" value={form.to} placeholder="0x…" spellCheck={false} autoComplete="off" onChange={(e) => update('to', e.target.value)} />}
        </Field>
        {multi ? (
          <Field label="Amount" error={errors.amount} hint={`A whole number from 1 to ${held}.`}>
            {(p) => (
              <input {...p} name="amount" className="input mono" type="number" inputMode="numeric" min={1} max={held.toString()} step={1} value={form.amount} onChange={(e) => update('amount', e.target.value)} />
            )}
          </Field>
        ) : null}
        <FeeNote id={feeId} />
        {formError ? (
          <p id={formErrorId} className="form-error send-refusal" role="alert" data-testid="send-refusal">
            {formError}
          </p>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            Close
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="token-send-submit">
            {busy ? <Spinner label="Sending" /> : null}
            Send {multi ? 'tokens' : 'token'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
