// What the service learns from its node at start-up (chain id) and the defaults that follow from it.
import { WebSocketProvider } from 'ethers';
import { jsonRpcCall } from '../../lib/json-rpc.js';
import { TxdeskError } from '../../shared/errors.js';

export { defaultNetwork } from '../../shared/networks.js';

/** Chain ids of local dev chains (anvil, hardhat, ganache). */
const DEV_CHAIN_IDS = new Set([31337, 1337]);

/** Dev chains do not reorganise on their own, so they are indexed to the head; real chains stay 12 blocks behind. */
export function defaultConfirmations(chainId: number): number {
  return DEV_CHAIN_IDS.has(chainId) ? 0 : 12;
}

export async function fetchChainId(nodeUrl: string, timeoutMs = 10_000): Promise<number> {
  const unreachable = (why: string) =>
    new TxdeskError('UPSTREAM_UNAVAILABLE', `Cannot read the chain id from the node at ${nodeUrl} (${why}); check that the node runs and the URL is right.`);
  let url: URL;
  try {
    url = new URL(nodeUrl);
  } catch {
    throw new TxdeskError('BAD_REQUEST', `The node URL ${JSON.stringify(nodeUrl)} is not a URL; give one like http://127.0.0.1:8545.`);
  }
  if (url.protocol === 'ws:' || url.protocol === 'wss:') {
    const provider = new WebSocketProvider(nodeUrl);
    try {
      const network = await Promise.race([
        provider.getNetwork(),
        new Promise<never>((_, reject) => setTimeout(() => reject(unreachable('timed out')), timeoutMs).unref()),
      ]);
      return Number(network.chainId);
    } finally {
      await provider.destroy();
    }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TxdeskError('BAD_REQUEST', `The node URL must start with http://, https://, ws:// or wss://; got ${JSON.stringify(nodeUrl)}.`);
  }
  let result: unknown;
  try {
    result = await jsonRpcCall(nodeUrl, 'eth_chainId', [], { timeoutMs });
  } catch (e) {
    throw unreachable(e instanceof Error ? e.message : String(e));
  }
  if (typeof result !== 'string' || !/^0x[0-9a-f]+$/i.test(result)) throw unreachable('no eth_chainId result');
  return Number(BigInt(result));
}
