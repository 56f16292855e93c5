// The networks the data service serves (GET /nft/v1/networks, no client ID needed), as the app's domain reads them.
// Never throws: a service that is down, or one without the route (an older one serving one network), answers null.
import type { NetworkState } from '../../../shared/desktop-api.js';
import type { ServedNetwork } from '../../domain/networks.js';

const NETWORKS_TIMEOUT_MS = 5_000;
const STATES: readonly NetworkState[] = ['starting', 'serving', 'unreachable', 'wrong-chain'];

export async function readServedNetworks(serviceUrl: string, timeoutMs = NETWORKS_TIMEOUT_MS): Promise<ServedNetwork[] | null> {
  try {
    const res = await fetch(`${serviceUrl}/nft/v1/networks`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    const body = (await res.json()) as { data?: unknown };
    if (!Array.isArray(body.data)) return null;
    return body.data.flatMap((n: Record<string, unknown>) =>
      typeof n?.platform === 'string' && typeof n.network === 'string'
        ? [
            {
              platform: n.platform,
              network: n.network,
              chainId: Number.isInteger(n.chainId) ? (n.chainId as number) : null,
              isDefault: n.default === true,
              state: STATES.includes(n.state as NetworkState) ? (n.state as NetworkState) : 'unknown',
            },
          ]
        : [],
    );
  } catch {
    return null;
  }
}
