// A question before something that costs money or cannot be undone. Focus starts on the way out, so Enter alone never
// confirms.
import type { ReactNode } from 'react';
import { Modal } from './modal.js';
import { Spinner } from './states.js';

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  tone = 'primary',
  busy = false,
  confirmDisabled = false,
  onConfirm,
  onCancel,
  testId,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  tone?: 'primary' | 'danger';
  busy?: boolean;
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}) {
  return (
    <Modal title={title} onClose={onCancel} testId={testId} busy={busy} closeButton={false}>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={onCancel} disabled={busy} autoFocus>
          Keep it as it is
        </button>
        <button
          type="button"
          className={`btn ${tone === 'danger' ? 'btn-danger' : 'btn-primary'}`}
          onClick={onConfirm}
          disabled={busy || confirmDisabled}
        >
          {busy ? <Spinner label="Working" /> : null}
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
