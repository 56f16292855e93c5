// A model of the token listing, independent of the indexer's code: replays ERC-721 Transfer and EIP-2309
// ConsecutiveTransfer logs and ERC-1155 TransferSingle/TransferBatch logs (from the node, or given directly) into
// current holdings and orders them the way SPEC 2 says, to compare the service's pages against.
import { Interface, JsonRpcProvider } from 'ethers';
import { expect } from 'vitest';
import type { Db } from '../../../src/lib/sqlite.js';
import { queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';
import type { TokenQueryInput } from '../../../src/service/listing/listing-reads.js';
import { ORDER_BY, type OrderBy, type OrderDirection, type Standard, type Token } from '../../../src/shared/listing.js';

const ZERO = '0x0000000000000000000000000000000000000000';

const events = new Interface([
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event ConsecutiveTransfer(uint256 indexed fromTokenId, uint256 toTokenId, address indexed fromAddress, address indexed toAddress)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);

export interface ModelToken {
  contract: string;
  id: bigint;
  owner: string;
  block: number;
  logIndex: number;
  /** Position inside a multi-token log (from 1), 0 for a single-token log. */
  sub: number;
  balance: bigint;
  standard: Standard;
}

/** One token moved by one log, addresses lowercase; `amount` only for ERC-1155. */
export interface ModelTransfer {
  contract: string;
  id: bigint;
  from: string;
  to: string;
  block: number;
  logIndex: number;
  sub?: number;
  amount?: bigint | null;
}

export interface ListingModel {
  /** Current holdings (burned ERC-721 tokens and zero ERC-1155 balances left out). */
  tokens: ModelToken[];
  /** Per ERC-721 contract: how many transfers came from / went to the zero address. */
  minted: Map<string, number>;
  burned: Map<string, number>;
  /** Per ERC-1155 contract: the number of ids with a non-zero supply. */
  idsWithSupply: Map<string, number>;
}

/** Replays moves given in chain order, up to and including `toBlock`. ERC-1155 balances never go below zero. */
export function modelFromTransfers(transfers: Iterable<ModelTransfer>, toBlock = Infinity): ListingModel {
  const tokens = new Map<string, ModelToken>();
  const minted = new Map<string, number>();
  const burned = new Map<string, number>();
  const supply = new Map<string, bigint>();
  for (const t of transfers) {
    if (t.block > toBlock) continue;
    const sub = t.sub ?? 0;
    if (t.amount == null) {
      if (t.from === ZERO) minted.set(t.contract, (minted.get(t.contract) ?? 0) + 1);
      const key = `${t.contract}:${t.id}`;
      if (t.to === ZERO) {
        burned.set(t.contract, (burned.get(t.contract) ?? 0) + 1);
        tokens.delete(key);
      } else
        tokens.set(key, {
          contract: t.contract,
          id: t.id,
          owner: t.to,
          block: t.block,
          logIndex: t.logIndex,
          sub,
          balance: 1n,
          standard: 'ERC721',
        });
      continue;
    }
    const idKey = `${t.contract}:${t.id}`;
    const s = supply.get(idKey) ?? 0n;
    if (t.from === ZERO) supply.set(idKey, s + t.amount);
    else {
      const h = tokens.get(`${idKey}:${t.from}`);
      if (h) {
        h.balance = h.balance > t.amount ? h.balance - t.amount : 0n;
        if (h.balance === 0n) tokens.delete(`${idKey}:${t.from}`);
      }
    }
    if (t.to === ZERO) {
      const s2 = supply.get(idKey) ?? 0n;
      supply.set(idKey, s2 > t.amount ? s2 - t.amount : 0n);
    } else {
      const key = `${idKey}:${t.to}`;
      const h = tokens.get(key);
      const balance = (h?.balance ?? 0n) + t.amount;
      if (balance > 0n)
        tokens.set(key, {
          contract: t.contract,
          id: t.id,
          owner: t.to,
          block: t.block,
          logIndex: t.logIndex,
          sub,
          balance,
          standard: 'ERC1155',
        });
      else if (h) tokens.delete(key);
    }
  }
  const idsWithSupply = new Map<string, number>();
  for (const [k, v] of supply) {
    const c = k.slice(0, 42);
    idsWithSupply.set(c, (idsWithSupply.get(c) ?? 0) + (v > 0n ? 1 : 0));
  }
  return { tokens: [...tokens.values()], minted, burned, idsWithSupply };
}

/** Replays every token log the node has up to `toBlock` (decoded with ethers, not with the indexer's decoder). */
export async function modelFromChain(nodeUrl: string, toBlock: number | 'latest' = 'latest'): Promise<ListingModel> {
  const provider = new JsonRpcProvider(nodeUrl, undefined, { staticNetwork: true });
  try {
    const topics = ['Transfer', 'ConsecutiveTransfer', 'TransferSingle', 'TransferBatch'].map((n) => events.getEvent(n)!.topicHash);
    const logs = await provider.getLogs({ fromBlock: 0, toBlock, topics: [topics] });
    const moves: ModelTransfer[] = [];
    for (const log of logs) {
      // ERC-721 indexes the token id (4 topics); ERC-20 transfers carry the amount in data and are not tokens.
      if (log.removed || (log.topics[0] === topics[0] && log.topics.length !== 4)) continue;
      const e = events.parseLog(log);
      if (!e) continue;
      const base = { contract: log.address.toLowerCase(), block: log.blockNumber, logIndex: log.index };
      const lc = (a: string) => a.toLowerCase();
      if (e.name === 'Transfer') moves.push({ ...base, id: e.args[2] as bigint, from: lc(e.args[0]), to: lc(e.args[1]) });
      else if (e.name === 'ConsecutiveTransfer') {
        for (let id = e.args[0] as bigint, i = 1; id <= (e.args[1] as bigint); id++, i++) {
          moves.push({ ...base, sub: i, id, from: lc(e.args[2]), to: lc(e.args[3]) });
        }
      } else if (e.name === 'TransferSingle') {
        moves.push({ ...base, id: e.args[3] as bigint, amount: e.args[4] as bigint, from: lc(e.args[1]), to: lc(e.args[2]) });
      } else {
        const ids = e.args[3] as bigint[];
        ids.forEach((id, i) =>
          moves.push({ ...base, sub: i + 1, id, amount: (e.args[4] as bigint[])[i]!, from: lc(e.args[1]), to: lc(e.args[2]) }),
        );
      }
    }
    return modelFromTransfers(moves);
  } finally {
    provider.destroy();
  }
}

function compare(a: ModelToken, b: ModelToken, orderBy: OrderBy): number {
  const cmp = (x: bigint | number | string, y: bigint | number | string) => (x < y ? -1 : x > y ? 1 : 0);
  switch (orderBy) {
    case 'transfer_block_number':
      return cmp(a.block, b.block) || cmp(a.logIndex, b.logIndex) || cmp(a.sub, b.sub);
    // Several holders of one ERC-1155 id (a contract's listing) follow in owner address order.
    case 'token_id':
      return cmp(a.id, b.id) || cmp(a.contract, b.contract) || cmp(a.owner, b.owner);
    case 'contract_address':
      return cmp(a.contract, b.contract) || cmp(a.id, b.id) || cmp(a.owner, b.owner);
  }
}

/** The whole listing a query asks for (every page), with the same scope fields as `queryTokens`. */
export function modelList(
  tokens: readonly ModelToken[],
  filter: { owner?: string; contract?: string; contracts?: string[]; standard?: Standard },
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
      (contracts === undefined || contracts.includes(t.contract)) &&
      (filter.standard === undefined || t.standard === filter.standard),
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
  /** standard filters to try (default: none). */
  standards?: (Standard | undefined)[];
  /** Extra per-token checks (uri, contract metadata). */
  check?: (t: Token) => void;
  /** Extra query fields, e.g. a forced way to combine several contracts (`several`). */
  extra?: Partial<TokenQueryInput>;
}

/**
 * Pages `queryTokens` through every owner or contract x filter x order x direction x size until an empty page;
 * asserts exact coverage, order and totalCount. Returns the query count.
 *
 * The checks inside the page loop compare first and call `expect` only on a mismatch, with the same label: one
 * `expect` costs more than the query it checks (vitest counts every assertion), and a model-checked history makes
 * hundreds of thousands of them (listing-mixed spent 40 % of its CPU in `expect` itself).
 */
export function expectListingsMatch(db: Db, model: readonly ModelToken[], o: MatchOptions): number {
  let queries = 0;
  const scopes = [...o.owners.map((owner) => ({ owner })), ...o.contracts.map((contract) => ({ contract }))];
  for (const scope of scopes) {
    for (const [filter, standard] of o.filters.flatMap((f) => (o.standards ?? [undefined]).map((s) => [f, s] as const))) {
      const query = { ...scope, ...(filter ? { contracts: filter } : {}), ...(standard ? { standard } : {}) };
      for (const orderBy of ORDER_BY) {
        for (const direction of ['asc', 'desc'] as const) {
          const expected = modelList(model, query, orderBy, direction).map(
            (m) => `${m.contract}:${m.id}:${m.owner}:${m.balance}:${m.standard}`,
          );
          for (const size of o.sizes) {
            const got: string[] = [];
            for (let page = 0; ; page++) {
              const r = queryTokens(db, { ...o.extra, ...query, page, size, orderBy, direction });
              queries++;
              const label = () => JSON.stringify({ ...scope, filter, standard, orderBy, direction, size, page });
              if (r.totalCount !== expected.length) expect(r.totalCount, label()).toBe(expected.length);
              if (r.tokens.length > size) expect(r.tokens.length, label()).toBeLessThanOrEqual(size);
              for (const t of r.tokens) o.check?.(t);
              for (const t of r.tokens) got.push(`${t.contract.address}:${t.id}:${t.owner}:${t.balance}:${t.contract.standard}`);
              if (r.tokens.length < size) {
                if (page !== Math.floor(expected.length / size)) expect(page, label()).toBe(Math.floor(expected.length / size));
                break;
              }
            }
            if (got.length !== expected.length || got.some((g, i) => g !== expected[i]))
              expect(got, JSON.stringify({ ...scope, filter, standard, orderBy, direction, size })).toEqual(expected);
          }
        }
      }
    }
  }
  return queries;
}
