// The selected transaction: its facts, the fee-bump chart of its nonce and its timeline from `getTransaction(hash).history`.
import { useMemo } from 'react';
import { formatFee, formatInteger } from '../../lib/format.js';
import { Hex } from '../../components/hex.js';
import { RelTime } from '../../components/rel-time.js';
import { ErrorState, LoadingState } from '../../components/states.js';
import { StateBadge } from '../../components/state-badge.js';
import { attemptState, attemptWord, newestOf, nonceState } from '../../store/nonce-state.js';
import { chainOf, receiptFacts } from '../../store/tx-logic.js';
import { useApp } from '../../store/use-app.js';
import { FeeBumpChart } from './fee-bump-chart.js';
import { TxTimeline } from './tx-timeline.js';
import { TxWhat } from './tx-what.js';

export function TxDetail({ hash }: { hash: string }) {
  const txs = useApp((s) => s.txs);
  const detail = useApp((s) => s.details[hash]);
  const cap = useApp((s) => s.settings?.policy.maxFeeWei);
  const loadDetail = useApp((s) => s.loadDetail);
  const select = useApp((s) => s.selectTransaction);
  const record = txs[hash];
  const chain = useMemo(() => chainOf(txs, hash), [txs, hash]);
  const newestHash = chain.length > 0 ? newestOf(chain).transactionHash : hash;
  const newestHistory = useApp((s) => s.details[newestHash]?.record?.history);

  if (!record) return null;
  const facts = receiptFacts(record);
  const history = detail?.record?.history;
  const state = nonceState(chain, newestHistory);
  const word = attemptState(record, state);
  return (
    <article className="detail" aria-labelledby="detail-title" data-testid="tx-detail">
      <header className="detail-head">
        <div>
          <p className="eyebrow">
            {attemptWord(record)} · nonce {record.nonce}
          </p>
          <h2 id="detail-title" className="detail-hash">
            <span className="sr-only">Transaction </span>
            <Hex value={record.transactionHash} head={12} tail={10} copy="transaction hash" explorer="tx" />
          </h2>
        </div>
        <StateBadge state={word} />
      </header>
      <dl className="facts">
        <div>
          <dt>From</dt>
          <dd>
            <Hex value={record.from} copy="address" explorer="address" />
          </dd>
        </div>
        {record.to !== undefined ? (
          <>
            <div className="span-all">
              <dt>What it does</dt>
              <dd>
                <TxWhat record={record} copy />
              </dd>
            </div>
            <div>
              <dt>Gas limit</dt>
              <dd className="mono">{formatInteger(record.gasLimit)}</dd>
            </div>
          </>
        ) : null}
        <div>
          <dt>{record.txType === 'eip1559' ? 'Max fee' : 'Gas price'}</dt>
          <dd className="mono">{formatFee(record.gasPrice)}</dd>
        </div>
        {record.maxPriorityFeePerGas ? (
          <div>
            <dt>Priority fee</dt>
            <dd className="mono">{formatFee(record.maxPriorityFeePerGas)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Signed</dt>
          <dd>
            <RelTime iso={record.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Block</dt>
          <dd className="mono">{facts.blockNumber === null ? '—' : formatInteger(facts.blockNumber)}</dd>
        </div>
        <div>
          <dt>Gas used</dt>
          <dd className="mono">{facts.gasUsed === null ? '—' : formatInteger(facts.gasUsed)}</dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{record.txType === 'eip1559' ? 'EIP-1559' : 'Legacy'}</dd>
        </div>
        {record.replaces ? (
          <div>
            <dt>Replaces</dt>
            <dd>
              <button type="button" className="link-btn" onClick={() => select(record.replaces)}>
                <Hex value={record.replaces} />
              </button>
            </dd>
          </div>
        ) : null}
        {record.replacedBy ? (
          <div>
            <dt>Replaced by</dt>
            <dd>
              <button type="button" className="link-btn" onClick={() => select(record.replacedBy)}>
                <Hex value={record.replacedBy} />
              </button>
            </dd>
          </div>
        ) : null}
      </dl>

      <section className="detail-section" aria-label="Fee bumps">
        <h3 className="section-title">Fee bumps for nonce {record.nonce}</h3>
        <FeeBumpChart attempts={chain} selectedHash={hash} capWei={cap} state={state} />
      </section>

      <section className="detail-section" aria-label="Timeline">
        <h3 className="section-title">Timeline</h3>
        {history ? (
          <TxTimeline history={history} />
        ) : detail?.state === 'error' ? (
          <ErrorState title="Could not load the history" error={detail.error} onRetry={() => void loadDetail(hash)} />
        ) : (
          <LoadingState text="Loading history…" />
        )}
      </section>
    </article>
  );
}
