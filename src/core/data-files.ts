// Where the core keeps its files in the data folder, and the names derived from it: one transaction store per chain,
// and the tracker subscription id that belongs to this folder and chain.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The transaction store's file. One store per chain: a restarted dev chain is a new chain, and its old records could
 * never be reconciled, so the embedded one starts empty every time (its folder is removed here).
 */
export function prepareTxStoreFile(dataDir: string, embedded: boolean, chainId: number, genesisHash: string): string {
  if (!embedded) return join(dataDir, `tx-${chainId}-${genesisHash.slice(2, 10)}.db`);
  const dir = join(dataDir, 'embedded');
  rmSync(dir, { recursive: true, force: true });
  return join(dir, 'tx.db');
}

/** The app's tracker subscription: stable per data folder and chain, so a restart resumes its stored messages. */
export function appSubscriptionId(dataDir: string, chainId: number, genesisHash: string): string {
  return `txdesk-app-${createHash('sha256').update(`${dataDir}|${chainId}|${genesisHash}`).digest('hex').slice(0, 20)}`;
}
