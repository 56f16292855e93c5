// The fee of every attempt of one nonce as bars, with the bump over the previous attempt and the configured cap,
// so it is visible at a glance how the replacement engine climbed. Inline SVG, no chart library.
import type { TxRecord } from '../../../../shared/tx-record.js';
import { attemptState, attemptWord, nonceState, stateTone, type NonceState } from '../../store/nonce-state.js';
import { bumpPercent } from '../../store/tx-logic.js';
import { formatFee, weiToGweiNumber } from '../../lib/format.js';

const W = 420;
const H = 170;
/** The cap's label sits right of the plot, so it never crosses a bar or a bar's value. */
const PAD = { top: 28, right: 78, bottom: 44, left: 8 };

export function FeeBumpChart({
  attempts,
  selectedHash,
  capWei,
  state: given,
}: {
  attempts: TxRecord[];
  selectedHash: string;
  capWei?: string | undefined;
  state?: NonceState;
}) {
  if (attempts.length === 0) return null;
  const state = given ?? nonceState(attempts);
  const fees = attempts.map((a) => weiToGweiNumber(a.gasPrice));
  const cap = capWei ? weiToGweiNumber(capWei) : 0;
  const maxFee = Math.max(...fees);
  // Show the cap only when it is near enough to mean something next to the bars.
  const showCap = cap > 0 && cap <= maxFee * 3;
  const top = Math.max(maxFee, showCap ? cap : 0) * 1.08 || 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(attempts.length, 3);
  const barW = Math.min(56, slot * 0.62);
  // Few attempts sit in the middle instead of hugging the left edge.
  const offset = (plotW - slot * attempts.length) / 2;
  const y = (gwei: number) => PAD.top + plotH - (gwei / top) * plotH;
  const longLabels = attempts.length <= 3;

  return (
    <figure className="fee-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Fee per attempt: ${attempts.map((a) => `${attemptWord(a)} ${formatFee(a.gasPrice)}`).join(', ')}${
          showCap ? `; cap ${formatFee(capWei)}` : ''
        }`}
      >
        <line className="chart-axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} />
        {showCap ? (
          <g>
            <line className="chart-cap" x1={PAD.left} x2={W - PAD.right + 4} y1={y(cap)} y2={y(cap)} />
            <text className="chart-cap-label" x={W - PAD.right + 8} y={y(cap) - 2}>
              cap
            </text>
            <text className="chart-cap-label" x={W - PAD.right + 8} y={y(cap) + 11}>
              {formatFee(capWei)}
            </text>
          </g>
        ) : null}
        {attempts.map((a, i) => {
          const fee = fees[i] ?? 0;
          const cx = PAD.left + offset + slot * i + slot / 2;
          const barTop = y(fee);
          const prev = i > 0 ? attempts[i - 1] : undefined;
          // A value label the cap line would cross goes inside the top of its bar instead.
          const labelY = showCap && Math.abs(barTop - 8 - y(cap)) < 12 && PAD.top + plotH - barTop > 24 ? barTop + 16 : barTop - 8;
          return (
            <g
              key={a.transactionHash}
              className={`chart-bar tone-${stateTone(attemptState(a, state))}${a.transactionHash === selectedHash ? ' is-selected' : ''}`}
            >
              <rect x={cx - barW / 2} y={barTop} width={barW} height={Math.max(2, PAD.top + plotH - barTop)} rx={5} />
              <text className="chart-value" x={cx} y={labelY} textAnchor="middle">
                {formatFee(a.gasPrice).replace(' gwei', '')}
              </text>
              <text className="chart-label" x={cx} y={H - 26} textAnchor="middle">
                {longLabels
                  ? attemptWord(a)
                  : i === 0
                    ? 'Orig.'
                    : `${a.kind === 'cancel' ? 'Cancel' : a.kind === 'speed-up' ? 'Speed' : 'R'} ${a.attempt}`}
              </text>
              <text className="chart-label chart-bump" x={cx} y={H - 12} textAnchor="middle">
                {prev ? bumpPercent(prev.gasPrice, a.gasPrice) : ''}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="hint">
        Fee per attempt in gwei, with the bump over the one before{showCap ? ' and the configured cap' : ''}
        {longLabels ? '' : '; R n is replacement n'}.
      </figcaption>
    </figure>
  );
}
