// The one sentence under both Send forms that says how the app will price what it signs (the policy sets every fee,
// the form none), so nobody is surprised by a replacement on the dashboard.
import { formatFee } from '../../lib/format.js';
import { useApp } from '../../store/use-app.js';

export function FeeNote({ id }: { id: string }) {
  const policy = useApp((s) => s.settings?.policy);
  return (
    <p id={id} className="hint send-fee-note">
      {policy
        ? `Signed at ${formatFee(policy.initialFeeWei)}; if it is not mined in ${policy.timeoutMs / 1000} s, the app replaces it at a higher fee, never above the cap of ${formatFee(policy.maxFeeWei)}. The gas limit is estimated, and a call that would fail is refused before anything is signed.`
        : 'The fee comes from the replacement policy in Settings; the gas limit is estimated, and a call that would fail is refused before anything is signed.'}
    </p>
  );
}
