// What the listing endpoints read from the index, over either store: SQLite in the process (answered at once) or the
// fleet's shared PostgreSQL (answered by promises).
import type { Db } from '../../lib/sqlite.js';
import type { Contract } from '../../shared/listing.js';
import type { PgPool } from '../db/pg-pool.js';
import { findContract, queryTokens, type TokenQueryInput, type TokenQueryResult } from './listing-store.js';
import { findContractPg, queryTokensPg } from './listing-store-pg.js';

/** A value now (SQLite, read in the process) or later (PostgreSQL). */
export type Maybe<T> = T | Promise<T>;

/** `f` of a Maybe: at once for a value, so the SQLite listing's requests take no promise hop. */
export function andThen<A, B>(v: Maybe<A>, f: (a: A) => B): Maybe<B> {
  return v instanceof Promise ? v.then(f) : f(v);
}

export interface ListingReads {
  queryTokens(q: TokenQueryInput): Maybe<TokenQueryResult>;
  findContract(address: string): Maybe<Contract | null>;
}

export function sqliteListingReads(db: Db): ListingReads {
  return {
    queryTokens: (q) => queryTokens(db, q),
    findContract: (address) => findContract(db, address),
  };
}

export function pgListingReads(pool: PgPool): ListingReads {
  return {
    queryTokens: (q) => queryTokensPg(pool, q),
    findContract: (address) => findContractPg(pool, address),
  };
}
