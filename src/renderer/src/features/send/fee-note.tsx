// The one sentence under both Send forms that says how the app will price what it signs (the policy sets every fee,
// the form at most the market speed), so nobody is surprised by a replacement on the dashboard.
import type { Speed } from '../../../../shared/tx-request.js';
import { useApp } from '../../store/use-app.js';
import { feeNoteText } from './fee-note-text.js';

export function FeeNote({ id, speed }: { id: string; speed: Speed | null }) {
  const policy = useApp((s) => s.settings?.policy);
  return (
    <p id={id} className="hint send-fee-note">
      {feeNoteText(policy, speed)}
    </p>
  );
}
