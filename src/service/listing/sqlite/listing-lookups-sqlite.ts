// Read-only lookups a feeder's read-ahead needs (is a contract known, what is it, is an ERC-1155 id known), on any
// connection: the indexer's reader thread opens its own and sees what the writer has committed, never cached state.
import type { Db } from '../../../lib/sqlite.js';
import type { ContractRow } from '../listing-writer.js';

export interface IndexLookups {
  contract(address: string): ContractRow | undefined;
  /** Whether the index holds the ERC-1155 id `kId` of the contract (its row in the ids table). */
  idKnown(contractId: number, kId: Buffer): boolean;
}

export function createIndexLookups(db: Db): IndexLookups {
  const contractGet = db.prepare('SELECT id, address, addr, has_uri, total_supply, standard FROM idx_contracts WHERE address = ?');
  const idGet = db.prepare('SELECT 1 FROM idx_ids WHERE contract_id = ? AND k_id = ?').pluck();
  return {
    contract: (address) => contractGet.get(address) as ContractRow | undefined,
    idKnown: (contractId, kId) => idGet.get(contractId, kId) !== undefined,
  };
}
