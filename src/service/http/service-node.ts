// What the service learns from its node at start-up (chain id, waited for while the node is away or pushing back) and
// the defaults that follow from it.
import { WebSocketProvider } from 'ethers';
import type { Logger } from '../../lib/log.js';
import { TxdeskError } from '../../shared/errors.js';
import { callNode } from '../network/node-call.js';
import { redactNodeUrl } from '../network/node-choice.js';
import { NodeBackPressure, nodeThrottle } from '../network/node-throttle.js';

export { defaultNetwork } from '../../shared/networks.js';

/** Chain ids of local dev chains (anvil, hardhat, ganache). */
const DEV_CHAIN_IDS = new Set([31337, 1337]);

/** Dev chains do not reorganise on their own, so they are indexed to the head; real chains stay 12 blocks behind. */
export function defaultConfirmations(chainId: number): number {
  return DEV_CHAIN_IDS.has(chainId) ? 0 : 12;
}

/** Longest pause between two tries of a node that does not give its chain id at start-up. */
const CHAIN_ID_RETRY_MAX_MS = 30_000;

/**
 * The node's chain id, asked until it answers: a node that is down, unreachable or pushing back (HTTP 429) is waited
 * for, one log line per try (1 s, 2 s, 4 s ... up to 30 s apart, longer when the node's Retry-After says so), never a
 * reason to exit. A URL that cannot be a node's is refused at once. Rejects with `signal`'s reason once it aborts.
 */
export async function waitForChainId(nodeUrl: string, log: Logger, signal?: AbortSignal, tryTimeoutMs = 10_000): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await fetchChainId(nodeUrl, tryTimeoutMs);
    } catch (e) {
      if (e instanceof TxdeskError && e.code === 'BAD_REQUEST') throw e;
      const waitMs = Math.max(nodeThrottle(nodeUrl).pausedForMs(), Math.min(CHAIN_ID_RETRY_MAX_MS, 1000 * 2 ** attempt));
      const why = e instanceof Error ? e.message.replace(/\.$/, '') : String(e);
      log.warn(`${why}; the service waits for it and tries again in ${Math.ceil(waitMs / 1000)} s (Ctrl-C stops).`);
      await sleep(waitMs, signal);
    }
  }
}

export async function fetchChainId(nodeUrl: string, timeoutMs = 10_000): Promise<number> {
  // Logs and errors name the node without its path or query, where hosted nodes keep API keys.
  const shown = redactNodeUrl(nodeUrl);
  const unreachable = (why: string) =>
    new TxdeskError(
      'UPSTREAM_UNAVAILABLE',
      `Cannot read the chain id from the node at ${shown} (${why.split(nodeUrl).join(shown)}); check that the node runs and the URL is right.`,
    );
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
    throw new TxdeskError(
      'BAD_REQUEST',
      `The node URL must start with http://, https://, ws:// or wss://; got ${JSON.stringify(nodeUrl)}.`,
    );
  }
  let result: unknown;
  try {
    result = await callNode(nodeUrl, 'eth_chainId', [], { timeoutMs });
  } catch (e) {
    if (e instanceof NodeBackPressure) {
      // Its Retry-After holds for every request to it, the next try included.
      nodeThrottle(nodeUrl).record({ kind: 'refused', retryAfterMs: e.retryAfterMs });
      throw unreachable('it asks to slow down: HTTP 429 or a capacity error');
    }
    throw unreachable(e instanceof Error ? e.message : String(e));
  }
  if (typeof result !== 'string' || !/^0x[0-9a-f]+$/i.test(result)) throw unreachable('no eth_chainId result');
  return Number(BigInt(result));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
