// Small form building blocks for the settings screens: a labelled field that carries its own error (aria-invalid,
// aria-describedby), a save bar with its own status, and the card around each form.
import { useId, type ReactNode } from 'react';
import type { ErrorInfo } from '../../transport/api-error.js';
import { FormError, Spinner } from '../../components/states.js';

/** What a field's control needs: its id, what describes it (hint and error), and whether it is invalid. */
export interface FieldProps {
  id: string;
  'aria-describedby': string | undefined;
  'aria-invalid': true | undefined;
}

export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: string;
  error?: string | undefined;
  children: (props: FieldProps) => ReactNode;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
      {hint ? (
        <p id={hintId} className="hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export type SaveState = { busy: boolean; error: ErrorInfo | null; saved: boolean };
export const idleSave: SaveState = { busy: false, error: null, saved: false };

export function SaveBar({
  state,
  label = 'Save',
  disabled,
  dirty = false,
  savedText = '✓ Saved',
}: {
  state: SaveState;
  label?: string;
  disabled?: boolean;
  dirty?: boolean;
  savedText?: ReactNode;
}) {
  return (
    <div className="save-bar">
      <FormError error={state.error} />
      {state.saved && !state.error ? (
        <span className="saved" role="status">
          {savedText}
        </span>
      ) : dirty && !state.error ? (
        <span className="unsaved">Unsaved changes</span>
      ) : null}
      <button type="submit" className="btn btn-primary" disabled={state.busy || disabled}>
        {state.busy ? <Spinner label="Saving" /> : null}
        {label}
      </button>
    </div>
  );
}

export function Card({ title, description, children, id }: { title: string; description: string; children: ReactNode; id: string }) {
  return (
    <section className="card settings-card" aria-labelledby={id}>
      <header className="card-head">
        <h2 id={id}>{title}</h2>
        <p className="muted">{description}</p>
      </header>
      {children}
    </section>
  );
}
