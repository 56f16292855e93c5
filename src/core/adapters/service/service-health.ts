// The data service's GET /health as the app's dashboard shows it: reachable or why not, the index lag and the
// instance's roles. Never throws: a service that is down, or is not a txdesk service, is an answer with a reason.
import type { ServiceHealthInfo } from '../../../shared/desktop-api.js';
import type { NetworkConfig } from '../../config.js';
import { probeService } from '../../startup-checks.js';

const HEALTH_TIMEOUT_MS = 5_000;

/** `shown`: the network the app shows; its entry of /health's `networks` is read when the service lists networks. */
export async function readServiceHealth(
  net: Pick<NetworkConfig, 'serviceUrl' | 'origin'>,
  shown?: { platform: string; network: string },
): Promise<ServiceHealthInfo> {
  const down = (reason: string): ServiceHealthInfo => ({
    url: net.serviceUrl,
    reachable: false,
    reason,
    chainId: null,
    indexLagBlocks: null,
    roles: [],
  });
  try {
    const probe = await probeService(net, HEALTH_TIMEOUT_MS);
    if (!probe.reachable) return down(`${probe.reason}; the app keeps trying.`);
    const top = probe.health as typeof probe.health & { indexLagBlocks?: unknown; roles?: unknown; networks?: unknown };
    // A service before networks has only the top-level fields (its one network's).
    const entry =
      Array.isArray(top.networks) && shown
        ? (top.networks as Record<string, unknown>[]).find((n) => n.platform === shown.platform && n.network === shown.network)
        : undefined;
    const roles = (list: unknown) => (Array.isArray(list) && list.length === 0 ? ['follower'] : list);
    const h = entry
      ? {
          chainId: typeof entry.chainId === 'number' ? entry.chainId : top.chainId,
          indexLagBlocks: entry.indexLagBlocks,
          roles: roles(entry.roles),
        }
      : top;
    return {
      url: net.serviceUrl,
      reachable: true,
      reason: null,
      chainId: h.chainId,
      indexLagBlocks: typeof h.indexLagBlocks === 'number' ? h.indexLagBlocks : null,
      roles: Array.isArray(h.roles) ? h.roles.filter((r): r is string => typeof r === 'string') : [],
    };
  } catch (e) {
    // A ConfigError: the URL answers, but not like a txdesk data service; its sentence says what to set.
    return down(e instanceof Error ? e.message : String(e));
  }
}
