// Which network a screen shows, in its header: "ethereum/local-2 · chain 31338", so two chains are never confused.
import { useApp } from '../store/use-app.js';
import { networkLabel } from '../lib/network-words.js';

export function NetworkBadge() {
  const info = useApp((s) => s.info);
  if (!info) return null;
  return (
    <span className="network-badge" data-testid="network-badge" data-chain-id={info.chainId} title="The network this screen shows; switch in Settings → Networks">
      <span className="dot dot-success" aria-hidden="true" />
      {networkLabel(info)}
    </span>
  );
}
