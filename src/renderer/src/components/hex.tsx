// A hash or address: shortened on screen (never broken mid-string), the full value in a tooltip and for assistive
// technology, with a copy button and, on networks with a known explorer, a link to it.
import { explorerUrl } from '../lib/explorer.js';
import { shortHex } from '../lib/format.js';
import { useApp } from '../store/use-app.js';
import { CopyButton } from './copy-button.js';

export function Hex({
  value,
  head = 6,
  tail = 4,
  className = '',
  copy,
  explorer,
  copyTabbable = true,
}: {
  value: string | null | undefined;
  head?: number;
  tail?: number;
  className?: string;
  /** What the value is, for the copy button's label ("transaction hash", "address"); no button without it. */
  copy?: string;
  explorer?: 'tx' | 'address' | 'token';
  copyTabbable?: boolean;
}) {
  const chainId = useApp((s) => s.info?.chainId);
  if (!value) return <span className={`mono muted ${className}`}>—</span>;
  const link = explorer ? explorerUrl(chainId, explorer, value) : null;
  // Screen readers get the whole value; the eye gets the short one (its full text is in the tooltip).
  const text = (
    <span className={`mono hex ${className}`} title={value}>
      <span aria-hidden="true">{shortHex(value, head, tail)}</span>
      <span className="sr-only">{value}</span>
    </span>
  );
  if (!copy && !link) return text;
  return (
    <span className="hex-group">
      {text}
      {copy ? <CopyButton value={value} label={copy} tabbable={copyTabbable} /> : null}
      {link ? (
        <a
          className="explorer-link"
          href={link}
          target="_blank"
          rel="noreferrer noopener"
          aria-label={`Open ${value} in the block explorer`}
          title="Open in the block explorer"
        >
          ↗
        </a>
      ) : null}
    </span>
  );
}

/** A whole address on one line (never broken mid-string) with its copy button, where there is room for all of it. */
export function FullAddress({ value, testId }: { value: string; testId?: string }) {
  return (
    <span className="hex-group">
      <span className="mono nowrap" data-testid={testId}>
        {value}
      </span>
      <CopyButton value={value} label="address" />
    </span>
  );
}
