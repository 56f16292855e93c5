// "Approve and allow this tool up to [amount] ETH per day": the amount typed in ETH becomes wei exactly, and the
// approval carries it as a standing rule for the requesting tool.
import { useId, useState, type FormEvent } from 'react';
import { Spinner } from '../../components/states.js';
import { formatWeiAsEther } from '../../lib/eth-amount.js';
import { parseAllowance } from './approval-format.js';

export function AllowanceForm({ busy, allowing, onAllow }: { busy: boolean; allowing: boolean; onAllow: (wei: string) => void }) {
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const parsed = parseAllowance(amount);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!parsed.ok) return setError(parsed.error);
    onAllow(parsed.wei);
  };
  return (
    <form className="approval-allow" onSubmit={submit} noValidate>
      <div className="approval-allow-row">
        <label htmlFor={id}>Daily limit (ETH)</label>
        <input
          id={id}
          name="allowPerDay"
          className="input mono"
          inputMode="decimal"
          placeholder="0.1"
          autoComplete="off"
          value={amount}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
          onChange={(e) => {
            setAmount(e.target.value);
            setError(null);
          }}
        />
        <button type="submit" className="btn btn-secondary" disabled={busy} data-testid="approval-allow">
          {allowing ? <Spinner label="Approving" /> : null}
          Approve and allow this tool up to {parsed.ok ? formatWeiAsEther(parsed.wei) : '…'} ETH per day
        </button>
      </div>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
      <p id={`${id}-hint`} className="hint">
        Until you revoke it in Settings, this tool&apos;s transactions then go through without asking while what they can cost in 24 hours
        stays within the limit (this one counts). Signatures always ask.
      </p>
    </form>
  );
}
