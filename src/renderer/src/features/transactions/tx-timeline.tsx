// One transaction's history as a vertical timeline: signed, broadcast, pending, each replacement decision, receipt.
import type { TxEvent, TxEventKind } from '../../../../shared/tx-record.js';
import { formatOffset, formatTime } from '../../lib/format.js';

const tone: Record<TxEventKind, string> = {
  signed: 'neutral',
  broadcast: 'info',
  'broadcast-failed': 'danger',
  pending: 'warning',
  receipt: 'success',
  confirmation: 'success',
  replaced: 'muted',
  'replacement-sent': 'accent',
  'replacement-skipped': 'warning',
  reorged: 'danger',
  'nonce-used-elsewhere': 'danger',
  rebroadcast: 'info',
};

export function TxTimeline({ history }: { history: TxEvent[] }) {
  if (history.length === 0) return <p className="muted">No events yet.</p>;
  const start = history[0]!.at;
  return (
    <ol className="timeline" aria-label="History">
      {history.map((e, i) => (
        <li key={`${e.at}-${i}`} className={`timeline-item tone-${tone[e.kind] ?? 'neutral'}`} data-kind={e.kind}>
          <span className="timeline-dot" aria-hidden="true" />
          <div className="timeline-body">
            <div className="timeline-head">
              <span className="timeline-kind">{e.kind.replace(/-/g, ' ')}</span>
              <time dateTime={e.at} className="timeline-time">
                {formatTime(e.at)}
                {i > 0 ? <span className="muted"> {formatOffset(start, e.at)}</span> : null}
              </time>
            </div>
            <p className="timeline-summary">{e.summary}</p>
          </div>
        </li>
      ))}
    </ol>
  );
}
