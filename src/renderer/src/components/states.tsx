// Loading, empty and error states used by every screen, so they look and read the same everywhere.
import type { ReactNode } from 'react';
import type { ErrorInfo } from '../transport/api-error.js';

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className="spinner" role="status" aria-label={label} />;
}

export function LoadingState({ text }: { text: string }) {
  return (
    <div className="state state-loading" aria-busy="true">
      <Spinner label={text} />
      <p>{text}</p>
    </div>
  );
}

export function EmptyState({ title, children, icon = '◇' }: { title: string; children?: ReactNode; icon?: string }) {
  return (
    <div className="state state-empty">
      <div className="state-icon" aria-hidden="true">
        {icon}
      </div>
      <h3>{title}</h3>
      {children ? <div className="state-body">{children}</div> : null}
    </div>
  );
}

export function ErrorState({ title, error, onRetry }: { title: string; error: ErrorInfo | null; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <div className="state-icon" aria-hidden="true">
        !
      </div>
      <h3>{title}</h3>
      {error ? (
        <p>
          {error.message} <span className="code-tag">{error.code}</span>
        </p>
      ) : null}
      {onRetry ? (
        <button type="button" className="btn btn-secondary" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** An error line beside a form, announced to screen readers. */
export function FormError({ error }: { error: ErrorInfo | null }) {
  if (!error) return null;
  return (
    <p className="form-error" role="alert">
      {error.message}
    </p>
  );
}
