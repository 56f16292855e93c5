// A shortened hash or address that keeps the full value in a tooltip and for assistive technology.
import { shortHex } from '../lib/format.js';

export function Hex({ value, head = 6, tail = 4, className = '' }: { value: string | null | undefined; head?: number; tail?: number; className?: string }) {
  if (!value) return <span className={`mono muted ${className}`}>—</span>;
  return (
    <span className={`mono ${className}`} title={value} aria-label={value}>
      {shortHex(value, head, tail)}
    </span>
  );
}
