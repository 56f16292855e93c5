// The standing rules that let a tool's transactions through without asking: who, how much per day, how much of it the
// last 24 hours used, since when; each with Revoke. Re-read when a new transaction may have spent under a rule.
import { useEffect, useState } from 'react';
import type { ApprovalRule } from '../../../../shared/approvals.js';
import { RelTime } from '../../components/rel-time.js';
import { ErrorState, Spinner } from '../../components/states.js';
import { formatWeiAsEther } from '../../lib/eth-amount.js';
import { useApp } from '../../store/use-app.js';

function RuleRow({ rule }: { rule: ApprovalRule }) {
  const revoke = useApp((s) => s.revokeApprovalRule);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <li className="approval-rule" data-testid="approval-rule">
      <dl className="facts approval-rule-facts">
        <div className="span-all">
          <dt>Tool</dt>
          <dd>{rule.requester.label}</dd>
        </div>
        <div>
          <dt>Limit per day</dt>
          <dd className="mono">{formatWeiAsEther(rule.maxPerDayWei)} ETH</dd>
        </div>
        <div>
          <dt>Used, last 24 h</dt>
          <dd className="mono">{formatWeiAsEther(rule.spentWei)} ETH</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <RelTime iso={rule.createdAt} />
          </dd>
        </div>
      </dl>
      <div className="approval-rule-actions">
        {error ? (
          <p className="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <button
          type="button"
          className="btn btn-secondary btn-small"
          disabled={busy}
          aria-label={`Revoke the rule for ${rule.requester.label}`}
          onClick={async () => {
            setBusy(true);
            setError(null);
            const failed = await revoke(rule.id);
            setBusy(false);
            if (failed) setError(failed.message);
          }}
        >
          {busy ? <Spinner label="Revoking" /> : null}
          Revoke
        </button>
      </div>
    </li>
  );
}

export function ApprovalRulesList() {
  const rules = useApp((s) => s.approvalRules);
  const state = useApp((s) => s.approvalRulesState);
  const error = useApp((s) => s.approvalRulesError);
  const load = useApp((s) => s.loadApprovalRules);
  // A transaction let through under a rule arrives as a new record: what the rule has used changes with it.
  const records = useApp((s) => Object.keys(s.txs).length);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `records` is the trigger: a new transaction may have spent from a rule.
  useEffect(() => void load(), [load, records]);

  if (state === 'error' && rules.length === 0)
    return <ErrorState title="Could not load the standing rules" error={error} onRetry={() => void load()} />;
  if (state !== 'ready' && rules.length === 0) return <p className="hint">Loading the standing rules…</p>;
  if (rules.length === 0) {
    return (
      <p className="hint" data-testid="approval-rules-empty">
        No standing rules: every transaction a tool asks for waits for you. Approve one with a daily limit to add a rule.
      </p>
    );
  }
  return (
    <ul className="approval-rules" aria-label="Standing rules">
      {rules.map((r) => (
        <RuleRow key={r.id} rule={r} />
      ))}
    </ul>
  );
}
