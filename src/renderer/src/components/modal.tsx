// A modal panel (a token's detail, a confirmation): the browser's <dialog> keeps focus inside and Escape closes it,
// unless `busy` says an action is under way.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function Modal({
  title,
  children,
  onClose,
  testId,
  busy = false,
  closeButton = true,
  wide = false,
}: {
  title: string;
  children: ReactNode;
  onClose: () => void;
  testId?: string | undefined;
  busy?: boolean;
  /** A Close button in the head; confirmations have their own way out instead. */
  closeButton?: boolean;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog${wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
    >
      <div className="dialog-head">
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        {closeButton ? (
          <button type="button" className="btn btn-ghost btn-small" onClick={onClose} autoFocus>
            Close
          </button>
        ) : null}
      </div>
      {children}
    </dialog>
  );
}
