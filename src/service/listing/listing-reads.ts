// What the listing endpoints read from the index, over either store: SQLite in the process (synchronous, answered
// as resolved promises) or the fleet's shared PostgreSQL.
import type { Db } from '../../lib/sqlite.js';
import type { Contract } from '../../shared/listing.js';
import type { PgPool } from '../db/pg-pool.js';
import { findContract, queryTokens, type TokenQueryInput, type TokenQueryResult } from './listing-store.js';
import { findContractPg, queryTokensPg } from './listing-store-pg.js';

export interface ListingReads {
  queryTokens(q: TokenQueryInput): Promise<TokenQueryResult>;
  findContract(address: string): Promise<Contract | null>;
}

export function sqliteListingReads(db: Db): ListingReads {
  return {
    // async: a throwing read rejects, as the PostgreSQL reads do, instead of throwing at the call.
    queryTokens: async (q) => queryTokens(db, q),
    findContract: async (address) => findContract(db, address),
  };
}

export function pgListingReads(pool: PgPool): ListingReads {
  return {
    queryTokens: (q) => queryTokensPg(pool, q),
    findContract: (address) => findContractPg(pool, address),
  };
}
