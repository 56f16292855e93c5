// Start-up of a configured network, between reading the node's chain id and opening the tracker: compares the parts
// (startup-checks), settles PLATFORM/NETWORK, checks CLIENT_ID, and says whether the service was there at all.
import type { Logger } from '../lib/log.js';
import { ConfigError, type NetworkConfig } from './config.js';
import { checkClientId, compareParts, probeService, unknownClientIdMessage } from './startup-checks.js';

export interface SettledNetwork {
  nodeUrl: string;
  serviceUrl: string;
  clientId: string;
  platform: string;
  network: string;
  /** Null when the service answered /health; else why not (start-up goes on, the tracker link starts unreachable). */
  serviceDown: string | null;
}

export async function settleConfiguredNetwork(net: NetworkConfig, nodeChainId: number, log: Logger): Promise<SettledNetwork> {
  const probe = await probeService(net);
  const health = probe.reachable ? probe.health : null;
  const { platform, network, warnings } = compareParts(net, nodeChainId, health);
  for (const w of warnings) log.warn(w);
  let serviceDown = probe.reachable ? null : probe.reason;
  if (!probe.reachable) {
    // The outage itself is the tracker link's one log line; only the guess made because of it is said here.
    const guessed = [net.platform === null ? 'PLATFORM' : '', net.network === null ? 'NETWORK' : ''].filter(Boolean);
    if (guessed.length) log.warn(`${guessed.join(' and ')} not set and the data service is unreachable: assuming ${platform}/${network} from chain ${nodeChainId}`);
  } else {
    const check = await checkClientId(net.serviceUrl, net.clientId);
    if (check === 'unknown') throw new ConfigError([unknownClientIdMessage(net)]);
    if (check === 'unreachable') serviceDown = `The data service at ${net.serviceUrl} stopped answering`;
  }
  return { nodeUrl: net.nodeUrl, serviceUrl: net.serviceUrl, clientId: net.clientId, platform, network, serviceDown };
}
