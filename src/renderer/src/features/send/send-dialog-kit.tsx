// What both send dialogs share: the form state (field errors follow the typing once sending was tried, the first
// invalid field gets the focus), the speed a send asks for under market pricing, and the refusal line and buttons at
// the bottom.
import { useId, useRef, useState, type FormEvent } from 'react';
import { SPEEDS, type Speed, type TxRequest } from '../../../../shared/tx-request.js';
import { Spinner } from '../../components/states.js';
import { useApp } from '../../store/use-app.js';
import { FeeNote } from './fee-note.js';

type Checked<E, R> = (R & { ok: true }) | { ok: false; errors: E };
/** What a send answered when refused: errors beside fields and a sentence under the form. */
export type Refusal<E> = { fields?: E; form: string | null };

export function useSendForm<F extends object, E extends Partial<Record<keyof F, string>>, R>(
  initial: F,
  check: (form: F) => Checked<E, R>,
  fieldOrder: readonly (keyof F & string)[],
) {
  const [form, setForm] = useState<F>(initial);
  const [errors, setErrors] = useState<E>({} as E);
  const [formError, setFormError] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const ids = { fee: useId(), formError: useId() };

  const showErrors = (found: E) => {
    setErrors(found);
    const first = fieldOrder.find((f) => found[f]);
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
  };
  const update = (field: keyof F, value: string) => {
    const next = { ...form, [field]: value };
    setForm(next);
    setFormError(null);
    // After a first attempt, errors follow the typing, so a fixed field stops saying it is wrong.
    if (tried) {
      const c = check(next);
      setErrors(c.ok ? ({} as E) : c.errors);
    }
  };
  /** The form's onSubmit: checks, then `send`s what was checked; `send` answers a refusal, or null once sent. */
  const submit = (send: (checked: R) => Promise<Refusal<E> | null>) => async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    const c = check(form);
    if (!c.ok) return showErrors(c.errors);
    setErrors({} as E);
    setFormError(null);
    setBusy(true);
    const refusal = await send(c);
    setBusy(false);
    if (!refusal) return;
    showErrors(refusal.fields ?? ({} as E));
    setFormError(refusal.form);
  };
  return { form, errors, formError, busy, formRef, ids, update, submit };
}

/**
 * The speed a send asks for: under market pricing the policy's own until the person picks another; null under the seed
 * preset, which prices every first attempt the same.
 */
export function useSendSpeed() {
  const policy = useApp((s) => s.settings?.policy);
  const [picked, setPicked] = useState<Speed | null>(null);
  const speed = policy?.pricing === 'market' ? (picked ?? policy.speed) : null;
  return { speed, setSpeed: setPicked };
}

/** The request as checked, asking for `speed` when there is one to ask for. */
export const withSpeed = (request: TxRequest, speed: Speed | null): TxRequest => (speed ? { ...request, speed } : request);

const speedWords: Record<Speed, string> = { slow: 'Slow', normal: 'Normal', fast: 'Fast' };

function SpeedChoice({ speed, onSpeed, busy }: { speed: Speed; onSpeed: (s: Speed) => void; busy: boolean }) {
  const label = useId();
  return (
    <div className="send-speed">
      <p id={label} className="control-label">
        Speed
      </p>
      <div className="segmented" role="group" aria-labelledby={label}>
        {SPEEDS.map((s) => (
          <button
            key={s}
            type="button"
            className={`segment${speed === s ? ' is-active' : ''}`}
            aria-pressed={speed === s}
            disabled={busy}
            onClick={() => onSpeed(s)}
          >
            {speedWords[s]}
          </button>
        ))}
      </div>
    </div>
  );
}

/** The speed choice (market pricing only), the fee note, the core's refusal, and Close / the submit button. */
export function SendFormFooter(p: {
  ids: { fee: string; formError: string };
  formError: string | null;
  busy: boolean;
  onClose: () => void;
  submitTestId: string;
  label: string;
  speed: Speed | null;
  onSpeed: (s: Speed) => void;
}) {
  return (
    <>
      {p.speed ? <SpeedChoice speed={p.speed} onSpeed={p.onSpeed} busy={p.busy} /> : null}
      <FeeNote id={p.ids.fee} speed={p.speed} />
      {p.formError ? (
        <p id={p.ids.formError} className="form-error send-refusal" role="alert" data-testid="send-refusal">
          {p.formError}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={p.onClose} disabled={p.busy}>
          Close
        </button>
        <button type="submit" className="btn btn-primary" disabled={p.busy} data-testid={p.submitTestId}>
          {p.busy ? <Spinner label="Sending" /> : null}
          {p.label}
        </button>
      </div>
    </>
  );
}
