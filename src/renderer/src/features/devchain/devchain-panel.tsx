// The dev chain panel: block height and base fee as they arrive, and the congestion control that makes cheap
// transactions wait so replacements can be watched, on the chain shown (each dev chain has its own).
import { useEffect, useState } from 'react';
import { congestionLevels, type CongestionLevel } from '../../../../shared/desktop-api.js';
import { formatFee, formatInteger } from '../../lib/format.js';
import { Spinner } from '../../components/states.js';
import { useApp } from '../../store/use-app.js';

const levelLabel: Record<CongestionLevel, string> = { off: 'Off', low: 'Low', high: 'High', market: 'Market' };
const levelHint: Record<CongestionLevel, string> = {
  off: 'Blocks have room: a 1 gwei transaction is mined in the next block.',
  low: 'Some competition: cheap transactions may wait a block or two.',
  high: 'Blocks are full of better-paying load: cheap transactions wait until replaced.',
  market: 'A fee market: the base fee moves by EIP-1559 as calm, rush and spike phases of load come and go.',
};

/** Each dev chain runs its own load: a level set here stays with this chain when the app switches to another. */
const perChain = 'Per chain: each dev chain keeps its own level.';

/** The dev chain mines a block a second; this long without news means the app lost its connection. */
const STALE_AFTER_MS = 6_000;

/** Re-evaluates once a second whether updates stopped; only this small hook ticks, not the store. */
function useStale(seenAt: number): boolean {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  return seenAt > 0 && now - seenAt > STALE_AFTER_MS;
}

export function DevchainPanel() {
  const state = useApp((s) => s.devchainState);
  const status = useApp((s) => s.devchain);
  const error = useApp((s) => s.devchainError);
  const saving = useApp((s) => s.congestionSaving);
  const setCongestion = useApp((s) => s.setCongestion);
  const reload = useApp((s) => s.loadDevchain);
  const stale = useStale(useApp((s) => s.devchainSeenAt));
  const chainId = useApp((s) => s.info?.chainId ?? null);

  if (state === 'absent') return null;
  return (
    <section className="panel devchain" aria-labelledby="devchain-title">
      <div className="panel-head">
        <h2 id="devchain-title" className="eyebrow">
          Dev chain
        </h2>
        {status ? (
          stale ? (
            <span className="stale-tag" role="status">
              no new blocks
            </span>
          ) : (
            <span className="live-dot" title="Live" role="img" aria-label="Live updates" />
          )
        ) : null}
      </div>
      {state === 'error' ? (
        <div className="devchain-error" role="alert">
          <p>{error?.message ?? 'The dev chain status is unavailable.'}</p>
          <button type="button" className="btn btn-ghost btn-small" onClick={() => void reload()}>
            Retry
          </button>
        </div>
      ) : !status ? (
        <div className="devchain-loading">
          <Spinner label="Loading dev chain" />
        </div>
      ) : (
        <>
          <dl className="metrics">
            <div>
              <dt>Block</dt>
              <dd className="mono" data-testid="block-height">
                {formatInteger(status.blockNumber)}
              </dd>
            </div>
            <div>
              <dt>Base fee</dt>
              <dd className="mono" data-testid="base-fee">
                {formatFee(status.baseFeeWei)}
              </dd>
            </div>
          </dl>
          <p id="congestion-label" className="control-label">
            Congestion{chainId !== null ? ` · chain ${chainId}` : ''}
          </p>
          <div className="segmented" role="group" aria-labelledby="congestion-label" aria-describedby="congestion-hint">
            {congestionLevels.map((level) => (
              <button
                key={level}
                type="button"
                className={`segment${status.congestion === level ? ' is-active' : ''}`}
                aria-pressed={status.congestion === level}
                disabled={saving !== null}
                onClick={() => void setCongestion(level)}
              >
                {saving === level ? <Spinner label={`Setting ${level}`} /> : levelLabel[level]}
              </button>
            ))}
          </div>
          <p id="congestion-hint" className="hint">
            {levelHint[status.congestion]}
            {status.marketPhase ? <span data-testid="market-phase"> Now: {status.marketPhase}.</span> : null} {perChain}
          </p>
        </>
      )}
    </section>
  );
}
