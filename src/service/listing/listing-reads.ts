// What the listing endpoints read from the index, whatever the backend: SQLite in the process (answered at once,
// sqlite/listing-reads-sqlite.ts) or the fleet's shared PostgreSQL (answered by promises, postgres/listing-reads-postgres.ts).
import type { Contract, OrderBy, OrderDirection, Standard, Token } from '../../shared/listing.js';

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

export interface TokenQueryInput {
  owner?: string;
  contract?: string;
  contracts?: string[];
  page: number;
  size: number;
  orderBy: OrderBy;
  direction: OrderDirection;
  /** Only tokens of contracts of this standard. */
  standard?: Standard;
  /**
   * How several filtered contracts combine in transfer/token-id order (listing-plan.ts): 'auto' (default) estimates the
   * cheaper; tests force one the backend has ('merge' on both, 'select' on SQLite, 'scan' on PostgreSQL).
   */
  several?: 'auto' | 'merge' | 'select' | 'scan';
}

export interface TokenQueryResult {
  tokens: Token[];
  totalCount: number;
}

/** The columns of a contract row that make the API's contract object (both backends select the same). */
export interface ContractColumns {
  address: string;
  name: string;
  symbol: string;
  total_supply: string | null;
  minted: number;
  burned: number;
  standard: Standard;
}

export function toContract(c: ContractColumns): Contract {
  // ERC-1155 keeps the number of ids with a non-zero supply in total_supply.
  const supply = c.total_supply === null ? c.minted - c.burned : Number(c.total_supply);
  return { address: c.address, name: c.name, symbol: c.symbol, totalSupply: supply, standard: c.standard };
}
