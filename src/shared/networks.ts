// The network name a chain id goes by when nobody names it (the data service's default, the app's guess while the
// service is away); one table for both. And how both name a network in one string.

const NETWORK_NAMES: Record<number, string> = {
  1: 'mainnet',
  11155111: 'sepolia',
  17000: 'holesky',
  560048: 'hoodi',
  10: 'optimism',
  137: 'polygon',
  8453: 'base',
  42161: 'arbitrum',
  31337: 'local',
  1337: 'local',
};

export function defaultNetwork(chainId: number): string {
  return NETWORK_NAMES[chainId] ?? `chain-${chainId}`;
}

/** `platform/network`: how settings (nodeUrls), flags, logs and metrics name a network. */
export const networkKey = (n: { platform: string; network: string }): string => `${n.platform}/${n.network}`;
