// The Ethereum node's link state, from the calls the core really makes (any answer, even a refusal, means the node is
// there; only "could not be reached" means it is not) and a light periodic eth_chainId as a safety net.
import { RpcError } from '../../lib/json-rpc.js';
import { repeatWithoutOverlap } from '../../lib/repeat.js';
import { BroadcastError, type Chain } from '../ports.js';

export const NODE_CHECK_MS = 15_000;

type Report = (ok: boolean, reason?: string) => void;

function unreachable(e: unknown): boolean {
  return (e instanceof RpcError && e.code === 'unreachable') || (e instanceof BroadcastError && e.failure === 'unreachable');
}

/** The same Chain, reporting each call's outcome; close() is passed through unobserved. */
export function observeChain(chain: Chain, report: Report): Chain {
  const wrap =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        const r = await f(...a);
        report(true);
        return r;
      } catch (e) {
        report(!unreachable(e), (e as Error).message);
        throw e;
      }
    };
  return {
    chainId: wrap(() => chain.chainId()),
    genesisHash: wrap(() => chain.genesisHash()),
    nonceCount: wrap((a: string, t: 'latest' | 'pending') => chain.nonceCount(a, t)),
    fees: wrap(() => chain.fees()),
    sendRaw: wrap((raw: string) => chain.sendRaw(raw)),
    hasTransaction: wrap((h: string) => chain.hasTransaction(h)),
    receipt: wrap((h: string) => chain.receipt(h)),
    balance: wrap((a: string) => chain.balance(a)),
    latestBlock: wrap(() => chain.latestBlock()),
    request: wrap((method: string, params: readonly unknown[]) => chain.request(method, params)),
    close: () => chain.close(),
  };
}

/**
 * Asks the (observed) node for its chain id every `everyMs`, so a loss is noticed even when no other part of the core
 * calls the node (the nonce watchdog usually does every second; this does not depend on it).
 */
export function watchNode(observed: Chain, everyMs = NODE_CHECK_MS): () => void {
  return repeatWithoutOverlap(() => observed.chainId(), everyMs);
}
