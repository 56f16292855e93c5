// The network name a chain id goes by when nobody names it (the data service's default, the app's guess while the
// service is away); one table for both.

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
