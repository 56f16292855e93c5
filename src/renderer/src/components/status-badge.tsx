// The coloured badge for a transaction's tracker status.
import type { BadgeStatus } from '../store/tx-logic.js';

const labels: Record<BadgeStatus, string> = {
  sent: 'Sent',
  pending: 'Pending',
  receipt: 'Mined',
  confirmation: 'Confirmed',
  replaced: 'Replaced',
};

export function StatusBadge({ status }: { status: BadgeStatus }) {
  return (
    <span className={`badge badge-${status}`} data-status={status}>
      <span className="badge-dot" aria-hidden="true" />
      {labels[status]}
    </span>
  );
}
