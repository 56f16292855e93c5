// The approval dialog: whenever a local tool's request waits (configured networks), it shows the oldest one, what it
// asks, who asks and how long is left, with Decline, Approve and, for a transaction, Approve with a daily allowance.
// Escape does not answer: a request leaves only when it is answered or its time runs out (then the core declines it).
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ApprovalDecision, ApprovalRequest } from '../../../../shared/approvals.js';
import { Modal } from '../../components/modal.js';
import { Spinner } from '../../components/states.js';
import { useApp } from '../../store/use-app.js';
import { AllowanceForm } from './allowance-form.js';
import { ApprovalDetails } from './approval-details.js';
import { requestTitle, secondsLeft, stillWaiting, timeLeftText } from './approval-format.js';

/** A clock that ticks every second while `on`, for the time left. */
function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [on]);
  return now;
}

/** The core no longer had the request: said in one sentence, as a notice, since the dialog may have nothing left. */
const GONE = 'That request is no longer waiting: its time ran out or it was answered in another window, and the tool has been told.';

function RequestPanel({ request, now, others }: { request: ApprovalRequest; now: number; others: number }) {
  const decide = useApp((s) => s.decideApproval);
  const notify = useApp((s) => s.notify);
  const [busy, setBusy] = useState<'decline' | 'approve' | 'allow' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const declineRef = useRef<HTMLButtonElement>(null);
  // Focus starts on Decline, so Enter alone never approves; after the dialog has opened (showModal runs after this).
  useEffect(() => {
    const t = setTimeout(() => declineRef.current?.focus());
    return () => clearTimeout(t);
  }, []);

  const answer = async (which: NonNullable<typeof busy>, decision: ApprovalDecision) => {
    setBusy(which);
    setError(null);
    const failed = await decide(request.id, decision);
    setBusy(null);
    if (!failed) return;
    if (failed.code === 'NOT_FOUND') notify('error', GONE);
    else setError(failed.message);
  };
  const left = secondsLeft(request.expiresAt, now);

  return (
    <div className="dialog-body approval-body">
      <p className="approval-meta">
        Asked by <strong data-testid="approval-requester">{request.requester.label}</strong>.{' '}
        <span className={left <= 15 ? 'text-warning' : undefined} data-testid="approval-time-left">
          Declined automatically in {timeLeftText(left)}
        </span>
        {others > 0 ? (
          <span className="approval-queue" data-testid="approval-others">
            {' '}
            · {others} more {others === 1 ? 'request waits' : 'requests wait'} after this one
          </span>
        ) : null}
      </p>
      <ApprovalDetails request={request} />
      {error ? (
        <p className="form-error" role="alert" data-testid="approval-error">
          {error}
        </p>
      ) : null}
      {request.kind === 'transaction' ? (
        <AllowanceForm
          busy={busy !== null}
          allowing={busy === 'allow'}
          onAllow={(wei) => void answer('allow', { approve: true, allowPerDayWei: wei })}
        />
      ) : null}
      <div className="dialog-actions approval-actions">
        <button
          ref={declineRef}
          type="button"
          className="btn btn-secondary"
          disabled={busy !== null}
          onClick={() => void answer('decline', { approve: false })}
          data-testid="approval-decline"
        >
          {busy === 'decline' ? <Spinner label="Declining" /> : null}
          Decline
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy !== null}
          onClick={() => void answer('approve', { approve: true })}
          data-testid="approval-approve"
        >
          {busy === 'approve' ? <Spinner label="Approving" /> : null}
          {request.kind === 'transaction' ? 'Approve' : 'Approve and sign'}
        </button>
      </div>
    </div>
  );
}

export function ApprovalDialog() {
  const approvals = useApp((s) => s.approvals);
  const now = useNow(approvals.length > 0);
  const waiting = useMemo(() => stillWaiting(approvals, now), [approvals, now]);
  const request = waiting[0];
  if (!request) return null;
  return (
    <Modal title={requestTitle(request.kind)} onClose={() => undefined} closeButton={false} keepOpen wide testId="approval-dialog">
      {/* A new request is a new panel: its answer state and focus start over. */}
      <RequestPanel key={request.id} request={request} now={now} others={waiting.length - 1} />
    </Modal>
  );
}
