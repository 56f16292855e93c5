// Read side of the listing index: one page of an owner's or a contract's tokens by seeking, totals from counters.
//
// A page is found by rank: the counted buckets of listing-rank-sqlite.ts give the key at the page's first rank, then
// one index range scan reads `size` rows from that key. Nothing scans past earlier pages and nothing counts rows per
// request. Under a contracts filter: contract_address order (and token_id order with one contract) seeks into each
// contract's contiguous slice of the owner's contract-ordered list; transfer order with one contract seeks in the
// (owner, contract) pair's own list; transfer and token_id order over several contracts either select the page's
// first key by rank lookups across the per-contract lists or merge their heads, whichever is cheaper (docs/indexer.md).
import type { Db } from '../../../lib/sqlite.js';
import type { Contract, OrderDirection, Token } from '../../../shared/listing.js';
import { ascendingRank, mergeWindow, pageStartRank, selectRank, type RankedList } from '../listing-cursor.js';
import { planHoldings, planQuery, type Holdings, type OwnerOrder } from '../listing-plan.js';
import { toContract, type ContractColumns, type ListingReads, type TokenQueryInput, type TokenQueryResult } from '../listing-reads.js';
import { LIST, contractSlice, type ListCode } from '../listing-keys.js';
import { createRankReader, listSource, readGeneration, type RankReader } from './listing-rank-sqlite.js';

interface ContractInfo extends ContractColumns {
  id: number;
  addr: Buffer;
  token_count: number;
}

interface PageRow {
  token_id: string;
  uri: string;
  balance: string;
  owner: string;
  contract_id: number;
  k: Buffer;
}

const PAGE_COLUMNS = 't.token_id, t.uri, t.balance, a.address AS owner, t.contract_id';

interface Reader {
  /** Reads the index generation once per request and drops cached rows when it moved. */
  refresh(): void;
  rank: RankReader;
  account: (address: string) => { id: number; token_count: number } | undefined;
  contract: (address: string) => ContractInfo | undefined;
  contractById: (id: number) => ContractInfo | undefined;
  ownerContractCount: (ownerId: number, addr: Buffer) => number;
  /** Contract row ids an owner holds tokens of. */
  ownerContracts: (ownerId: number) => number[];
  pairId: (ownerId: number, contractId: number) => number | undefined;
  ownerCountBelow: (ownerId: number, addr: Buffer) => number;
  page: (code: ListCode, dir: OrderDirection, bounded: boolean) => { all(...args: unknown[]): unknown[] };
  ownerContractKeys: (byTransfer: boolean, dir: OrderDirection) => { all(...args: unknown[]): unknown[] };
  rowsByKeys: (byTransfer: boolean) => { get(...args: unknown[]): unknown };
}

const readers = new WeakMap<Db, Reader>();

function reader(db: Db): Reader {
  const cached = readers.get(db);
  if (cached) return cached;
  const contractSql = 'SELECT id, address, addr, name, symbol, total_supply, minted, burned, token_count, standard FROM idx_contracts';
  const accountStmt = db.prepare('SELECT id, token_count FROM idx_accounts WHERE address = ?');
  const contractStmt = db.prepare(`${contractSql} WHERE address = ?`);
  const contractByIdStmt = db.prepare(`${contractSql} WHERE id = ?`);
  const pairStmt = db.prepare('SELECT id FROM idx_pairs WHERE owner_id = ? AND contract_id = ?').pluck();
  const ocStmt = db.prepare('SELECT n FROM idx_owner_contract WHERE owner_id = ? AND caddr = ?').pluck();
  const ocAllStmt = db.prepare('SELECT contract_id FROM idx_owner_contract WHERE owner_id = ?').pluck();
  const ocBelowStmt = db.prepare('SELECT coalesce(sum(n), 0) FROM idx_owner_contract WHERE owner_id = ? AND caddr < ?').pluck();
  const pages = new Map<string, ReturnType<Db['prepare']>>();
  const pageStmt = (code: ListCode, dir: OrderDirection, bounded: boolean) => {
    const id = `${code}:${dir}:${bounded}`;
    let st = pages.get(id);
    if (!st) {
      const s = listSource(code);
      const [from, upTo, order] = dir === 'asc' ? ['>=', '<', 'ASC'] : ['<=', '>=', 'DESC'];
      const bound = bounded ? ` AND t.${s.key} ${upTo} ?` : '';
      const extra = s.extra.replace('owner_id', 't.owner_id');
      st = db.prepare(
        `SELECT ${PAGE_COLUMNS}, t.${s.key} AS k FROM idx_tokens t INDEXED BY ${s.index} JOIN idx_accounts a ON a.id = t.owner_id ` +
          `WHERE t.${s.scope} = ? AND t.${s.key} ${from} ?${bound}${extra} ORDER BY t.${s.key} ${order} LIMIT ?`,
      );
      pages.set(id, st);
    }
    return st;
  };
  // Keys of one filtered contract from a bound on, in listing direction: a pair's transfer list, or the contract's
  // slice of the owner's contract-ordered list (answering in token-id key space).
  const keyStmts = new Map<string, ReturnType<Db['prepare']>>();
  const ownerContractKeys = (byTransfer: boolean, dir: OrderDirection) => {
    const id = `${byTransfer}:${dir}`;
    let st = keyStmts.get(id);
    if (!st) {
      const asc = dir === 'asc';
      st = byTransfer
        ? db.prepare(
            `SELECT k_tr FROM idx_tokens INDEXED BY idx_tokens_pair_tr WHERE pair_id = ? AND k_tr ${asc ? '>=' : '<='} ? ` +
              `ORDER BY k_tr ${asc ? 'ASC' : 'DESC'} LIMIT ?`,
          )
        : db.prepare(
            asc
              ? 'SELECT k_id FROM idx_tokens INDEXED BY idx_tokens_owner_ct WHERE owner_id = ? AND k_ct >= ? AND k_ct < ? ORDER BY k_ct ASC LIMIT ?'
              : 'SELECT k_id FROM idx_tokens INDEXED BY idx_tokens_owner_ct WHERE owner_id = ? AND k_ct < ? AND k_ct >= ? ORDER BY k_ct DESC LIMIT ?',
          );
      st.pluck();
      keyStmts.set(id, st);
    }
    return st;
  };
  const byTr = db.prepare(
    `SELECT ${PAGE_COLUMNS}, t.k_tr AS k FROM idx_tokens t INDEXED BY idx_tokens_owner_tr JOIN idx_accounts a ON a.id = ` +
      `t.owner_id WHERE t.owner_id = ? AND t.k_tr = ?`,
  );
  const byKid = db.prepare(
    `SELECT ${PAGE_COLUMNS}, t.k_id AS k FROM idx_tokens t INDEXED BY idx_tokens_owner_id JOIN idx_accounts a ON a.id = ` +
      `t.owner_id WHERE t.owner_id = ? AND t.k_id = ?`,
  );
  const generation = readGeneration(db);
  let gen = '';
  // Contract rows are few and read on every page: kept until the index generation changes.
  const byAddress = new Map<string, ContractInfo | undefined>();
  const byId = new Map<number, ContractInfo | undefined>();
  const r: Reader = {
    refresh() {
      const g = generation();
      if (g !== gen) {
        gen = g;
        byAddress.clear();
        byId.clear();
      }
    },
    rank: createRankReader(db, () => gen),
    account: (a) => accountStmt.get(a) as { id: number; token_count: number } | undefined,
    contract: (a) => {
      if (!byAddress.has(a)) byAddress.set(a, contractStmt.get(a) as ContractInfo | undefined);
      return byAddress.get(a);
    },
    contractById: (id) => {
      if (!byId.has(id)) byId.set(id, contractByIdStmt.get(id) as ContractInfo | undefined);
      return byId.get(id);
    },
    ownerContractCount: (o, addr) => (ocStmt.get(o, addr) as number | undefined) ?? 0,
    ownerContracts: (o) => ocAllStmt.all(o) as number[],
    ownerCountBelow: (o, addr) => ocBelowStmt.get(o, addr) as number,
    pairId: (o, c) => pairStmt.get(o, c) as number | undefined,
    page: pageStmt,
    ownerContractKeys,
    rowsByKeys: (t) => (t ? byTr : byKid),
  };
  readers.set(db, r);
  return r;
}

export function findContract(db: Db, address: string): Contract | null {
  const r = reader(db);
  r.refresh();
  const c = r.contract(address.toLowerCase());
  return c ? toContract(c) : null;
}

function toTokens(r: Reader, rows: PageRow[]): Token[] {
  const contracts = new Map<number, Contract>();
  return rows.map((row) => {
    let c = contracts.get(row.contract_id);
    if (!c) {
      const info = r.contractById(row.contract_id);
      c = info ? toContract(info) : { address: '', name: '', symbol: '', totalSupply: 0, standard: 'ERC721' };
      contracts.set(row.contract_id, c);
    }
    return { id: row.token_id, owner: row.owner, uri: row.uri, balance: row.balance, contract: c };
  });
}

const EMPTY: TokenQueryResult = { tokens: [], totalCount: 0 };

/** contract + id (k_ct) -> id + contract (k_id). */
function idKeyOfContractKey(kCt: Buffer): Buffer {
  return Buffer.concat([kCt.subarray(20), kCt.subarray(0, 20)]);
}

/**
 * The k_ct bound, inside contract `addr`'s slice, that separates its tokens by k_id against `kId`: entries of that
 * contract with k_ct below the bound are exactly those with k_id < kId (or <= kId when `inclusive`). Ids are
 * length-prefixed, so a trailing 0xff sorts right after the id itself and before any larger id.
 */
function contractKeyBound(addr: Buffer, kId: Buffer, inclusive: boolean): Buffer {
  const idPart = kId.subarray(0, kId.length - 20);
  const otherAddr = kId.subarray(kId.length - 20);
  const cmp = Buffer.compare(addr, otherAddr);
  const takeEqual = inclusive ? cmp <= 0 : cmp < 0;
  return Buffer.concat(takeEqual ? [addr, idPart, Buffer.from([0xff])] : [addr, idPart]);
}

/** Greater than every order key (all are at most 62 bytes), so `<= MAX_KEY` opens a descending scan at the end. */
const MAX_KEY = Buffer.alloc(64, 0xff);
const MIN_KEY = Buffer.alloc(0);

/** Ranks [rank, rank+size) of one whole list, in `direction`. The first page needs no seek: it starts at an end. */
function seekList(r: Reader, code: ListCode, scopeId: number, total: number, rank: number, size: number, dir: OrderDirection): PageRow[] {
  const key = rank === 0 ? (dir === 'asc' ? MIN_KEY : MAX_KEY) : r.rank.keyAt(code, scopeId, ascendingRank(rank, total, dir), total);
  if (!key) return [];
  return r.page(code, dir, false).all(scopeId, key, size) as PageRow[];
}

const OWNER_LIST: Record<OwnerOrder, ListCode> = { transfer: LIST.OWNER_TR, token_id: LIST.OWNER_ID, contract_address: LIST.OWNER_CT };

/** Carries out the plan of listing-plan.ts. */
export function queryTokens(db: Db, q: TokenQueryInput): TokenQueryResult {
  const r = reader(db);
  r.refresh();
  const plan = planQuery(q);
  if (plan.kind === 'empty') return EMPTY;
  if (plan.kind === 'contract') {
    const c = r.contract(plan.address);
    if (!c || (plan.standard && c.standard !== plan.standard)) return EMPTY;
    const total = c.token_count;
    const start = pageStartRank(q.page, q.size, total);
    if (start === null) return { tokens: [], totalCount: total };
    const code = plan.order === 'transfer' ? LIST.CONTRACT_TR : LIST.CONTRACT_ID;
    return { tokens: toTokens(r, seekList(r, code, c.id, total, start, q.size, q.direction)), totalCount: total };
  }

  const owner = r.account(plan.owner);
  if (!owner) return EMPTY;
  const wholeOwnerList = (order: OwnerOrder): TokenQueryResult => {
    const total = owner.token_count;
    const start = pageStartRank(q.page, q.size, total);
    if (start === null) return { tokens: [], totalCount: total };
    return { tokens: toTokens(r, seekList(r, OWNER_LIST[order], owner.id, total, start, q.size, q.direction)), totalCount: total };
  };
  if (plan.kind === 'owner') return wholeOwnerList(plan.order);

  const ofStandard = (c: ContractInfo) => !plan.standard || c.standard === plan.standard;
  const mine = plan.filter ? null : r.ownerContracts(owner.id).map((id) => r.contractById(id)!);
  const kept = (plan.filter ? plan.filter.map((a) => r.contract(a)).filter((c): c is ContractInfo => c !== undefined) : mine!).filter(
    ofStandard,
  );
  const holdings: Holdings<ContractInfo> = {
    kept,
    mine: mine?.length ?? null,
    addr: (c) => c.addr,
    count: (c) => r.ownerContractCount(owner.id, c.addr),
    tokenCount: owner.token_count,
  };
  const then = planHoldings(q, holdings, 'sqlite');
  if (then.kind === 'empty') return EMPTY;
  if (then.kind === 'owner') return wholeOwnerList(then.order);
  if (then.kind === 'past-end') return { tokens: [], totalCount: then.total };
  const { total, start } = then;

  if (then.kind === 'pair') {
    // One contract: the (owner, contract) pair keeps its own transfer-ordered list.
    const pair = r.pairId(owner.id, then.held.of.id);
    if (pair === undefined) return { tokens: [], totalCount: total };
    return { tokens: toTokens(r, seekList(r, LIST.PAIR_TR, pair, total, start, q.size, q.direction)), totalCount: total };
  }

  if (then.kind === 'slices') {
    const rows: PageRow[] = [];
    for (const { held, from, take } of then.parts) {
      const { of: c, n } = held;
      const below = r.ownerCountBelow(owner.id, c.addr);
      const key = r.rank.keyAt(LIST.OWNER_CT, owner.id, below + ascendingRank(from, n, q.direction), owner.token_count);
      if (!key) break;
      const slice = contractSlice(c.addr);
      const bound = q.direction === 'asc' ? slice.hi : slice.lo;
      rows.push(...(r.page(LIST.OWNER_CT, q.direction, true).all(owner.id, key, bound, take) as PageRow[]));
    }
    return { tokens: toTokens(r, rows), totalCount: total };
  }

  // Several contracts in transfer or token-id order. Either merge the per-contract lists from their start
  // (reads up to start + size keys of each), or select the key at the page's first rank across them by rank
  // lookups (about k^2 log n lookups for k lists) and merge `size` keys of each from there (listing-plan.ts picks).
  const { byTransfer } = then;
  const held = then.held.map((x) => ({ c: x.of, n: x.n }));
  const asc = q.direction === 'asc';
  const st = r.ownerContractKeys(byTransfer, q.direction);
  let ranked: RankedList<Buffer>[];
  let from: ((bound: Buffer | null, limit: number) => Buffer[])[];
  if (byTransfer) {
    const pairs = held.map((x) => ({ pair: r.pairId(owner.id, x.c.id) ?? -1, n: x.n }));
    ranked = pairs.map(({ pair, n }) => ({
      size: n,
      keyAt: (i) => r.rank.keyAt(LIST.PAIR_TR, pair, i, n) ?? MAX_KEY,
      countLess: (k) => r.rank.rankOf(LIST.PAIR_TR, pair, k),
    }));
    from = pairs.map(
      ({ pair }) =>
        (bound, limit) =>
          st.all(pair, bound ?? (asc ? MIN_KEY : MAX_KEY), limit) as Buffer[],
    );
  } else {
    const lists = held.map((x) => ({ ...x, slice: contractSlice(x.c.addr) }));
    ranked = lists.map((x) => {
      // The slice's first rank in the owner's contract-ordered list; only a selection needs it.
      let below: number | undefined;
      const base = () => (below ??= r.ownerCountBelow(owner.id, x.c.addr));
      return {
        size: x.n,
        keyAt: (i) => idKeyOfContractKey(r.rank.keyAt(LIST.OWNER_CT, owner.id, base() + i, owner.token_count) ?? MAX_KEY),
        countLess: (k) => r.rank.rankOf(LIST.OWNER_CT, owner.id, contractKeyBound(x.c.addr, k, false)) - base(),
      };
    });
    from = lists.map((x) =>
      asc
        ? (bound, limit) => st.all(owner.id, bound ? contractKeyBound(x.c.addr, bound, false) : x.slice.lo, x.slice.hi, limit) as Buffer[]
        : (bound, limit) => st.all(owner.id, bound ? contractKeyBound(x.c.addr, bound, true) : x.slice.hi, x.slice.lo, limit) as Buffer[],
    );
  }
  let lists: Buffer[][];
  let skip = 0;
  if (then.combine === 'merge') {
    lists = from.map((read) => read(null, start + q.size));
    skip = start;
  } else {
    const answer = selectRank(ranked, ascendingRank(start, total, q.direction), Buffer.compare);
    if (!answer) return { tokens: [], totalCount: total };
    lists = from.map((read) => read(answer, q.size));
  }
  const sign = q.direction === 'asc' ? 1 : -1;
  const keys = mergeWindow(lists, (a, b) => sign * Buffer.compare(a, b), skip, q.size);
  const one = r.rowsByKeys(byTransfer);
  const rows = keys.map((k) => one.get(owner.id, k) as PageRow);
  return { tokens: toTokens(r, rows), totalCount: total };
}

/** The listing's reads on the SQLite database of a single instance, answered at once (no promise). */
export function openSqliteListingReads(db: Db): ListingReads {
  return { queryTokens: (q) => queryTokens(db, q), findContract: (address) => findContract(db, address) };
}
