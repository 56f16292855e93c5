// A modal panel (a token's detail, a confirmation): the browser's <dialog> keeps focus inside and Escape closes it,
// unless `busy` says an action is under way or `keepOpen` says only an answer may close it.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function Modal({
  title,
  children,
  onClose,
  testId,
  busy = false,
  closeButton = true,
  wide = false,
  keepOpen = false,
}: {
  title: string;
  children: ReactNode;
  onClose: () => void;
  testId?: string | undefined;
  busy?: boolean;
  /** A Close button in the head; confirmations have their own way out instead. */
  closeButton?: boolean;
  wide?: boolean;
  /**
   * Never closed by the browser: after a few Escapes without other input in between Chrome closes a dialog whatever
   * the page says (its cancel event is no longer cancelable); it is shown again at once.
   */
  keepOpen?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  /** Where focus was when Escape was pressed, so a dialog shown again (`keepOpen`) puts it back there. */
  const focusAtCancel = useRef<Element | null>(null);
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
        focusAtCancel.current = document.activeElement;
        if (!busy) onClose();
      }}
      onClose={(e) => {
        const d = e.currentTarget;
        if (!keepOpen || d.open || !d.isConnected) return;
        d.showModal();
        const last = focusAtCancel.current;
        if (last instanceof HTMLElement && d.contains(last)) last.focus();
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
