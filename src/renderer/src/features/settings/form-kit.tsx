// Small form building blocks for the settings screens: a labelled field and a save bar with its own status.
import { useId, type ReactNode } from 'react';
import type { ErrorInfo } from '../../store/api-error.js';
import { FormError, Spinner } from '../../components/states.js';

export function Field({
  label,
  hint,
  children,
}: {
  label: string;
  hint?: string;
  children: (id: string, describedBy: string | undefined) => ReactNode;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, hintId)}
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

export function SaveBar({ state, label = 'Save', disabled }: { state: SaveState; label?: string; disabled?: boolean }) {
  return (
    <div className="save-bar">
      <FormError error={state.error} />
      {state.saved && !state.error ? (
        <span className="saved" role="status">
          ✓ Saved
        </span>
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
