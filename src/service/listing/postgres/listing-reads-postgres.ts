// Read side of the listing index on PostgreSQL: the same pages and totals as ../sqlite/listing-reads-sqlite.ts, by OFFSET/LIMIT on the
// (scope, key) indexes instead of counted rank buckets (keys are unique within a list, so an offset is a rank).
//
// Every page is chosen in two steps: an inner query picks the page's row ids from an INCLUDE (id) index alone (an
// index-only scan that steps over the entries before the page without touching the table, from whichever end of the
// list is nearer), and only those ids are joined with idx_tokens, idx_accounts and idx_contracts. A whole list (an
// owner's or a contract's) is one round trip: its counter row joined laterally with its page. A contracts or standard
// filter first reads the owner's (owner, contract) counters, then the page: a one-contract filter in transfer order is
// the pair's list; contract_address order (and token_id order with one contract) takes each contract's slice of the
// owner's contract-ordered list at offsets from the counters; transfer and token_id order over several contracts
// merge the heads of the per-contract lists, or filter the owner's whole list by contract, whichever is estimated
// cheaper.
import type { PgPool } from '../../db/pg-pool.js';
import type { Contract, OrderDirection, Standard, Token } from '../../../shared/listing.js';
import { pageStartRank } from '../listing-cursor.js';
import { nearerEnd, planHoldings, planQuery, type Holdings, type OwnerOrder } from '../listing-plan.js';
import { toContract, type ContractColumns, type ListingReads, type TokenQueryInput, type TokenQueryResult } from '../listing-reads.js';
import { contractSlice } from '../listing-keys.js';

const CONTRACT_COLUMNS = 'address, name, symbol, total_supply, minted, burned, standard';

/**
 * A named (prepared) statement for a whole-list query: each connection prepares it once, and after five runs
 * PostgreSQL may keep one generic plan for it instead of planning every request (planning took longer than running
 * the query: 2.65x the requests/s on page 0, 1.8x on a page 45,000 deep, bench/listing). Every generic plan of these
 * texts reads by index (checked by EXPLAIN of each list, order, direction and page depth under force_generic_plan).
 * Their texts come from a few shapes (list, key, direction, standard), so the names stay few. The filtered reads stay
 * unnamed: the holdings query's generic plan scans idx_contracts (76 ms for a large owner's holdings of one standard),
 * naming it saved nothing on a filtered page (1.55 ms against 1.48), and the page texts vary with the contracts.
 */
const statementNames = new Map<string, string>();
function prepared(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `listing_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/** The page's rows in listing order: `part` orders the pieces of a page (contract slices), `k` orders inside one. */
const PAGE_SQL = (ids: string) =>
  `SELECT p.part, p.k, t.token_id, t.uri, t.balance, a.address AS owner, t.contract_id, ${CONTRACT_COLUMNS.replace(/(\w+)/g, 'c.$1')} ` +
  `FROM (${ids}) p JOIN idx_tokens t ON t.id = p.id JOIN idx_accounts a ON a.id = t.owner_id LEFT JOIN idx_contracts c ON c.id = t.contract_id`;

type PageRow = { token_id: string; uri: string; balance: string; owner: string; contract_id: number; address: string | null } & Omit<
  ContractColumns,
  'address'
>;

const EMPTY: TokenQueryResult = { tokens: [], totalCount: 0 };

/** Numbered parameters of one SQL text. */
function params() {
  const args: unknown[] = [];
  return { args, $: (v: unknown) => (args.push(v), `$${args.length}`) };
}
type Params = ReturnType<typeof params>;

type Dir = 'ASC' | 'DESC';
const sqlDir = (d: OrderDirection): Dir => (d === 'asc' ? 'ASC' : 'DESC');
const flip = (d: Dir): Dir => (d === 'ASC' ? 'DESC' : 'ASC');

/** One ordered list: the column that scopes it, the SQL of the scope's id, and its key column. */
interface List {
  scope: 'owner_id' | 'contract_id' | 'pair_id';
  scopeId: string;
  key: 'k_tr' | 'k_id' | 'k_ct' | 'k_cid';
}

/**
 * Ids of entries [offset, offset + limit) of one list of `total` entries (SQL: a parameter, or the counter row's column
 * when the total is read in the same query), in `dir`; `range` narrows an owner's contract-ordered list to one
 * contract. nearerEnd in SQL: of the two branches, each gated by a condition on parameters alone, PostgreSQL runs one,
 * and a page past the end reads nothing.
 */
function listIds(
  p: Params,
  list: List,
  dir: Dir,
  offset: number,
  limit: number,
  total: string,
  part = 0,
  range?: { lo: Buffer; hi: Buffer },
): string {
  // Contract lists are partial indexes of held tokens; the owner and pair lists' own conditions imply theirs.
  const held = list.scope === 'contract_id' ? ' AND owner_id IS NOT NULL' : '';
  const slice = range ? ` AND ${list.key} >= ${p.$(range.lo)} AND ${list.key} < ${p.$(range.hi)}` : '';
  const from = `SELECT id, ${part} AS part, ${list.key} AS k FROM idx_tokens WHERE ${list.scope} = ${list.scopeId}${held}${slice}`;
  const [o, l] = [`${p.$(offset)}::bigint`, `${p.$(limit)}::bigint`];
  // The back branch keeps LIMIT a plain parameter and cuts the last page short outside: with a LIMIT the planner cannot
  // read, it expects thousands of ids and joins them with a full scan of idx_tokens instead of by id.
  const back = `${from} AND 2 * ${o} + ${l} > ${total} ORDER BY ${list.key} ${flip(dir)} OFFSET greatest(${total} - ${o} - ${l}, 0) LIMIT ${l}`;
  return (
    `(${from} AND 2 * ${o} + ${l} <= ${total} ORDER BY ${list.key} ${dir} OFFSET ${o} LIMIT ${l}) UNION ALL ` +
    `(SELECT * FROM (${back}) b ORDER BY k ${flip(dir)} LIMIT greatest(${total} - ${o}, 0))`
  );
}

function toTokens(rows: readonly PageRow[]): Token[] {
  const contracts = new Map<number, Contract>();
  return rows.map((row) => {
    let c = contracts.get(row.contract_id);
    if (!c) {
      c =
        row.address === null
          ? { address: '', name: '', symbol: '', totalSupply: 0, standard: 'ERC721' }
          : toContract({ ...row, address: row.address });
      contracts.set(row.contract_id, c);
    }
    return { id: row.token_id, owner: row.owner, uri: row.uri, balance: row.balance, contract: c };
  });
}

export async function findContractPg(pool: PgPool, address: string): Promise<Contract | null> {
  const { rows } = await pool.query<ContractColumns>(`SELECT ${CONTRACT_COLUMNS} FROM idx_contracts WHERE address = $1`, [
    address.toLowerCase(),
  ]);
  return rows[0] ? toContract(rows[0]) : null;
}

/**
 * One whole list of an account or a contract found by address (and standard), in one round trip: the counter row
 * with its page joined laterally, so an empty page still brings the total. No such row: EMPTY.
 */
async function wholeList(
  pool: PgPool,
  table: 'idx_accounts' | 'idx_contracts',
  address: string,
  standard: Standard | undefined,
  q: TokenQueryInput,
  list: (scopeId: string) => List,
): Promise<TokenQueryResult> {
  const p = params();
  const where = `address = ${p.$(address)}${standard ? ` AND standard = ${p.$(standard)}` : ''}`;
  // An offset that is no number of rows (overflow) reads nothing; the total still comes back.
  const start = q.page * q.size;
  const offset = Number.isSafeInteger(start) && start >= 0 ? start : Number.MAX_SAFE_INTEGER;
  const dir = sqlDir(q.direction);
  const { rows } = await pool.query<PageRow & { total: number }>(
    prepared(
      `SELECT s.total, r.* FROM (SELECT id, token_count AS total FROM ${table} WHERE ${where}) s ` +
        `LEFT JOIN LATERAL (${PAGE_SQL(listIds(p, list('s.id'), dir, offset, q.size, 's.total'))}) r ON true ORDER BY r.part, r.k ${dir}`,
      p.args,
    ),
  );
  if (rows.length === 0) return EMPTY;
  const total = rows[0]!.total;
  if (pageStartRank(q.page, q.size, total) === null) return { tokens: [], totalCount: total };
  return { tokens: toTokens(rows.filter((r) => r.token_id !== null)), totalCount: total };
}

interface Holding {
  contractId: number;
  addr: Buffer;
  n: number;
  pairId: number | null;
}

interface OwnerHoldings {
  id: number;
  tokenCount: number;
  /** The owner's contracts that pass the filter and the standard, with their counters (n may be 0). */
  kept: Holding[];
  /** How many contracts the owner has counters for; read only for a standard without a contracts filter. */
  mine: number;
}

/** The owner's counters for the filtered contracts (else all of its contracts) of the standard; null for an unknown owner. */
async function ownerHoldings(
  pool: PgPool,
  owner: string,
  filter: string[] | null,
  standard: Standard | undefined,
): Promise<OwnerHoldings | null> {
  const p = params();
  const ownerArg = p.$(owner);
  const ofStandard = standard ? ` AND c.standard = ${p.$(standard)}` : '';
  // A filter names contracts by address, found through their (owner, address) counter like the SQLite store does.
  const rows = filter
    ? `SELECT c.id AS contract_id, c.addr, oc.n, pr.id AS pair_id FROM idx_contracts c
         JOIN idx_owner_contract oc ON oc.owner_id = a.id AND oc.caddr = c.addr
         LEFT JOIN idx_pairs pr ON pr.owner_id = a.id AND pr.contract_id = c.id
         WHERE c.address = ANY(${p.$(filter)}::text[])${ofStandard}`
    : `SELECT c.id AS contract_id, c.addr, oc.n, pr.id AS pair_id FROM idx_owner_contract oc
         JOIN idx_contracts c ON c.id = oc.contract_id
         LEFT JOIN idx_pairs pr ON pr.owner_id = a.id AND pr.contract_id = c.id
         WHERE oc.owner_id = a.id${ofStandard}`;
  const mine = filter ? '0' : '(SELECT count(*) FROM idx_owner_contract WHERE owner_id = a.id)';
  const res = await pool.query<{
    id: number;
    token_count: number;
    mine: number;
    contract_id: number | null;
    addr: Buffer;
    n: number;
    pair_id: number | null;
  }>(
    `SELECT a.id, a.token_count, ${mine} AS mine, h.* FROM idx_accounts a LEFT JOIN LATERAL (${rows}) h ON true WHERE a.address = ${ownerArg}`,
    p.args,
  );
  const first = res.rows[0];
  if (!first) return null;
  const kept = res.rows
    .filter((r) => r.contract_id !== null)
    .map((r) => ({ contractId: r.contract_id!, addr: r.addr, n: r.n, pairId: r.pair_id }));
  return { id: first.id, tokenCount: first.token_count, kept, mine: first.mine };
}

async function readPage(pool: PgPool, p: Params, ids: string, dir: Dir): Promise<Token[]> {
  const { rows } = await pool.query<PageRow>(`${PAGE_SQL(ids)} ORDER BY p.part, p.k ${dir}`, p.args);
  return toTokens(rows);
}

const OWNER_KEY: Record<OwnerOrder, List['key']> = { transfer: 'k_tr', token_id: 'k_id', contract_address: 'k_ct' };

/** Carries out the plan of listing-plan.ts. */
export async function queryTokensPg(pool: PgPool, q: TokenQueryInput): Promise<TokenQueryResult> {
  const plan = planQuery(q);
  if (plan.kind === 'empty') return EMPTY;
  if (plan.kind === 'contract') {
    const key = plan.order === 'transfer' ? 'k_tr' : 'k_cid';
    return wholeList(pool, 'idx_contracts', plan.address, plan.standard, q, (scopeId) => ({ scope: 'contract_id', scopeId, key }));
  }
  const ownerList =
    (order: OwnerOrder) =>
    (scopeId: string): List => ({ scope: 'owner_id', scopeId, key: OWNER_KEY[order] });
  if (plan.kind === 'owner') return wholeList(pool, 'idx_accounts', plan.owner, undefined, q, ownerList(plan.order));

  const h = await ownerHoldings(pool, plan.owner, plan.filter, plan.standard);
  if (!h) return EMPTY;
  const holdings: Holdings<Holding> = {
    kept: h.kept,
    mine: plan.filter ? null : h.mine,
    addr: (x) => x.addr,
    count: (x) => x.n,
    tokenCount: h.tokenCount,
  };
  const then = planHoldings(q, holdings, 'postgres');
  if (then.kind === 'empty') return EMPTY;
  if (then.kind === 'owner') return wholeList(pool, 'idx_accounts', plan.owner, undefined, q, ownerList(then.order));
  if (then.kind === 'past-end') return { tokens: [], totalCount: then.total };
  const { total, start } = then;
  const page = (tokens: Token[]) => ({ tokens, totalCount: total });
  const p = params();
  const dir = sqlDir(q.direction);

  if (then.kind === 'pair') {
    const pair = then.held.of.pairId;
    if (pair === null) return page([]);
    return page(
      await readPage(pool, p, listIds(p, { scope: 'pair_id', scopeId: p.$(pair), key: 'k_tr' }, dir, start, q.size, p.$(then.held.n)), dir),
    );
  }

  // Pushed only where used: PostgreSQL cannot type a parameter that no part of the text refers to.
  const ownerId = () => p.$(h.id);
  if (then.kind === 'slices') {
    // Each contract is one contiguous slice of the owner's contract-ordered list, where key order is id order.
    const scope: List = { scope: 'owner_id', scopeId: ownerId(), key: 'k_ct' };
    const ids = then.parts.map(
      ({ held, from, take }, i) => `(${listIds(p, scope, dir, from, take, p.$(held.n), i, contractSlice(held.of.addr))})`,
    );
    return page(ids.length === 0 ? [] : await readPage(pool, p, ids.join(' UNION ALL '), dir));
  }

  // Several contracts in transfer or token-id order, read from the nearer end of their union.
  const { byTransfer, held } = then;
  const { backwards, reach, skip, take } = nearerEnd(start, q.size, total);
  const walk = backwards ? flip(dir) : dir;
  const cut = `OFFSET ${p.$(skip)} LIMIT ${p.$(take)}`;
  if (then.combine === 'scan') {
    // By contract_id, not by the address at the end of k_id (which the index alone could answer): the planner has
    // statistics for the column and keeps the ordered index scan; for the computed suffix it guessed a sort of all rows.
    const key = byTransfer ? 'k_tr' : 'k_id';
    const kept = `contract_id = ANY(${p.$(held.map((x) => x.of.contractId))}::bigint[])`;
    const ids = `SELECT id, 0 AS part, ${key} AS k FROM idx_tokens WHERE owner_id = ${ownerId()} AND ${kept} ORDER BY ${key} ${walk} ${cut}`;
    return page(await readPage(pool, p, ids, dir));
  }
  // Merge: only the first `reach` entries of each list can be on the page. By token id, a contract's slice of the
  // owner's contract-ordered list is in id order, and its token-id key is the contract key's halves swapped.
  const limit = p.$(reach);
  let lists: string[];
  if (byTransfer) {
    lists = held
      .filter((x) => x.of.pairId !== null)
      .map((x) => `(SELECT id, k_tr AS k FROM idx_tokens WHERE pair_id = ${p.$(x.of.pairId)} ORDER BY k_tr ${walk} LIMIT ${limit})`);
  } else {
    const id = ownerId();
    lists = held.map((x) => {
      const s = contractSlice(x.of.addr);
      return (
        `(SELECT id, substring(k_ct from 21) || substring(k_ct for 20) AS k FROM idx_tokens ` +
        `WHERE owner_id = ${id} AND k_ct >= ${p.$(s.lo)} AND k_ct < ${p.$(s.hi)} ORDER BY k_ct ${walk} LIMIT ${limit})`
      );
    });
  }
  if (lists.length === 0) return page([]);
  return page(await readPage(pool, p, `SELECT id, 0 AS part, k FROM (${lists.join(' UNION ALL ')}) u ORDER BY k ${walk} ${cut}`, dir));
}

/** The listing's reads on the fleet's PostgreSQL. */
export function openPostgresListingReads(pool: PgPool): ListingReads {
  return { queryTokens: (q) => queryTokensPg(pool, q), findContract: (address) => findContractPg(pool, address) };
}
