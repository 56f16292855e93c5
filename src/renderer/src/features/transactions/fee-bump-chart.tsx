// The fee of every attempt of one nonce as bars, with the bump over the previous attempt and the configured cap,
// so it is visible at a glance how the replacement engine climbed. Inline SVG, no chart library.
import type { TxRecord } from '../../../../shared/tx-record.js';
import { bumpPercent, badgeStatus } from '../../store/tx-logic.js';
import { formatGwei, weiToGweiNumber } from '../../lib/format.js';

const W = 420;
const H = 150;
const PAD = { top: 28, right: 12, bottom: 30, left: 12 };

export function FeeBumpChart({ attempts, selectedHash, capWei }: { attempts: TxRecord[]; selectedHash: string; capWei?: string | undefined }) {
  if (attempts.length === 0) return null;
  const fees = attempts.map((a) => weiToGweiNumber(a.gasPrice));
  const cap = capWei ? weiToGweiNumber(capWei) : 0;
  const maxFee = Math.max(...fees);
  // Show the cap only when it is near enough to mean something next to the bars.
  const showCap = cap > 0 && cap <= maxFee * 3;
  const top = Math.max(maxFee, showCap ? cap : 0) * 1.08 || 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(attempts.length, 3);
  const barW = Math.min(56, slot * 0.56);
  // Few attempts sit in the middle instead of hugging the left edge.
  const offset = (plotW - slot * attempts.length) / 2;
  const y = (gwei: number) => PAD.top + plotH - (gwei / top) * plotH;

  return (
    <figure className="fee-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Fee per attempt: ${attempts.map((a) => `${formatGwei(a.gasPrice)} gwei`).join(', ')}`}>
        <line className="chart-axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} />
        {showCap ? (
          <g>
            <line className="chart-cap" x1={PAD.left} x2={W - PAD.right} y1={y(cap)} y2={y(cap)} />
            <text className="chart-cap-label" x={W - PAD.right} y={y(cap) - 5} textAnchor="end">
              cap {formatGwei(capWei)} gwei
            </text>
          </g>
        ) : null}
        {attempts.map((a, i) => {
          const fee = fees[i] ?? 0;
          const cx = PAD.left + offset + slot * i + slot / 2;
          const barTop = y(fee);
          const prev = i > 0 ? attempts[i - 1] : undefined;
          return (
            <g key={a.transactionHash} className={`chart-bar chart-${badgeStatus(a)}${a.transactionHash === selectedHash ? ' is-selected' : ''}`}>
              <rect x={cx - barW / 2} y={barTop} width={barW} height={Math.max(2, PAD.top + plotH - barTop)} rx={5} />
              <text className="chart-value" x={cx} y={barTop - 8} textAnchor="middle">
                {formatGwei(a.gasPrice, 2)}
              </text>
              <text className="chart-label" x={cx} y={H - 12} textAnchor="middle">
                {i === 0 ? 'original' : `#${a.attempt} ${prev ? bumpPercent(prev.gasPrice, a.gasPrice) : ''}`}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="hint">Fee per attempt in gwei{showCap ? ', with the configured cap' : ''}.</figcaption>
    </figure>
  );
}
