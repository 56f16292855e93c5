// The listing's public write interface: everything a feeder (the indexer) may use to change the listing index.
// The feeder never names a listing table; the schema, the writers and the order keys live behind this module.
import type { PgClient } from '../db/pg-pool.js';
import type { Standard } from '../../shared/listing.js';
import { contractOrderKey, idOrderKey, tokenIdKey } from './listing-keys.js';
export { addressBytes, holdingIdKey, tokenIdFromKey, tokenIdKey, transferKey } from './listing-keys.js';

export interface ContractRow {
  id: number;
  address: string;
  addr: Buffer;
  has_uri: number;
  total_supply: string | null;
  standard: Standard;
}

export interface TokenRow {
  id: number;
  contract_id: number;
  token_id: string;
  owner_id: number | null;
  /** The token's current (owner, contract) pair; null when burned. */
  pair_id: number | null;
  k_tr: Buffer;
  k_id: Buffer;
  k_ct: Buffer;
  /** Key in the contract's id-ordered list: k_id, plus the owner's address for an ERC-1155 holding. */
  k_cid: Buffer;
  /** Decimal; "1" for ERC-721. */
  balance: string;
  uri: string;
}

/** An ERC-1155 id: total supply (decimal) and uri, shared by all its holders. */
export interface IdRow {
  supply: string;
  uri: string;
}

export interface NewContract {
  address: string;
  name: string;
  symbol: string;
  totalSupply: string | null;
  hasUri: boolean;
  firstBlock: number;
  standard: Standard;
}

/** The listing's write interface, synchronous: SQLite writes as it goes, PostgreSQL applies to prefetched rows (postgres/listing-writer-postgres.ts). */
export interface IndexWriter {
  /** Row id of an address, created on first use. */
  accountId(address: string): number;
  contract(address: string): ContractRow | undefined;
  contractById(id: number): ContractRow | undefined;
  addContract(c: NewContract): ContractRow;
  setTotalSupply(contractId: number, value: string | null): void;
  addMintBurn(contractId: number, minted: number, burned: number): void;
  /** An ERC-721 token by k_id, or an ERC-1155 holding by k_id + owner address (`holdingIdKey`). */
  token(contractId: number, kCid: Buffer): TokenRow | undefined;
  /**
   * Creates a token row owned by `ownerId` (null = burned) as acquired by the transfer `kTr`, in one insert (index
   * entries are written once, not inserted unowned and moved). For an ERC-1155 holding `holder` is the owner's
   * address (part of its contract-list key) and `balance` its balance.
   */
  createToken(
    contract: ContractRow,
    id: bigint,
    ownerId: number | null,
    kTr: Buffer,
    uri: string,
    holder?: { address: string; balance: string },
  ): TokenRow;
  /**
   * createToken for an ERC-721 token minted by the range being written, without looking it up first (a lookup that
   * almost always misses): undefined when the index holds it already (minted again after a burn); the caller then
   * moves the existing row. `keys` are the token's tokenKeys when the caller has them.
   */
  createMinted(
    contract: ContractRow,
    id: bigint,
    ownerId: number | null,
    kTr: Buffer,
    uri: string,
    keys?: { kId: Buffer; kCt: Buffer },
  ): TokenRow | undefined;
  setBalance(token: TokenRow, balance: string): void;
  idRow(contractId: number, kId: Buffer): IdRow | undefined;
  putId(contractId: number, kId: Buffer, row: IdRow): void;
  /** Sets the uri of an ERC-1155 id and of every holding of it. */
  setIdUri(contractId: number, kId: Buffer, uri: string): void;
  /** Moves a token to `ownerId` (null = burned) as acquired by the transfer `kTr`. */
  setOwner(token: TokenRow, ownerId: number | null, kTr: Buffer): void;
  setUri(tokenRowId: number, uri: string): void;
  deleteToken(token: TokenRow): void;
  /** One token (or one id's amount, ERC-1155) moved by a log; `sub` is its position in a multi-token log, else 0. */
  recordTransfer(
    block: number,
    logIndex: number,
    sub: number,
    contractId: number,
    kId: Buffer,
    fromId: number | null,
    toId: number | null,
    amount: string | null,
  ): void;
  /** Drops contracts first seen above `block` (and their ids) and forgets cached rows. */
  dropContractsAbove(block: number): void;
  /** Address of an account row. */
  accountAddress(id: number): string | undefined;
  /** Every holding of one ERC-1155 id. */
  holdingsOfId(contractId: number, kId: Buffer): TokenRow[];
  /** Ids of the contract with a non-zero supply (an ERC-1155 contract's totalSupply). */
  countNonZeroIds(contractId: number): number;
  /** ERC-721 token rows (owned or burned) with k_id in [lo, hi], lowest first, at most `limit`. */
  tokensInIdRange(contractId: number, lo: Buffer, hi: Buffer, limit: number): { id: number; token_id: string }[];
  /** ERC-1155 id keys in [lo, hi], lowest first, at most `limit`. */
  idKeysInRange(contractId: number, lo: Buffer, hi: Buffer, limit: number): Buffer[];
  /**
   * Writes the rank buckets and counters that setOwner/deleteToken changed. Must run inside the same transaction,
   * after the last token change and before anything reads the listing.
   */
  flush(): void;
}

export function tokenKeys(contractAddr: Buffer, id: bigint): { kId: Buffer; kCt: Buffer } {
  const idKey = tokenIdKey(id);
  return { kId: idOrderKey(idKey, contractAddr), kCt: contractOrderKey(contractAddr, idKey) };
}

/**
 * One migration list from the listing's steps and the feeder's own steps of the same versions (the listing's part of
 * each shipped version is recorded under the module name 'indexer', so existing databases migrate on unchanged).
 */
export function indexSchemaSteps(feederSteps: readonly string[], listingSteps: readonly string[]): string[] {
  const n = Math.max(listingSteps.length, feederSteps.length);
  return Array.from({ length: n }, (_, i) => (listingSteps[i] ?? '') + (feederSteps[i] ?? ''));
}

/** What one write does, in the feeder's terms: the PostgreSQL writer works out every row that reads, and reads them first. */
export interface WriteIntent {
  /** Contracts named by address (added, supply read, ids given a uri, metadata updated) or by row id (a uri backfill). */
  contracts?: Iterable<string>;
  contractIds?: Iterable<number>;
  /** Tokens moved (`amount` null or absent: an ERC-721 token); the zero address mints or burns. */
  moves?: readonly { contract: string; id: bigint; from: string; to: string; amount?: bigint | null }[];
  /** ERC-1155 ids given a uri, and the id ranges tokensInIdRange / idKeysInRange are asked for (same bounds and limit). */
  idUris?: readonly { contract: string; id: bigint }[];
  idRanges?: readonly { contract: string; lo: Buffer; hi: Buffer; limit: number }[];
  /** A rollback by row ids: contracts whose counts go back, tokens with the owner they return to (null: the token
   * goes), ERC-1155 ids replayed with every account their history sent them to. */
  undo?: {
    contractIds: Iterable<number>;
    tokens: readonly { contractId: number; kId: Buffer; owner: number | null }[];
    ids: readonly { contractId: number; kId: Buffer; receivers: readonly number[] }[];
  };
}

/** A write prepared on PostgreSQL: the IndexWriter over the rows it read, and the changes written in the caller's transaction. */
export type PreparedWrite = IndexWriter & { commit(c: PgClient): Promise<void> };

/** The listing's write side on PostgreSQL (postgres/listing-writer-postgres.ts), handed to the index store by backend.ts. */
export interface PostgresListingWriter {
  /** The listing's part of each version of the PostgreSQL index schema. */
  readonly schemaSteps: readonly string[];
  prepare(intent: WriteIntent): Promise<PreparedWrite>;
}
