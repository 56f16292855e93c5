// Which network a store holds: written when the network first reaches its node, checked at every later start, so a
// data dir or schema is never indexed from two chains (a changed node URL, or networks listed in another order).
export interface NetworkIdentity {
  platform: string;
  network: string;
  chainId: number;
}

export interface NetworkIdentityStore {
  read(): Promise<NetworkIdentity | null>;
  write(id: NetworkIdentity): Promise<void>;
}

/**
 * Null when `stored` (or nothing yet) fits `actual`; else why the network stops: `log` for the operator (it names the
 * file or schema), `public` for /health and refusals (no paths of the machine).
 */
export function identityProblem(
  stored: NetworkIdentity | null,
  actual: NetworkIdentity,
  where: string,
): { log: string; public: string } | null {
  if (!stored || (stored.chainId === actual.chainId && stored.platform === actual.platform && stored.network === actual.network))
    return null;
  const held = `${stored.platform}/${stored.network} (chain ${stored.chainId})`;
  return {
    log:
      `${actual.platform}/${actual.network}: ${where} holds the state of ${held}, but this network's node is on chain ${actual.chainId}; ` +
      `point the network at a node of chain ${stored.chainId}, or give it a fresh data dir or database.`,
    public: `its stored state belongs to ${held} but its node is on chain ${actual.chainId}; the operator must fix the node URL or the store and restart`,
  };
}
