// One nonce: its state in the app's one vocabulary with how long it has been so, how it got there ("Mined after 1
// replacement (+80%)"), what to do when it needs you, speed up and cancel while it is open, what it does (recipient and
// value, or the call), and every attempt with its state, fee, block and gas used (rows select the timeline).
import { memo, type KeyboardEvent } from 'react';
import { formatFee, formatInteger } from '../../lib/format.js';
import { CopyButton } from '../../components/copy-button.js';
import { Hex } from '../../components/hex.js';
import { RelTime } from '../../components/rel-time.js';
import { StateBadge } from '../../components/state-badge.js';
import { attemptState, attemptWord, stateLabel, stateTone, stateWords } from '../../store/nonce-state.js';
import { receiptFacts, type NonceGroup } from '../../store/tx-logic.js';
import { NonceActions } from './nonce-actions.js';
import { feeLine, nonceStory } from './nonce-story.js';
import { payloadRecord } from './tx-payload.js';
import { TxWhat } from './tx-what.js';

/** "waiting 3 min", "confirmed 2 min ago": the age that matters for each state. */
function Age({ group }: { group: NonceGroup }) {
  const s = group.state;
  if (s.open) return <RelTime iso={s.problem?.since ?? group.createdAt} prefix={s.name === 'needs-you' ? 'stuck' : 'waiting'} suffix="" />;
  return <RelTime iso={s.lead.updatedAt} prefix={stateWords[s.name].toLowerCase()} />;
}

export const NonceGroupCard = memo(function NonceGroupCard({
  group,
  selectedHash,
  tabbableHash,
  onSelect,
  onRowFocus,
  onRowKey,
}: {
  group: NonceGroup;
  selectedHash: string | null;
  /** The one row of the whole list that Tab reaches (roving focus). */
  tabbableHash: string | null;
  onSelect: (hash: string) => void;
  onRowFocus: (hash: string) => void;
  onRowKey: (e: KeyboardEvent<HTMLButtonElement>) => void;
}) {
  const { state } = group;
  const headingId = `nonce-${group.key.replace(/[^a-z0-9]/gi, '-')}`;
  // Replacements and speed-ups send the same payload; a cancel's 0 ETH to yourself is its row's word, not the nonce's.
  const payload = payloadRecord(group.attempts);
  const story = nonceStory(group.attempts, state);
  const fee = feeLine(group.attempts, state.lead);
  return (
    <li className={`group-card edge-${stateTone(state.name)}`} data-nonce={group.nonce} data-state={state.name} aria-labelledby={headingId}>
      <div className="group-head">
        <h3 className="group-title" id={headingId}>
          <span className="sr-only">
            Nonce {group.nonce}: {stateLabel(state)}
          </span>
          <span aria-hidden="true" className="nonce-pill">
            <span className="muted">nonce</span> <strong className="mono">{group.nonce}</strong>
          </span>
        </h3>
        <span aria-hidden="true">
          <StateBadge state={state.name} reason={state.reason} />
        </span>
        <span className="group-time">
          <Age group={group} />
        </span>
        <NonceActions state={state} nonce={group.nonce} part="buttons" />
      </div>
      {story ? (
        <p className={`group-story tone-${stateTone(state.name)}`} data-testid="nonce-story">
          {story}
        </p>
      ) : null}
      {fee ? (
        <p className="group-fee muted" data-testid="fee-line">
          {fee}
        </p>
      ) : null}
      {payload && payload.to !== undefined ? (
        <p className="group-what" data-testid="tx-what">
          <TxWhat record={payload} />
        </p>
      ) : null}
      <NonceActions state={state} nonce={group.nonce} part="needs-you" />
      <div className="attempt-header" aria-hidden="true">
        <span>Attempt</span>
        <span>State</span>
        <span className="num">Fee</span>
        <span className="num">Block</span>
        <span className="num">Gas used</span>
      </div>
      <ul className="attempts">
        {group.attempts.map((a) => {
          const facts = receiptFacts(a);
          const selected = a.transactionHash === selectedHash;
          const word = attemptState(a, state);
          return (
            <li key={a.transactionHash} className="attempt-item">
              {/* Beside the row, not in it (a button cannot hold a button); keyboard users press C on the row instead. */}
              <span className="attempt-copy">
                <CopyButton value={a.transactionHash} label="transaction hash" tabbable={false} />
              </span>
              <button
                type="button"
                className={`attempt-row${selected ? ' is-selected' : ''}${word === 'replaced' ? ' is-replaced' : ''}`}
                aria-pressed={selected}
                data-hash={a.transactionHash}
                data-status={a.status ?? 'sent'}
                data-state={word}
                tabIndex={a.transactionHash === tabbableHash ? 0 : -1}
                onClick={() => onSelect(a.transactionHash)}
                onFocus={() => onRowFocus(a.transactionHash)}
                onKeyDown={onRowKey}
              >
                <span className="attempt-hash">
                  <span className="attempt-no">{attemptWord(a)}</span>
                  <Hex value={a.transactionHash} head={6} tail={4} />
                </span>
                <span>
                  <StateBadge state={word} />
                </span>
                <span className="num mono">
                  <span className="sr-only">fee </span>
                  {formatFee(a.gasPrice)}
                </span>
                <span className="num mono">
                  <span className="sr-only">block </span>
                  {facts.blockNumber === null ? '—' : formatInteger(facts.blockNumber)}
                </span>
                <span className="num mono">
                  <span className="sr-only">gas used </span>
                  {facts.gasUsed === null ? '—' : formatInteger(facts.gasUsed)}
                </span>
                <span className="attempt-facts" aria-hidden="true">
                  fee {formatFee(a.gasPrice)}
                  {facts.blockNumber === null ? '' : ` · block ${formatInteger(facts.blockNumber)}`}
                  {facts.gasUsed === null ? '' : ` · gas ${formatInteger(facts.gasUsed)}`}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </li>
  );
});
