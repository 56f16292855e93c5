// One nonce's replacement chain: every attempt with its status, fee, block and gas used; rows select the timeline.
import { memo } from 'react';
import { formatGwei, formatInteger, formatTime } from '../../lib/format.js';
import { Hex } from '../../components/hex.js';
import { StatusBadge } from '../../components/status-badge.js';
import { badgeStatus, receiptFacts, type GroupState, type NonceGroup } from '../../store/tx-logic.js';

const stateLabel: Record<GroupState, string> = {
  confirmed: 'Confirmed',
  mined: 'Mined, confirming',
  waiting: 'Waiting for a block',
  sent: 'Broadcast',
};

export const NonceGroupCard = memo(function NonceGroupCard({
  group,
  selectedHash,
  onSelect,
}: {
  group: NonceGroup;
  selectedHash: string | null;
  onSelect: (hash: string) => void;
}) {
  const replacements = group.attempts.length - 1;
  return (
    <li className={`group-card group-${group.state}`} data-nonce={group.nonce}>
      <div className="group-head">
        <span className="nonce-pill">
          <span className="muted">nonce</span> <strong className="mono">{group.nonce}</strong>
        </span>
        <span className={`group-state state-${group.state}`}>{stateLabel[group.state]}</span>
        {replacements > 0 ? (
          <span className="group-replacements">
            {replacements} replacement{replacements === 1 ? '' : 's'}
          </span>
        ) : null}
        <span className="group-time muted">{formatTime(group.updatedAt)}</span>
      </div>
      <div className="attempt-header" aria-hidden="true">
        <span>Transaction</span>
        <span>Status</span>
        <span className="num">Fee (gwei)</span>
        <span className="num">Block</span>
        <span className="num">Gas used</span>
      </div>
      <ul className="attempts">
        {group.attempts.map((a) => {
          const facts = receiptFacts(a);
          const selected = a.transactionHash === selectedHash;
          return (
            <li key={a.transactionHash}>
              <button
                type="button"
                className={`attempt-row${selected ? ' is-selected' : ''}${a.status === 'replaced' ? ' is-replaced' : ''}`}
                aria-pressed={selected}
                aria-label={`${a.attempt === 0 ? 'Original' : `Replacement ${a.attempt}`} ${a.transactionHash}, ${badgeStatus(a)}, fee ${formatGwei(a.gasPrice)} gwei${facts.blockNumber === null ? '' : `, block ${facts.blockNumber}`}`}
                data-hash={a.transactionHash}
                data-status={badgeStatus(a)}
                onClick={() => onSelect(a.transactionHash)}
              >
                <span className="attempt-hash">
                  <span className="attempt-no">{a.attempt === 0 ? 'orig' : `#${a.attempt}`}</span>
                  <Hex value={a.transactionHash} head={10} tail={6} />
                </span>
                <span>
                  <StatusBadge status={badgeStatus(a)} />
                </span>
                <span className="num mono">{formatGwei(a.gasPrice)}</span>
                <span className="num mono">{facts.blockNumber === null ? '—' : formatInteger(facts.blockNumber)}</span>
                <span className="num mono">{facts.gasUsed === null ? '—' : formatInteger(facts.gasUsed)}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </li>
  );
});
