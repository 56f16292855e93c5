// Send on a token you hold: the recipient and, for ERC-1155, how many, checked before sending; the core signs a call of
// the token contract's safeTransferFrom (no ETH, gas estimated) and refuses one that would revert, with the reason.
import { useContext } from 'react';
import type { Token } from '../../../../shared/listing.js';
import type { TxRequest } from '../../../../shared/tx-request.js';
import { Modal } from '../../components/modal.js';
import { shortHex } from '../../lib/format.js';
import { seedGradient } from '../../lib/seed-art.js';
import { tokenImageSrc } from '../../lib/token-image.js';
import { TransportContext, useApp } from '../../store/use-app.js';
import { Field } from '../settings/form-kit.js';
import { SendFormFooter, useSendForm, useSendSpeed, withSpeed } from './send-dialog-kit.js';
import {
  checkTokenSendForm,
  heldAmount,
  isMultiToken,
  tokenRefusalText,
  type TokenSendErrors,
  type TokenSendForm,
} from './token-send-form.js';

export function TokenSendDialog({ token, onClose }: { token: Token; onClose: () => void }) {
  const meta = useApp((s) => (token.uri ? s.metadata[token.uri] : undefined));
  const transport = useContext(TransportContext);
  const sendToken = useApp((s) => s.sendToken);
  const notify = useApp((s) => s.notify);
  const { form, errors, formError, busy, formRef, ids, update, submit } = useSendForm<
    TokenSendForm,
    TokenSendErrors,
    { request: TxRequest; amount: string }
  >({ to: '', amount: '1' }, (f) => checkTokenSendForm(f, token), ['to', 'amount']);
  const multi = isMultiToken(token);
  const held = heldAmount(token);
  const collection = token.contract.name || token.contract.symbol || 'Unnamed collection';
  const name = meta?.name || `${token.contract.symbol || collection} #${token.id}`;
  const image = tokenImageSrc(meta?.image, transport);

  const { speed, setSpeed } = useSendSpeed();
  const send = submit(async (check) => {
    const result = await sendToken(token, withSpeed(check.request, speed), form.to.trim(), check.amount);
    if ('error' in result) return { form: tokenRefusalText(result.error) };
    notify(
      'success',
      `Sending ${multi ? `${check.amount} of ` : ''}${name} to ${shortHex(form.to.trim(), 8, 6)} as nonce ${result.record.nonce}.`,
    );
    onClose();
    return null;
  });

  return (
    <Modal title={`Send ${name}`} onClose={onClose} testId="token-send-dialog" busy={busy} closeButton={false}>
      <form
        ref={formRef}
        className="send-form"
        noValidate
        onSubmit={(e) => void send(e)}
        aria-describedby={formError ? ids.formError : ids.fee}
      >
        <div className="send-token">
          <div
            className="send-token-media"
            style={image ? undefined : { background: seedGradient(`${token.contract.address}:${token.id}`) }}
            aria-hidden="true"
          >
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
        <Field
          label="Recipient"
          error={errors.to}
          hint="The address to send the token to: 0x followed by 40 hex digits. A contract there must accept tokens."
        >
          {(p) => (
            <input
              {...p}
              name="to"
              className="input mono"
              value={form.to}
              placeholder="0x…"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => update('to', e.target.value)}
            />
          )}
        </Field>
        {multi ? (
          <Field label="Amount" error={errors.amount} hint={`A whole number from 1 to ${held}.`}>
            {(p) => (
              <input
                {...p}
                name="amount"
                className="input mono"
                type="number"
                inputMode="numeric"
                min={1}
                max={held.toString()}
                step={1}
                value={form.amount}
                onChange={(e) => update('amount', e.target.value)}
              />
            )}
          </Field>
        ) : null}
        <SendFormFooter
          ids={ids}
          formError={formError}
          busy={busy}
          onClose={onClose}
          submitTestId="token-send-submit"
          speed={speed}
          onSpeed={setSpeed}
          label={`Send ${multi ? 'tokens' : 'token'}`}
        />
      </form>
    </Modal>
  );
}
