// The data service's GET /health as the app's dashboard shows it: reachable or why not, the index lag and the
// instance's roles. Never throws: a service that is down, or is not a txdesk service, is an answer with a reason.
import type { ServiceHealthInfo } from '../../../shared/desktop-api.js';
import type { NetworkConfig } from '../../config.js';
import { probeService } from '../../startup-checks.js';

const HEALTH_TIMEOUT_MS = 5_000;

export async function readServiceHealth(net: Pick<NetworkConfig, 'serviceUrl' | 'origin'>): Promise<ServiceHealthInfo> {
  const down = (reason: string): ServiceHealthInfo => ({ url: net.serviceUrl, reachable: false, reason, chainId: null, indexLagBlocks: null, roles: [] });
  try {
    const probe = await probeService(net, HEALTH_TIMEOUT_MS);
    if (!probe.reachable) return down(`${probe.reason}; the app keeps trying.`);
    const h = probe.health as typeof probe.health & { indexLagBlocks?: unknown; roles?: unknown };
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
