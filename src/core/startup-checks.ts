// Start-up checks that compare the parts of a configured network before anything is sent: the data service's /health
// against the node's chain id, PLATFORM/NETWORK against what the service serves, CLIENT_ID against the service.
// A mismatch is a ConfigError naming the variable to change; a service that is down is a state, not an error.
import { jsonRpcCall } from '../lib/json-rpc.js';
import { defaultNetwork } from '../shared/networks.js';
import { ConfigError, type NetworkConfig, type NetworkSetting } from './config.js';

/** What a txdesk data service says about itself on GET /health. */
export interface ServiceHealth {
  chainId: number;
  platform: string;
  network: string;
  confirmations?: number;
}

export type ServiceProbe = { reachable: true; health: ServiceHealth } | { reachable: false; reason: string };

const PROBE_TIMEOUT_MS = 5_000;

const envNames: Record<NetworkSetting, string> = {
  nodeUrl: 'NODE_ENDPOINT',
  serviceUrl: 'TXDESK_SERVICE_URL',
  clientId: 'CLIENT_ID',
  platform: 'PLATFORM',
  network: 'NETWORK',
};
const savedNames: Record<NetworkSetting, string> = {
  nodeUrl: 'the node URL saved in the app',
  serviceUrl: 'the service URL saved in the app',
  clientId: 'the client ID saved in the app',
  platform: 'the platform saved in the app',
  network: 'the network saved in the app',
};

/** How a message names a setting: the environment variable, or the app's saved setting it came from. */
export function settingName(net: Pick<NetworkConfig, 'origin'>, key: NetworkSetting): string {
  return net.origin[key] === 'env' ? envNames[key] : savedNames[key];
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
      `${name} (${net.serviceUrl}) is an Ethereum node (chain ${nodeChain}), not a txdesk data service: set ${name} to the URL \`txdesk service\` prints (port 4000 by default) and NODE_ENDPOINT to the node.`,
    ]);
  }
  throw new ConfigError([
    `${name} (${net.serviceUrl}) does not answer GET /health like a txdesk data service (HTTP ${res.status}): set it to the URL \`txdesk service\` prints, e.g. http://127.0.0.1:4000.`,
  ]);
}

/**
 * Compares the node's chain with the service's and settles PLATFORM/NETWORK: unset ones come from the service (or,
 * while it is unreachable, from the node's chain id); set ones must match it. Throws ConfigError, one line per problem.
 * A value saved in the app that does not match is not fatal (the app could never start to change it): the service's
 * is used and a warning says so.
 */
export function compareParts(net: NetworkConfig, nodeChainId: number, health: ServiceHealth | null): { platform: string; network: string; warnings: string[] } {
  if (!health) return { platform: net.platform ?? 'ethereum', network: net.network ?? defaultNetwork(nodeChainId), warnings: [] };
  const served = `${health.platform}/${health.network}`;
  if (health.chainId !== nodeChainId) {
    throw new ConfigError([
      `${settingName(net, 'nodeUrl')} (${net.nodeUrl}) is on chain ${nodeChainId} but ${settingName(net, 'serviceUrl')} (${net.serviceUrl}) serves chain ${health.chainId} (${served}): point both at the same network.`,
    ]);
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const key of ['platform', 'network'] as const) {
    const want = net[key];
    if (want === null || want === health[key]) continue;
    const name = settingName(net, key);
    if (net.origin[key] === 'env') {
      problems.push(`${name}=${want} but the data service at ${net.serviceUrl} serves ${served}: set ${name}=${health[key]}, or unset it to take the service's.`);
    } else {
      warnings.push(`${name} (${want}) does not match the data service at ${net.serviceUrl}, which serves ${served}: using ${health[key]}; change it in the app's settings.`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return { platform: health.platform, network: health.network, warnings };
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
  return `${name} is not known to the data service at ${net.serviceUrl}: run \`txdesk login\` then \`txdesk account:describe\` with TXDESK_ENDPOINT=${net.serviceUrl}, and set ${name} to the ClientId it shows.`;
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
