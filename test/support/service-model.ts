// A model of the token listing, independent of the indexer's code: replays ERC-721 Transfer logs (from the node, or
// given directly) into current owners and orders them the way SPEC 2 says, to compare the service's pages against.
import { id as keccakId, JsonRpcProvider } from 'ethers';
import { expect } from 'vitest';
import type { Db } from '../../src/lib/sqlite.js';
import { queryTokens, type TokenQueryInput } from '../../src/service/listing/listing-store.js';
import { ORDER_BY, type OrderBy, type OrderDirection, type Token } from '../../src/shared/listing.js';

const TRANSFER_TOPIC = keccakId('Transfer(address,address,uint256)');
const ZERO = '0x0000000000000000000000000000000000000000';

export interface ModelToken {
  contract: string;
  id: bigint;
  owner: string;
  block: number;
  logIndex: number;
}

/** One ERC-721 transfer, addresses lowercase. */
export interface ModelTransfer {
  contract: string;
  id: bigint;
  from: string;
  to: string;
  block: number;
  logIndex: number;
}

export interface ListingModel {
  /** Current owner of every token (burned tokens left out). */
  tokens: ModelToken[];
  /** Per contract: how many transfers came from / went to the zero address. */
  minted: Map<string, number>;
  burned: Map<string, number>;
}

/** Replays transfers given in chain order, up to and including `toBlock`. */
export function modelFromTransfers(transfers: Iterable<ModelTransfer>, toBlock = Infinity): ListingModel {
  const tokens = new Map<string, ModelToken>();
  const minted = new Map<string, number>();
  const burned = new Map<string, number>();
  for (const t of transfers) {
    if (t.block > toBlock) continue;
    if (t.from === ZERO) minted.set(t.contract, (minted.get(t.contract) ?? 0) + 1);
    const key = `${t.contract}:${t.id}`;
    if (t.to === ZERO) {
      burned.set(t.contract, (burned.get(t.contract) ?? 0) + 1);
      tokens.delete(key);
    } else tokens.set(key, { contract: t.contract, id: t.id, owner: t.to, block: t.block, logIndex: t.logIndex });
  }
  return { tokens: [...tokens.values()], minted, burned };
}

/** Replays every ERC-721 Transfer log the node has up to `toBlock`. */
export async function modelFromChain(nodeUrl: string, toBlock: number | 'latest' = 'latest'): Promise<ListingModel> {
  const provider = new JsonRpcProvider(nodeUrl, undefined, { staticNetwork: true });
  try {
    const logs = await provider.getLogs({ fromBlock: 0, toBlock, topics: [TRANSFER_TOPIC] });
    return modelFromTransfers(
      logs
        // ERC-721 indexes the token id (4 topics); ERC-20 transfers carry the amount in data and are not tokens.
        .filter((log) => log.topics.length === 4 && !log.removed)
        .map((log) => ({
          contract: log.address.toLowerCase(),
          id: BigInt(log.topics[3]!),
          from: '0x' + log.topics[1]!.slice(26).toLowerCase(),
          to: '0x' + log.topics[2]!.slice(26).toLowerCase(),
          block: log.blockNumber,
          logIndex: log.index,
        })),
    );
  } finally {
    provider.destroy();
  }
}

function compare(a: ModelToken, b: ModelToken, orderBy: OrderBy): number {
  const cmp = (x: bigint | number | string, y: bigint | number | string) => (x < y ? -1 : x > y ? 1 : 0);
  switch (orderBy) {
    case 'transfer_block_number':
      return cmp(a.block, b.block) || cmp(a.logIndex, b.logIndex);
    case 'token_id':
      return cmp(a.id, b.id) || cmp(a.contract, b.contract);
    case 'contract_address':
      return cmp(a.contract, b.contract) || cmp(a.id, b.id);
  }
}

/** The whole listing a query asks for (every page), with the same scope fields as `queryTokens`. */
export function modelList(
  tokens: readonly ModelToken[],
  filter: { owner?: string; contract?: string; contracts?: string[] },
  orderBy: OrderBy,
  direction: OrderDirection,
): ModelToken[] {
  const contracts = filter.contracts?.map((c) => c.toLowerCase());
  const owner = filter.owner?.toLowerCase();
  const contract = filter.contract?.toLowerCase();
  const kept = tokens.filter(
    (t) =>
      (owner === undefined || t.owner === owner) &&
      (contract === undefined || t.contract === contract) &&
      (contracts === undefined || contracts.includes(t.contract)),
  );
  kept.sort((a, b) => compare(a, b, orderBy));
  if (direction === 'desc') kept.reverse();
  return kept;
}

export interface MatchOptions {
  owners: string[];
  contracts: string[];
  /** contracts filters to try (undefined = no filter). */
  filters: (string[] | undefined)[];
  sizes: number[];
  /** Extra per-token checks (uri, contract metadata). */
  check?: (t: Token) => void;
  /** Extra query fields, e.g. a forced filterPlan. */
  extra?: Partial<TokenQueryInput>;
}

/**
 * Pages `queryTokens` through every owner or contract x filter x order x direction x size until an empty page;
 * asserts exact coverage, order and totalCount. Returns the query count.
 */
export function expectListingsMatch(db: Db, model: readonly ModelToken[], o: MatchOptions): number {
  let queries = 0;
  const scopes = [...o.owners.map((owner) => ({ owner })), ...o.contracts.map((contract) => ({ contract }))];
  for (const scope of scopes) {
    for (const filter of o.filters) {
      const query = { ...scope, ...(filter ? { contracts: filter } : {}) };
      for (const orderBy of ORDER_BY) {
        for (const direction of ['asc', 'desc'] as const) {
          const expected = modelList(model, query, orderBy, direction).map((m) => `${m.contract}:${m.id}:${m.owner}`);
          for (const size of o.sizes) {
            const got: string[] = [];
            for (let page = 0; ; page++) {
              const r = queryTokens(db, { ...o.extra, ...query, page, size, orderBy, direction });
              queries++;
              const label = JSON.stringify({ ...scope, filter, orderBy, direction, size, page });
              expect(r.totalCount, label).toBe(expected.length);
              expect(r.tokens.length, label).toBeLessThanOrEqual(size);
              for (const t of r.tokens) o.check?.(t);
              got.push(...r.tokens.map((t) => `${t.contract.address}:${t.id}:${t.owner}`));
              if (r.tokens.length < size) {
                expect(page, label).toBe(Math.floor(expected.length / size));
                break;
              }
            }
            expect(got, JSON.stringify({ ...scope, filter, orderBy, direction, size })).toEqual(expected);
          }
        }
      }
    }
  }
  return queries;
}
