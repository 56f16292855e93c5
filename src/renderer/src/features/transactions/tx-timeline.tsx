// One transaction's history as a vertical timeline: signed, sent, stuck, each replacement decision, mined, confirmed;
// event names in the app's one vocabulary, times as ages with the full date on hover.
import type { TxEvent, TxEventKind } from '../../../../shared/tx-record.js';
import { RelTime } from '../../components/rel-time.js';
import { formatOffset, formatTime } from '../../lib/format.js';

const tone: Record<TxEventKind, string> = {
  signed: 'neutral',
  broadcast: 'info',
  'broadcast-failed': 'danger',
  pending: 'warning',
  receipt: 'info',
  confirmation: 'success',
  replaced: 'muted',
  'replacement-sent': 'accent',
  'replacement-skipped': 'danger',
  reorged: 'danger',
  'nonce-used-elsewhere': 'danger',
  rebroadcast: 'info',
};

/** Event names, in the words the cards use (Sending, Stuck, Mined, Confirmed, Replaced). */
export const eventWords: Record<TxEventKind, string> = {
  signed: 'Signed',
  broadcast: 'Sent to the node',
  'broadcast-failed': 'Node refusal',
  // Blocks keep coming while a transaction waits: what it lacked is a place in one (outbid), not a block.
  pending: 'Stuck: not mined within the timeout',
  receipt: 'Mined',
  confirmation: 'Confirmed',
  replaced: 'Replaced',
  'replacement-sent': 'Replacement sent',
  'replacement-skipped': 'Not replaced',
  reorged: 'Block reorganised away',
  'nonce-used-elsewhere': 'Replaced outside the app',
  rebroadcast: 'Sent to the node again',
};

export function TxTimeline({ history }: { history: TxEvent[] }) {
  if (history.length === 0) return <p className="muted">No events yet.</p>;
  const start = history[0]!.at;
  return (
    <ol className="timeline" aria-label="History">
      {history.map((e, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a history only grows at its end; two events may share a time.
        <li key={`${e.at}-${i}`} className={`timeline-item tone-${tone[e.kind] ?? 'neutral'}`} data-kind={e.kind}>
          <span className="timeline-dot" aria-hidden="true" />
          <div className="timeline-body">
            <div className="timeline-head">
              <span className="timeline-kind">{eventWords[e.kind] ?? e.kind}</span>
              <span className="timeline-time">
                <span className="mono">{formatTime(e.at)}</span>
                {i > 0 ? <span className="muted"> {formatOffset(start, e.at)}</span> : null}
                {' · '}
                <RelTime iso={e.at} />
              </span>
            </div>
            <p className="timeline-summary">{e.summary}</p>
          </div>
        </li>
      ))}
    </ol>
  );
}
