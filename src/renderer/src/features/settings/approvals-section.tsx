// Tool requests: how a script connects (snippets to copy), how long a local tool's request waits for an answer before
// it is declined (approvalTimeoutMs), and the standing rules that let a tool's transactions through without asking.
import { useEffect, useState, type FormEvent } from 'react';
import type { AppSettings } from '../../../../shared/desktop-api.js';
import { useApp } from '../../store/use-app.js';
import { ApprovalRulesList } from './approval-rules-list.js';
import { ToolSnippetsPanel } from './tool-snippets-panel.js';
import { parseTimeoutSeconds, timeoutSecondsText, TIMEOUT_RULE } from './approval-timeout.js';
import { apiErrorToFields } from './field-errors.js';
import { Card, Field, SaveBar, idleSave, type SaveState } from './form-kit.js';
import { useDirty } from './use-dirty.js';

export function ApprovalsSection({ settings }: { settings: AppSettings }) {
  const save = useApp((s) => s.saveSettings);
  const embedded = useApp((s) => s.info?.mode === 'embedded');
  const saved = timeoutSecondsText(settings.approvalTimeoutMs);
  const [seconds, setSeconds] = useState(saved);
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  const [state, setState] = useState<SaveState>(idleSave);
  // The saved value changed (this save, another window, a script): the field shows it.
  useEffect(() => setSeconds(saved), [saved]);
  const dirty = seconds.trim() !== saved;
  useDirty('the approval time', dirty);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseTimeoutSeconds(seconds);
    if (!parsed.ok) {
      setFieldError(parsed.error);
      setState({ busy: false, error: { code: 'INVALID_PARAMETER', message: 'Nothing was saved: fix the marked field.' }, saved: false });
      return;
    }
    setState({ busy: true, error: null, saved: false });
    const error = await save({ approvalTimeoutMs: parsed.ms });
    if (error) {
      const mapped = apiErrorToFields(error, ['approvalTimeoutMs']);
      setFieldError(mapped.fields.approvalTimeoutMs ? TIMEOUT_RULE : undefined);
      setState({
        busy: false,
        error: { code: error.code, message: mapped.form ?? 'Nothing was saved: fix the marked field.' },
        saved: false,
      });
    } else setState({ busy: false, error: null, saved: true });
  };

  return (
    <Card
      id="settings-approvals"
      title="Tool requests"
      description={
        embedded
          ? 'On this dev chain a local tool’s transactions and signatures (through /rpc) are signed at once; on a ' +
            'configured network each waits for your approval in a dialog.'
          : 'Each transaction and signature a local tool asks for through /rpc waits for your approval in a dialog.'
      }
    >
      <form onSubmit={(e) => void submit(e)} className="form" noValidate>
        <div className="form-grid">
          <Field label="Approval time (seconds)" hint="A request nobody answers within this time is declined." error={fieldError}>
            {(p) => (
              <input
                {...p}
                className="input mono"
                name="approvalTimeoutSeconds"
                inputMode="numeric"
                value={seconds}
                onChange={(e) => {
                  setSeconds(e.target.value);
                  setFieldError(undefined);
                  setState(idleSave);
                }}
              />
            )}
          </Field>
        </div>
        <SaveBar state={state} dirty={dirty} />
      </form>
      <ToolSnippetsPanel />
      <div className="approval-rules-block">
        <h3 className="section-title">Standing rules</h3>
        <p className="hint">Standing rules apply only on a configured network and only to transactions; signatures always ask.</p>
        <ApprovalRulesList />
      </div>
    </Card>
  );
}
