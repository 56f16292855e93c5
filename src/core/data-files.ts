// Where the core keeps its files in the data folder, and the names derived from it: one transaction store per chain,
// and the tracker subscription id that belongs to this folder and chain.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The transaction store's file. One store per chain (the same address has its own nonces on every chain); the embedded
 * dev chains keep theirs in one folder that clearEmbeddedStores empties at start-up.
 */
export function txStoreFile(dataDir: string, embedded: boolean, chainId: number, genesisHash: string): string {
  if (!embedded) return join(dataDir, `tx-${chainId}-${genesisHash.slice(2, 10)}.db`);
  return join(dataDir, 'embedded', `tx-${chainId}.db`);
}

/** A restarted dev chain is a new chain whose old records could never be reconciled: the embedded stores start empty. */
export function clearEmbeddedStores(dataDir: string): void {
  rmSync(join(dataDir, 'embedded'), { recursive: true, force: true });
}

/** The app's tracker subscription: stable per data folder and chain, so a restart resumes its stored messages. */
export function appSubscriptionId(dataDir: string, chainId: number, genesisHash: string): string {
  return `txdesk-app-${createHash('sha256').update(`${dataDir}|${chainId}|${genesisHash}`).digest('hex').slice(0, 20)}`;
}
