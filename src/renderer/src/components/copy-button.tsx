// A button that puts a hash or an address on the clipboard and says so for a moment.
import { useEffect, useState } from 'react';

/** Puts `value` on the clipboard on `copy()`; `state` says for a moment whether the clipboard took it (idle again when `value` changes). */
export function useCopy(value: string): { state: 'idle' | 'copied' | 'failed'; copy: () => Promise<void> } {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1_600);
    return () => clearTimeout(t);
  }, [state]);
  // Another value is shown: the last one's "Copied" no longer describes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `value` is the trigger, not an input: a new value resets the state.
  useEffect(() => setState('idle'), [value]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return { state, copy };
}

export function CopyButton({
  value,
  label,
  tabbable = true,
}: {
  value: string /** What is copied, e.g. "transaction hash". */;
  label: string;
  tabbable?: boolean;
}) {
  const { state, copy } = useCopy(value);
  return (
    <button
      type="button"
      className={`copy-btn${state === 'copied' ? ' is-copied' : ''}`}
      aria-label={`Copy ${label} ${value}`}
      title={state === 'failed' ? 'The browser refused the clipboard; select the text instead.' : `Copy ${label}`}
      tabIndex={tabbable ? undefined : -1}
      data-copy={value}
      onClick={(e) => {
        e.stopPropagation();
        void copy();
      }}
    >
      {state === 'copied' ? (
        '✓'
      ) : state === 'failed' ? (
        '!'
      ) : (
        <svg width="13" height="13" viewBox="0 0 16 16" aria-hidden="true">
          <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
          <path
            d="M10.5 3.5v-.5a1.5 1.5 0 0 0-1.5-1.5H4A1.5 1.5 0 0 0 2.5 3v5A1.5 1.5 0 0 0 4 9.5h.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.5"
          />
        </svg>
      )}
      <span className="sr-only" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy' : ''}
      </span>
    </button>
  );
}
