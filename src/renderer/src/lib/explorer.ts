// Block-explorer links for networks that have a well-known public explorer, by chain id; none for dev chains.

const explorers: Readonly<Record<number, string>> = {
  1: 'https://etherscan.io',
  11155111: 'https://sepolia.etherscan.io',
  17000: 'https://holesky.etherscan.io',
  560048: 'https://hoodi.etherscan.io',
  10: 'https://optimistic.etherscan.io',
  8453: 'https://basescan.org',
  42161: 'https://arbiscan.io',
  137: 'https://polygonscan.com',
};

export function explorerUrl(chainId: number | null | undefined, kind: 'tx' | 'address' | 'token', value: string): string | null {
  const base = chainId === null || chainId === undefined ? undefined : explorers[chainId];
  return base ? `${base}/${kind}/${value}` : null;
}
