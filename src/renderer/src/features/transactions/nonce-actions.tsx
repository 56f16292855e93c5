// What a person can do about an open nonce: speed it up or cancel it (each after a confirmation), and for a nonce that
// needs them, the one action that fixes it, inline on the card.
import { useState } from 'react';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { Hex } from '../../components/hex.js';
import { formatFee } from '../../lib/format.js';
import type { NonceState } from '../../store/nonce-state.js';
import { useApp } from '../../store/use-app.js';
import { MIN_BUMP_PERCENT } from '../../../../shared/defaults.js';

type Ask = 'cancel' | 'speed-up' | 'raise-cap' | 'raise-limit' | null;

/** The cap a stuck nonce needs: 10 % above the fee the network asks now, rounded up to a tenth of a gwei. */
export function suggestedCapWei(neededWei: string | null, capWei: string): string {
  const base = neededWei ? (BigInt(neededWei) * 110n) / 100n : BigInt(capWei) * 2n;
  const step = 100_000_000n;
  const rounded = ((base + step - 1n) / step) * step;
  return (rounded > BigInt(capWei) ? rounded : BigInt(capWei) * 2n).toString();
}

export function NonceActions({
  state,
  nonce,
  part,
}: {
  state: NonceState;
  nonce: number /** The buttons in the card's head, or the needs-you line under it. */;
  part: 'buttons' | 'needs-you';
}) {
  const acting = useApp((s) => s.acting[state.lead.transactionHash]);
  const act = useApp((s) => s.actOnTransaction);
  const policy = useApp((s) => s.settings?.policy);
  const save = useApp((s) => s.saveSettings);
  const notify = useApp((s) => s.notify);
  const setView = useApp((s) => s.setView);
  const [ask, setAsk] = useState<Ask>(null);
  const [busy, setBusy] = useState(false);
  if (!state.open) return null;
  const hash = state.lead.transactionHash;
  const fix = state.fix;
  const newCap = policy && fix?.kind === 'raise-cap' ? suggestedCapWei(fix.neededWei, policy.maxFeeWei) : null;
  const newLimit = policy ? Math.min(100, Math.max(policy.maxReplacements, state.lead.attempt) + 3) : null;

  const confirm = async () => {
    setBusy(true);
    if (ask === 'cancel' || ask === 'speed-up') {
      await act(hash, ask);
    } else if (ask === 'raise-cap' && newCap) {
      // The core looks at nonces skipped for the cap again right after a policy change and replaces them.
      const err = await save({ policy: { maxFeeWei: newCap } });
      notify(err ? 'error' : 'success', err ? err.message : `Fee cap raised to ${formatFee(newCap)}; nonce ${nonce} is replaced next.`);
    } else if (ask === 'raise-limit' && newLimit !== null) {
      const err = await save({ policy: { maxReplacements: newLimit } });
      notify(
        err ? 'error' : 'success',
        err ? err.message : `Up to ${newLimit} replacements per nonce now; nonce ${nonce} is replaced next.`,
      );
    }
    setBusy(false);
    setAsk(null);
  };

  let fixControl = null;
  if (state.name === 'needs-you' && fix) {
    switch (fix.kind) {
      case 'raise-cap':
        fixControl = newCap ? (
          <button type="button" className="btn btn-primary btn-small" data-testid="fix" onClick={() => setAsk('raise-cap')}>
            Raise the cap to {formatFee(newCap)} and replace
          </button>
        ) : null;
        break;
      case 'raise-limit':
        fixControl = (
          <button type="button" className="btn btn-primary btn-small" data-testid="fix" onClick={() => setAsk('raise-limit')}>
            Allow {newLimit} replacements and replace
          </button>
        );
        break;
      case 'top-up':
        fixControl = (
          <span className="fix-text" data-testid="fix">
            Top up: send ETH to <Hex value={state.lead.from} head={8} tail={6} copy="address" explorer="address" />; it is replaced once the
            balance covers the fee.
          </span>
        );
        break;
      case 'speed-up':
      case 'cancel':
        fixControl = (
          <button type="button" className="btn btn-primary btn-small" data-testid="fix" onClick={() => setAsk(fix.kind)}>
            {fix.kind === 'cancel' ? 'Cancel this nonce' : 'Speed up'}
          </button>
        );
        break;
      case 'add-key':
        fixControl = (
          <button type="button" className="btn btn-primary btn-small" data-testid="fix" onClick={() => setView('settings')}>
            Add the signing key in Settings
          </button>
        );
        break;
    }
  }

  return (
    <>
      {part === 'needs-you' && state.name === 'needs-you' ? (
        <div className="needs-you" data-testid="needs-you">
          <p className="needs-you-text">{state.problem?.summary ?? ''}</p>
          {fixControl}
        </div>
      ) : null}
      {part === 'buttons' ? (
        <div className="group-actions">
          <button
            type="button"
            className="btn btn-secondary btn-small"
            disabled={Boolean(acting)}
            onClick={() => setAsk('speed-up')}
            aria-label={`Speed up nonce ${nonce}`}
          >
            {acting === 'speed-up' ? 'Speeding up…' : 'Speed up'}
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-small"
            disabled={Boolean(acting)}
            onClick={() => setAsk('cancel')}
            aria-label={`Cancel nonce ${nonce}`}
          >
            {acting === 'cancel' ? 'Cancelling…' : 'Cancel'}
          </button>
        </div>
      ) : null}
      {ask ? (
        <ConfirmDialog
          title={
            ask === 'cancel'
              ? `Cancel nonce ${nonce}?`
              : ask === 'speed-up'
                ? `Speed up nonce ${nonce}?`
                : ask === 'raise-cap'
                  ? `Raise the fee cap to ${newCap ? formatFee(newCap) : ''}?`
                  : `Allow ${newLimit} replacements per nonce?`
          }
          confirmLabel={
            ask === 'cancel'
              ? 'Cancel the transaction'
              : ask === 'speed-up'
                ? 'Speed it up'
                : ask === 'raise-cap'
                  ? 'Raise the cap and replace'
                  : 'Allow and replace'
          }
          tone={ask === 'cancel' ? 'danger' : 'primary'}
          busy={busy}
          onConfirm={() => void confirm()}
          onCancel={() => setAsk(null)}
          testId="confirm-action"
        >
          {ask === 'cancel' ? (
            <p>
              The app signs a 0 ETH transfer to yourself with the same nonce and a higher fee than {formatFee(state.lead.gasPrice)}. If it
              is mined first, the transaction is never carried out; the fee of the cancel is still paid.
            </p>
          ) : ask === 'speed-up' ? (
            <p>
              The app signs the same transaction again with the same nonce and a fee at least{' '}
              {policy ? `${policy.bumpPercent} %` : `${MIN_BUMP_PERCENT} %`} above {formatFee(state.lead.gasPrice)}, now, without waiting
              for the timeout{policy ? `; never above the cap of ${formatFee(policy.maxFeeWei)}` : ''}.
            </p>
          ) : ask === 'raise-cap' ? (
            <p>
              The cap goes from {policy ? formatFee(policy.maxFeeWei) : '—'} to {newCap ? formatFee(newCap) : '—'} for every transaction,
              and nonce {nonce} is replaced at the fee the network asks now.
            </p>
          ) : (
            <p>
              Every nonce may then be replaced up to {newLimit} times (now {policy?.maxReplacements}); nonce {nonce} is replaced next.
            </p>
          )}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
