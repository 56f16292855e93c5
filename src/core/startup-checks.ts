// The start-up checks of a configured network, run between reading the node's chain id and opening the tracker: the
// data service's /health against the node's chain, PLATFORM/NETWORK against what the service serves, CLIENT_ID against
// the service. A mismatch is a ConfigError naming the variable to change; a service that is down is a state, not an error.
import { jsonRpcCall } from '../lib/json-rpc.js';
import type { Logger } from '../lib/log.js';
import { defaultNetwork } from '../shared/networks.js';
import { ConfigError, type NetworkConfig, type NetworkSetting } from './config.js';
import { DEFAULT_SERVICE_PORT, DEFAULT_SERVICE_URL } from '../shared/defaults.js';

/** What a txdesk data service says about itself on GET /health. */
export interface ServiceHealth {
  chainId: number;
  platform: string;
  network: string;
  confirmations?: number;
  /** Every network a multi-network service serves, the default first (the fields above describe the default). */
  networks?: { platform: string; network: string; chainId: number | null; default?: boolean }[];
}

/**
 * The network of `health` the configured one means: the one named by PLATFORM/NETWORK, else (none named) the one on
 * the node's chain, else the default. A service without `networks` serves only its default.
 */
export function servedNetworkFor(
  net: Pick<NetworkConfig, 'platform' | 'network'>,
  nodeChainId: number,
  health: ServiceHealth,
): ServiceHealth & { isDefault: boolean } {
  const asDefault = { ...health, isDefault: true };
  const list = health.networks ?? [];
  const platform = net.platform ?? health.platform;
  const named =
    net.network !== null
      ? list.find((n) => n.platform === platform && n.network === net.network)
      : list.find((n) => n.platform === platform && n.chainId === nodeChainId);
  if (!named || (named.platform === health.platform && named.network === health.network)) return asDefault;
  return { chainId: named.chainId ?? nodeChainId, platform: named.platform, network: named.network, isDefault: named.default === true };
}

export type ServiceProbe = { reachable: true; health: ServiceHealth } | { reachable: false; reason: string };

const PROBE_TIMEOUT_MS = 5_000;

/** Each setting's environment variable, and its name in the app's settings. */
const names: Record<NetworkSetting, [env: string, saved: string]> = {
  nodeUrl: ['NODE_ENDPOINT', 'node URL'],
  serviceUrl: ['TXDESK_SERVICE_URL', 'service URL'],
  clientId: ['CLIENT_ID', 'client ID'],
  platform: ['PLATFORM', 'platform'],
  network: ['NETWORK', 'network'],
};

/** How a message names a setting: the environment variable, or the app's saved setting it came from. */
export function settingName(net: Pick<NetworkConfig, 'origin'>, key: NetworkSetting): string {
  return net.origin[key] === 'env' ? names[key][0] : `the ${names[key][1]} saved in the app`;
}

/** GET /health of the data service. Unreachable (refused, timeout, 5xx of a proxy) is a state; an answer that is not a
 * txdesk service's (an Ethereum node, a web page) is a ConfigError naming TXDESK_SERVICE_URL. */
export async function probeService(net: Pick<NetworkConfig, 'serviceUrl' | 'origin'>, timeoutMs = PROBE_TIMEOUT_MS): Promise<ServiceProbe> {
  const name = settingName(net, 'serviceUrl');
  let res: Response;
  try {
    res = await fetch(`${net.serviceUrl}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    return { reachable: false, reason: `Cannot reach the data service at ${net.serviceUrl} (${causeOf(e)})` };
  }
  const body = (await res.json().catch(() => null)) as Partial<ServiceHealth> | null;
  if (res.ok && body && Number.isInteger(body.chainId) && typeof body.platform === 'string' && typeof body.network === 'string') {
    return { reachable: true, health: body as ServiceHealth };
  }
  if (res.status >= 500) return { reachable: false, reason: `The data service at ${net.serviceUrl} answered HTTP ${res.status}` };
  const nodeChain = await ethChainId(net.serviceUrl, timeoutMs);
  if (nodeChain !== null) {
    throw new ConfigError([
      `${name} (${net.serviceUrl}) is an Ethereum node (chain ${nodeChain}), not a txdesk data service: set ${name} to the ` +
        `URL \`txdesk service\` prints (port ${DEFAULT_SERVICE_PORT} by default) and NODE_ENDPOINT to the node.`,
    ]);
  }
  throw new ConfigError([
    `${name} (${net.serviceUrl}) does not answer GET /health like a txdesk data service (HTTP ${res.status}): set it to the ` +
      `URL \`txdesk service\` prints, e.g. ${DEFAULT_SERVICE_URL}.`,
  ]);
}

/**
 * Compares the node's chain with the service's and settles PLATFORM/NETWORK: unset ones come from the service (or,
 * while it is unreachable, from the node's chain id); set ones must match it. Throws ConfigError, one line per problem.
 * A value saved in the app that does not match is not fatal (the app could never start to change it): the service's
 * is used and a warning says so.
 */
export function compareParts(
  net: NetworkConfig,
  nodeChainId: number,
  serviceHealth: ServiceHealth | null,
): { platform: string; network: string; isDefault: boolean; warnings: string[] } {
  if (!serviceHealth)
    return { platform: net.platform ?? 'ethereum', network: net.network ?? defaultNetwork(nodeChainId), isDefault: true, warnings: [] };
  const health = servedNetworkFor(net, nodeChainId, serviceHealth);
  const served = `${health.platform}/${health.network}`;
  if (health.chainId !== nodeChainId) {
    throw new ConfigError([
      `${settingName(net, 'nodeUrl')} (${net.nodeUrl}) is on chain ${nodeChainId} but ${settingName(net, 'serviceUrl')} ` +
        `(${net.serviceUrl}) serves chain ${health.chainId} (${served}): point both at the same network.`,
    ]);
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const key of ['platform', 'network'] as const) {
    const want = net[key];
    if (want === null || want === health[key]) continue;
    const name = settingName(net, key);
    if (net.origin[key] === 'env') {
      problems.push(
        `${name}=${want} but the data service at ${net.serviceUrl} serves ${served}: set ${name}=${health[key]}, or unset it to take the service's.`,
      );
    } else {
      warnings.push(
        `${name} (${want}) does not match the data service at ${net.serviceUrl}, which serves ${served}: ` +
          `using ${health[key]}; change it in the app's settings.`,
      );
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return { platform: health.platform, network: health.network, isDefault: health.isDefault, warnings };
}

export type ClientIdCheck = 'accepted' | 'unknown' | 'unreachable';

/** Asks the service whether it knows `clientId`: one listing call of size 1 (401 = unknown). */
export async function checkClientId(serviceUrl: string, clientId: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ClientIdCheck> {
  const url = `${serviceUrl}/nft/v1/accounts/0x0000000000000000000000000000000000000000/tokens?clientId=${encodeURIComponent(clientId)}&size=1`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    if (res.status === 401) return 'unknown';
    return res.status >= 500 ? 'unreachable' : 'accepted';
  } catch {
    return 'unreachable';
  }
}

/** The one sentence for a client ID the service does not know. */
export function unknownClientIdMessage(net: Pick<NetworkConfig, 'serviceUrl' | 'origin'>): string {
  const name = settingName(net, 'clientId');
  return (
    `${name} is not known to the data service at ${net.serviceUrl}: run \`txdesk login\` then \`txdesk ` +
    `account:describe\` with TXDESK_ENDPOINT=${net.serviceUrl}, and set ${name} to the ClientId it shows.`
  );
}

async function ethChainId(url: string, timeoutMs: number): Promise<number | null> {
  const result = await jsonRpcCall(url, 'eth_chainId', [], { timeoutMs }).catch(() => null);
  return typeof result === 'string' && /^0x[0-9a-f]+$/i.test(result) ? Number(BigInt(result)) : null;
}

/** The low-level cause of a failed fetch in a few words (ECONNREFUSED, timed out). */
export function causeOf(e: unknown): string {
  const err = e as { name?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return 'no answer within 5 s';
  return err?.cause?.code ?? err?.cause?.message ?? (e instanceof Error ? e.message : String(e));
}

/** The network as it runs: PLATFORM/NETWORK settled, and whether it is the service's default. */
export type SettledNetwork = Omit<NetworkConfig, 'platform' | 'network'> & { platform: string; network: string; isDefault: boolean };

/** Runs the checks in order; `serviceDown` is null when the service answered, else why not (start-up goes on, the
 * tracker link starts unreachable). */
export async function settleConfiguredNetwork(
  net: NetworkConfig,
  nodeChainId: number,
  log: Logger,
): Promise<{ net: SettledNetwork; serviceDown: string | null }> {
  const probe = await probeService(net);
  const health = probe.reachable ? probe.health : null;
  const { platform, network, isDefault, warnings } = compareParts(net, nodeChainId, health);
  for (const w of warnings) log.warn(w);
  let serviceDown = probe.reachable ? null : probe.reason;
  if (!probe.reachable) {
    // The outage itself is the tracker link's one log line; only the guess made because of it is said here.
    const guessed = [net.platform === null ? 'PLATFORM' : '', net.network === null ? 'NETWORK' : ''].filter(Boolean);
    if (guessed.length)
      log.warn(
        `${guessed.join(' and ')} not set and the data service is unreachable: assuming ${platform}/${network} from chain ${nodeChainId}`,
      );
  } else {
    const check = await checkClientId(net.serviceUrl, net.clientId);
    if (check === 'unknown') throw new ConfigError([unknownClientIdMessage(net)]);
    if (check === 'unreachable') serviceDown = `The data service at ${net.serviceUrl} stopped answering`;
  }
  return { net: { ...net, platform, network, isDefault }, serviceDown };
}
