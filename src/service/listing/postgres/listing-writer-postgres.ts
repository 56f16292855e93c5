// Write side of the listing index on PostgreSQL: the rows a range touches are read first (`loadOverlay`), the range is
// applied to them in memory through the same synchronous IndexWriter as on SQLite, and the changes are written in
// bulk inside the caller's transaction (`writeOverlay`). The feeder says what it writes (a WriteIntent); which rows
// that reads is worked out here (listing-writer-postgres-needs.ts).
//
// Only the indexer leader writes (under its lock), so ids of new rows are handed out here from the highest id read at
// load time; the caller's commit checks that the index tip is still the one the overlay was loaded at, so a stale
// leader's write fails instead of reusing ids.
import type { QueryResultRow } from 'pg';
import type { PgClient, PgPool } from '../../db/pg-pool.js';
import type { PostgresListingWriter } from '../listing-writer.js';
import { tokenKeys, type ContractRow, type IdRow, type IndexWriter, type TokenRow } from '../listing-writer.js';
import { addressBytes, holdingIdKey, holdingsUpperBound } from '../listing-keys.js';
import { LISTING_PG_SCHEMA_STEPS } from './listing-schema-postgres.js';
import { forEachInPieces, runInPieces } from '../../../lib/event-loop-pieces.js';
import { needsOf, type ContractRef, type OverlayNeeds } from './listing-writer-postgres-needs.js';

/**
 * Moves, keys or rows handled between two turns of the event loop while a write is prepared and while its statements
 * are built (each statement takes at most this many rows): the writer runs on the thread that answers every network,
 * and in one piece a 10,000-move range held it 30-60 ms working out and loading its rows and 45-65 ms building the
 * transaction's parameters (docs/deploy.md, "Isolation between networks"; bench/indexer/pg-write-steps.js).
 */
export const WRITE_PIECE = 500;

/**
 * The listing's write side on the fleet's PostgreSQL: read what a write touches, apply it in memory, commit it.
 * `piece`: WRITE_PIECE; Infinity does each step in one piece and each kind of change in one statement (as before).
 */
export function openPostgresListingWriter(pool: PgPool, piece = WRITE_PIECE): PostgresListingWriter {
  return {
    schemaSteps: LISTING_PG_SCHEMA_STEPS,
    async prepare(intent) {
      const needs = await runInPieces(needsOf(intent, piece));
      const w = await runInPieces(overlayWriter(await loadOverlay(pool, needs, piece), piece));
      return Object.assign(w, { commit: (c: PgClient) => writeOverlay(c, w.changes(), piece) });
    },
  };
}

type Contract = ContractRow & { first_block: number };

const hex = (b: Buffer) => b.toString('hex');
const tkey = (cid: number, k: Buffer) => `${cid}:${hex(k)}`;
const rkey = (cid: number, lo: Buffer, hi: Buffer, limit: number) => `${cid}:${hex(lo)}:${hex(hi)}:${limit}`;

/** Rows read for one write, and the next free ids. */
export interface Overlay {
  contracts: Map<string, Contract>;
  contractsById: Map<number, Contract>;
  accounts: Map<string, number>;
  accountAddresses: Map<number, string>;
  /** null: asked for and absent. */
  tokens: Map<string, TokenRow | null>;
  ids: Map<string, IdRow | null>;
  holdings: Map<string, TokenRow[]>;
  pairs: Map<string, number>;
  nonZero: Map<number, number>;
  tokenRanges: Map<string, { id: number; token_id: string; k_cid: Buffer }[]>;
  idRanges: Map<string, Buffer[]>;
  next: { account: number; contract: number; token: number; pair: number };
}

const CONTRACT_COLUMNS = 'id, address, addr, has_uri, total_supply, standard, first_block';
const TOKEN_COLUMNS = 'id, contract_id, token_id, owner_id, pair_id, k_tr, k_id, k_ct, k_cid, balance, uri';

/**
 * Reads what `needs` names: contracts and accounts first (later keys are by their ids), then the rest at once, each
 * kind `piece` keys a query, one query of a kind after the other.
 */
async function loadOverlay(pool: PgPool, needs: OverlayNeeds, piece: number): Promise<Overlay> {
  // Keys are read in pieces of `piece`; `use` takes each piece's rows as they come.
  const inPieces = async <K, T extends QueryResultRow>(
    keys: readonly K[],
    sql: string,
    params: (part: readonly K[]) => unknown[],
    use: (rows: T[]) => void,
  ) => {
    for (let i = 0; i < keys.length; i += piece) use((await pool.query<T>(sql, params(keys.slice(i, i + piece)))).rows);
  };
  // A move's recipient is both an account and a pair's owner: each address is asked for once.
  const addresses = new Set(needs.accounts);
  await forEachInPieces(needs.pairs, piece, (p) => void (typeof p.owner === 'string' && addresses.add(p.owner)));
  const accounts = new Map<string, number>();
  const accountAddresses = new Map<number, string>();
  const byAddress = [...addresses];
  const [contracts, , max] = await Promise.all([
    pool.query<Contract>(`SELECT ${CONTRACT_COLUMNS} FROM idx_contracts WHERE address = ANY($1::text[]) OR id = ANY($2::bigint[])`, [
      [...needs.contracts, ...needs.ranges.map((r) => r.contract)],
      [...needs.contractIds],
    ]),
    // By address in pieces, then by id (a rollback's few receivers) in one.
    (async () => {
      const use = (rows: { id: number; address: string }[]) => {
        for (const a of rows) {
          accounts.set(a.address, a.id);
          accountAddresses.set(a.id, a.address);
        }
      };
      const sql = 'SELECT id, address FROM idx_accounts WHERE address = ANY($1::text[]) OR id = ANY($2::bigint[])';
      await inPieces(byAddress, sql, (part) => [part, []], use);
      if (needs.accountIds.size > 0) await inPieces([null], sql, () => [[], [...needs.accountIds]], use);
    })(),
    pool.query<{ a: number; c: number; t: number; p: number }>(
      'SELECT (SELECT coalesce(max(id), 0) FROM idx_accounts) AS a, (SELECT coalesce(max(id), 0) FROM idx_contracts) AS c, ' +
        '(SELECT coalesce(max(id), 0) FROM idx_tokens) AS t, (SELECT coalesce(max(id), 0) FROM idx_pairs) AS p',
    ),
  ]);
  const m = max.rows[0]!;
  const o: Overlay = {
    contracts: new Map(contracts.rows.map((c) => [c.address, c])),
    contractsById: new Map(contracts.rows.map((c) => [c.id, c])),
    accounts,
    accountAddresses,
    tokens: new Map(),
    ids: new Map(),
    holdings: new Map(),
    pairs: new Map(),
    nonZero: new Map(),
    tokenRanges: new Map(),
    idRanges: new Map(),
    next: { account: Number(m.a) + 1, contract: Number(m.c) + 1, token: Number(m.t) + 1, pair: Number(m.p) + 1 },
  };

  const cid = (ref: ContractRef) => (typeof ref === 'number' ? ref : o.contracts.get(ref)?.id);
  // Keys of contracts the index does not hold yet are absent without asking; the others are absent until read. A key
  // named twice is asked for once.
  const keysOf = async <T>(list: readonly T[], key: (x: T) => { contract: ContractRef; k: Buffer }, absent: Map<string, unknown>) => {
    const out: { c: number; k: Buffer }[] = [];
    await forEachInPieces(list, piece, (x) => {
      const { contract, k } = key(x);
      const c = cid(contract);
      if (c === undefined || absent.has(tkey(c, k))) return;
      absent.set(tkey(c, k), null);
      out.push({ c, k });
    });
    return out;
  };
  const tokenKeys = await keysOf(needs.tokens, (t) => ({ contract: t.contract, k: t.kCid }), o.tokens);
  const idKeys = await keysOf(needs.ids, (t) => ({ contract: t.contract, k: t.kId }), o.ids);
  const pairKeys: { owner: number; c: number }[] = [];
  const pairsSeen = new Set<string>();
  await forEachInPieces(needs.pairs, piece, (p) => {
    const c = cid(p.contract);
    const owner = typeof p.owner === 'number' ? p.owner : o.accounts.get(p.owner);
    if (c === undefined || owner === undefined || pairsSeen.has(`${owner}:${c}`)) return;
    pairsSeen.add(`${owner}:${c}`);
    pairKeys.push({ owner, c });
  });
  // Each kind reads its pieces one after the other; the kinds read at the same time.
  const reads: Promise<void>[] = [];
  const read = <K, T extends QueryResultRow>(
    keys: readonly K[],
    sql: string,
    params: (part: readonly K[]) => unknown[],
    use: (rows: T[]) => void,
  ) => void reads.push(inPieces(keys, sql, params, use));
  read<{ c: number; k: Buffer }, TokenRow>(
    tokenKeys,
    `SELECT t.${TOKEN_COLUMNS.split(', ').join(', t.')} FROM unnest($1::bigint[], $2::bytea[]) AS u(c, k) ` +
      'JOIN idx_tokens t ON t.contract_id = u.c AND t.k_cid = u.k',
    (part) => [part.map((t) => t.c), part.map((t) => t.k)],
    (rows) => rows.forEach((t) => o.tokens.set(tkey(t.contract_id, t.k_cid), t)),
  );
  read<{ c: number; k: Buffer }, { contract_id: number; k_id: Buffer; supply: string; uri: string }>(
    idKeys,
    'SELECT i.contract_id, i.k_id, i.supply, i.uri FROM unnest($1::bigint[], $2::bytea[]) AS u(c, k) JOIN idx_ids i ON i.contract_id = u.c AND i.k_id = u.k',
    (part) => [part.map((t) => t.c), part.map((t) => t.k)],
    (rows) => rows.forEach((i) => o.ids.set(tkey(i.contract_id, i.k_id), { supply: i.supply, uri: i.uri })),
  );
  for (const h of needs.holdingsOfIds) o.holdings.set(tkey(h.contract, h.kId), []);
  read<{ contract: number; kId: Buffer }, TokenRow & { u_k: Buffer }>(
    needs.holdingsOfIds,
    `SELECT u.k AS u_k, t.${TOKEN_COLUMNS.split(', ').join(', t.')} FROM unnest($1::bigint[], $2::bytea[], $3::bytea[]) AS u(c, k, hi)
       JOIN idx_tokens t ON t.contract_id = u.c AND t.k_cid > u.k AND t.k_cid < u.hi`,
    (part) => [part.map((h) => h.contract), part.map((h) => h.kId), part.map((h) => holdingsUpperBound(h.kId))],
    (rows) => {
      for (const { u_k, ...t } of rows) {
        o.holdings.get(tkey(t.contract_id, u_k))!.push(t);
        o.tokens.set(tkey(t.contract_id, t.k_cid), t);
      }
    },
  );
  read<{ owner: number; c: number }, { id: number; owner_id: number; contract_id: number }>(
    pairKeys,
    'SELECT p.id, p.owner_id, p.contract_id FROM unnest($1::bigint[], $2::bigint[]) AS u(o, c) JOIN idx_pairs p ON p.owner_id = u.o AND p.contract_id = u.c',
    (part) => [part.map((p) => p.owner), part.map((p) => p.c)],
    (rows) => rows.forEach((p) => o.pairs.set(`${p.owner_id}:${p.contract_id}`, p.id)),
  );
  read<number, { contract_id: number; n: number }>(
    [...needs.nonZero],
    "SELECT c AS contract_id, (SELECT count(*) FROM idx_ids WHERE contract_id = c AND supply <> '0') AS n FROM unnest($1::bigint[]) AS u(c)",
    (part) => [part],
    (rows) => rows.forEach((x) => o.nonZero.set(x.contract_id, Number(x.n))),
  );
  // An ERC-4906 range may hold METADATA_UPDATE_CAP rows: read `piece` rows a query, each page from just above the last
  // key read, so that no one answer takes long to parse on this thread (10,000 rows at once held it 20-40 ms).
  const readRange = async <T extends QueryResultRow>(
    sql: string,
    contract: number,
    r: OverlayNeeds['ranges'][number],
    keyOf: (row: T) => Buffer,
  ) => {
    const rows: T[] = [];
    for (let lo = r.lo; ; ) {
      const want = Math.min(piece, r.limit - rows.length);
      const page = (await pool.query<T>(sql, [contract, lo, r.hi, want])).rows;
      rows.push(...page);
      if (page.length < want || rows.length >= r.limit) return rows;
      // The smallest key above the last one read: bytea sorts a prefix first.
      lo = Buffer.concat([keyOf(page.at(-1)!), Buffer.of(0)]);
    }
  };
  for (const r of needs.ranges) {
    const c = o.contracts.get(r.contract);
    if (!c) continue;
    const key = rkey(c.id, r.lo, r.hi, r.limit);
    if (c.standard === 'ERC721') {
      const sql =
        'SELECT id, token_id, k_cid FROM idx_tokens WHERE contract_id = $1 AND k_cid >= $2 AND k_cid <= $3 ORDER BY k_cid LIMIT $4';
      const got = readRange<{ id: number; token_id: string; k_cid: Buffer }>(sql, c.id, r, (t) => t.k_cid);
      reads.push(got.then((rows) => void o.tokenRanges.set(key, rows)));
    } else {
      const sql = 'SELECT k_id FROM idx_ids WHERE contract_id = $1 AND k_id >= $2 AND k_id <= $3 ORDER BY k_id LIMIT $4';
      const got = readRange<{ k_id: Buffer }>(sql, c.id, r, (i) => i.k_id);
      reads.push(
        got.then(
          (rows) =>
            void o.idRanges.set(
              key,
              rows.map((row) => row.k_id),
            ),
        ),
      );
    }
  }
  await Promise.all(reads);
  return o;
}

/** What an overlay writer changed, in the form `writeOverlay` writes. */
export interface OverlayChanges {
  newAccounts: { id: number; address: string }[];
  newContracts: (Contract & { name: string; symbol: string })[];
  newPairs: { id: number; owner: number; contract: number }[];
  /** Token rows as they end: inserted when in `created`, else updated. */
  tokens: Map<number, TokenRow>;
  created: Set<number>;
  /** Rows that existed before and are gone. */
  deleted: Set<number>;
  /** uri of token rows this overlay did not load (a backfill), by row id. */
  uris: Map<number, string>;
  /** ERC-1155 id uris to copy to every holding of the id, in order. */
  idUris: { contract: number; kId: Buffer; uri: string }[];
  ids: Map<string, { contract: number; kId: Buffer; row: IdRow }>;
  totalSupply: Map<number, string | null>;
  mintBurn: Map<number, [number, number]>;
  contractCount: Map<number, number>;
  accountCount: Map<number, number>;
  ownerContract: Map<string, { owner: number; caddr: Buffer; contract: number; n: number }>;
  transfers: {
    block: number;
    logIndex: number;
    sub: number;
    contract: number;
    kId: Buffer;
    from: number | null;
    to: number | null;
    amount: string | null;
  }[];
  dropContractsAbove: number | null;
}

export type OverlayWriter = IndexWriter & { changes(): OverlayChanges };

/**
 * The IndexWriter over loaded rows: reads come from the overlay, changes are kept for writeOverlay. A generator that
 * yields after every `piece` loaded rows it indexes (runInPieces runs it) and returns the writer.
 */
function* overlayWriter(o: Overlay, piece: number): Generator<void, OverlayWriter, undefined> {
  const ch: OverlayChanges = {
    newAccounts: [],
    newContracts: [],
    newPairs: [],
    tokens: new Map(),
    created: new Set(),
    deleted: new Set(),
    uris: new Map(),
    idUris: [],
    ids: new Map(),
    totalSupply: new Map(),
    mintBurn: new Map(),
    contractCount: new Map(),
    accountCount: new Map(),
    ownerContract: new Map(),
    transfers: [],
    dropContractsAbove: null,
  };
  const tokensById = new Map<number, TokenRow>();
  // ERC-1155 holdings by id (their k_cid is the id key plus the holder's address), for uri copies and replays.
  const holders = new Map<string, Set<TokenRow>>();
  const idOfHolding = (t: TokenRow) => (t.k_cid.length > t.k_id.length ? tkey(t.contract_id, t.k_id) : null);
  function track(t: TokenRow): void {
    tokensById.set(t.id, t);
    const k = idOfHolding(t);
    if (k !== null) {
      let set = holders.get(k);
      if (!set) holders.set(k, (set = new Set()));
      set.add(t);
    }
  }
  function untrack(t: TokenRow): void {
    tokensById.delete(t.id);
    const k = idOfHolding(t);
    if (k !== null) holders.get(k)?.delete(t);
  }
  let tracked = 0;
  for (const t of o.tokens.values()) {
    if (t) track(t);
    if (++tracked % piece === 0) yield;
  }

  const missing = (what: string): never => {
    throw new Error(`index writer asked for ${what}, which was not loaded for this write (a bug in the write's needs)`);
  };
  const contractOf = (id: number) => o.contractsById.get(id) ?? missing(`contract ${id}`);

  function pairId(owner: number, contract: number): number {
    const key = `${owner}:${contract}`;
    let id = o.pairs.get(key);
    if (id === undefined) {
      id = o.next.pair++;
      o.pairs.set(key, id);
      ch.newPairs.push({ id, owner, contract });
    }
    return id;
  }

  function move(t: TokenRow, owner: number, delta: 1 | -1): void {
    const c = contractOf(t.contract_id);
    ch.accountCount.set(owner, (ch.accountCount.get(owner) ?? 0) + delta);
    ch.contractCount.set(c.id, (ch.contractCount.get(c.id) ?? 0) + delta);
    const key = `${owner}:${c.id}`;
    const oc = ch.ownerContract.get(key) ?? { owner, caddr: c.addr, contract: c.id, n: 0 };
    oc.n += delta;
    ch.ownerContract.set(key, oc);
  }

  function touch(t: TokenRow): void {
    ch.tokens.set(t.id, t);
  }

  function insert(
    c: ContractRow,
    tokenId: string,
    owner: number | null,
    kTr: Buffer,
    keys: { kId: Buffer; kCt: Buffer },
    kCid: Buffer,
    balance: string,
    uri: string,
  ): TokenRow {
    const pair = owner === null ? null : pairId(owner, c.id);
    const t: TokenRow = {
      id: o.next.token++,
      contract_id: c.id,
      token_id: tokenId,
      owner_id: owner,
      pair_id: pair,
      k_tr: kTr,
      k_id: keys.kId,
      k_ct: keys.kCt,
      k_cid: kCid,
      balance,
      uri,
    };
    o.tokens.set(tkey(c.id, kCid), t);
    track(t);
    ch.created.add(t.id);
    touch(t);
    if (owner !== null) move(t, owner, 1);
    return t;
  }

  // A contract added by this write has no rows in the index: nothing of it was loaded, and nothing needed to be.
  const added = new Set<number>();

  function token(contractId: number, kCid: Buffer): TokenRow | undefined {
    const v = o.tokens.get(tkey(contractId, kCid));
    if (v === undefined && !added.has(contractId)) missing(`token ${tkey(contractId, kCid)}`);
    return v ?? undefined;
  }

  function idState(contractId: number, kId: Buffer): IdRow | undefined {
    const v = o.ids.get(tkey(contractId, kId));
    if (v === undefined && !added.has(contractId)) missing(`id ${tkey(contractId, kId)}`);
    return v ?? undefined;
  }

  return {
    accountId(address) {
      let id = o.accounts.get(address);
      if (id === undefined) {
        // Every address a write names is loaded; one not in the index yet is new.
        id = o.next.account++;
        o.accounts.set(address, id);
        o.accountAddresses.set(id, address);
        ch.newAccounts.push({ id, address });
      }
      return id;
    },
    contract: (address) => o.contracts.get(address),
    contractById: (id) => o.contractsById.get(id),
    addContract(n) {
      const c: Contract = {
        id: o.next.contract++,
        address: n.address,
        addr: addressBytes(n.address),
        has_uri: n.hasUri ? 1 : 0,
        total_supply: n.totalSupply,
        standard: n.standard,
        first_block: n.firstBlock,
      };
      o.contracts.set(c.address, c);
      o.contractsById.set(c.id, c);
      added.add(c.id);
      ch.newContracts.push({ ...c, name: n.name, symbol: n.symbol });
      return c;
    },
    setTotalSupply(contractId, value) {
      const c = o.contractsById.get(contractId);
      if (c) c.total_supply = value;
      ch.totalSupply.set(contractId, value);
    },
    addMintBurn(contractId, minted, burned) {
      const mb = ch.mintBurn.get(contractId) ?? [0, 0];
      mb[0] += minted;
      mb[1] += burned;
      ch.mintBurn.set(contractId, mb);
    },
    token,
    createToken(c, id, owner, kTr, uri, holder) {
      const keys = tokenKeys(c.addr, id);
      const kCid = holder ? holdingIdKey(keys.kId, addressBytes(holder.address)) : keys.kId;
      return insert(c, id.toString(), owner, kTr, keys, kCid, holder?.balance ?? '1', uri);
    },
    createMinted(c, id, owner, kTr, uri, keys) {
      const k = keys ?? tokenKeys(c.addr, id);
      if (token(c.id, k.kId)) return undefined;
      return insert(c, id.toString(), owner, kTr, k, k.kId, '1', uri);
    },
    setBalance(t, balance) {
      if (t.balance === balance) return;
      t.balance = balance;
      touch(t);
    },
    idRow: idState,
    putId(contractId, kId, row) {
      const before = idState(contractId, kId);
      const was = before !== undefined && before.supply !== '0' ? 1 : 0;
      const is = row.supply !== '0' ? 1 : 0;
      if (o.nonZero.has(contractId)) o.nonZero.set(contractId, o.nonZero.get(contractId)! + is - was);
      const copy = { ...row };
      o.ids.set(tkey(contractId, kId), copy);
      ch.ids.set(tkey(contractId, kId), { contract: contractId, kId, row: copy });
    },
    setIdUri(contractId, kId, uri) {
      // Rows loaded or made here change now; the write then updates the id and every holding in the database, loaded
      // or not (a backfill loads nothing).
      const row = o.ids.get(tkey(contractId, kId));
      if (row) row.uri = uri;
      for (const t of holders.get(tkey(contractId, kId)) ?? []) t.uri = uri;
      ch.idUris.push({ contract: contractId, kId, uri });
    },
    setOwner(t, owner, kTr) {
      if (t.owner_id !== null) move(t, t.owner_id, -1);
      t.owner_id = owner;
      t.pair_id = owner === null ? null : pairId(owner, t.contract_id);
      t.k_tr = kTr;
      if (owner !== null) move(t, owner, 1);
      touch(t);
    },
    setUri(rowId, uri) {
      const t = tokensById.get(rowId);
      if (t) {
        t.uri = uri;
        touch(t);
      } else ch.uris.set(rowId, uri);
    },
    deleteToken(t) {
      if (t.owner_id !== null) move(t, t.owner_id, -1);
      o.tokens.set(tkey(t.contract_id, t.k_cid), null);
      untrack(t);
      ch.tokens.delete(t.id);
      if (ch.created.has(t.id)) ch.created.delete(t.id);
      else ch.deleted.add(t.id);
    },
    recordTransfer(block, logIndex, sub, contract, kId, from, to, amount) {
      ch.transfers.push({ block, logIndex, sub, contract, kId, from, to, amount });
    },
    dropContractsAbove(block) {
      ch.dropContractsAbove = block;
      for (const c of [...o.contractsById.values()]) {
        if (c.first_block > block) {
          o.contracts.delete(c.address);
          o.contractsById.delete(c.id);
        }
      }
    },
    accountAddress: (id) => o.accountAddresses.get(id) ?? missing(`account ${id}`),
    holdingsOfId(contractId, kId) {
      if (!o.holdings.has(tkey(contractId, kId))) missing(`holdings of ${tkey(contractId, kId)}`);
      // All of them were loaded: those tracked now are the holdings as they stand.
      return [...(holders.get(tkey(contractId, kId)) ?? [])];
    },
    countNonZeroIds: (contractId) => o.nonZero.get(contractId) ?? missing(`non-zero ids of contract ${contractId}`),
    // Ranges as the database held them, joined with the rows this write made (SQLite reads them after its writes).
    tokensInIdRange(contractId, lo, hi, limit) {
      const loaded =
        o.tokenRanges.get(rkey(contractId, lo, hi, limit)) ??
        (added.has(contractId) ? [] : missing(`tokens in a range of contract ${contractId}`));
      const inRange = (k: Buffer) => Buffer.compare(k, lo) >= 0 && Buffer.compare(k, hi) <= 0;
      const made = [...ch.created].map((id) => tokensById.get(id)!).filter((t) => t.contract_id === contractId && inRange(t.k_cid));
      // The loaded rows come in key order: only what this write made needs sorting in (none, when the update came alone).
      const rows = mergeByKey(
        loaded.filter((r) => !ch.deleted.has(r.id)),
        made.map((t) => ({ id: t.id, token_id: t.token_id, k_cid: t.k_cid })).sort((a, b) => Buffer.compare(a.k_cid, b.k_cid)),
        (r) => r.k_cid,
        limit,
      );
      return rows.map((r) => ({ id: r.id, token_id: r.token_id }));
    },
    idKeysInRange(contractId, lo, hi, limit) {
      const loaded =
        o.idRanges.get(rkey(contractId, lo, hi, limit)) ??
        (added.has(contractId) ? [] : missing(`ids in a range of contract ${contractId}`));
      const known = new Set(loaded.map(hex));
      const made: Buffer[] = [];
      for (const { contract, kId } of ch.ids.values()) {
        if (contract !== contractId || known.has(hex(kId))) continue;
        if (Buffer.compare(kId, lo) >= 0 && Buffer.compare(kId, hi) <= 0) made.push(kId);
      }
      return mergeByKey(loaded, made.sort(Buffer.compare), (k) => k, limit);
    },
    flush() {
      // Counters are written with everything else by writeOverlay.
    },
    changes: () => ch,
  };
}

/** The first `limit` of two lists each in key order, merged in key order. */
function mergeByKey<T>(a: readonly T[], b: readonly T[], key: (x: T) => Buffer, limit: number): T[] {
  if (b.length === 0) return a.slice(0, limit);
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && Buffer.compare(key(a[i]!), key(b[j]!)) <= 0)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/**
 * Writes an overlay's changes inside the caller's transaction, in bulk: one statement per kind of change and piece of
 * at most `piece` rows (a statement's parameters are built on the thread that answers every network; a 10,000-move
 * range's in one go held it 45-65 ms).
 */
async function writeOverlay(c: PgClient, ch: OverlayChanges, piece: number): Promise<void> {
  const q = (sql: string, params: unknown[]) => c.query(sql, params);
  const inPieces = async <T>(rows: readonly T[], sql: string, params: (part: readonly T[]) => unknown[]) => {
    for (let i = 0; i < rows.length; i += piece) await q(sql, params(rows.slice(i, i + piece)));
  };
  await inPieces(ch.newAccounts, 'INSERT INTO idx_accounts (id, address) SELECT * FROM unnest($1::bigint[], $2::text[])', (a) => [
    a.map((x) => x.id),
    a.map((x) => x.address),
  ]);
  await inPieces(
    ch.newContracts,
    'INSERT INTO idx_contracts (id, address, addr, name, symbol, total_supply, has_uri, first_block, standard) SELECT * ' +
      'FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[], ' +
      '$9::text[])',
    (n) => [
      n.map((x) => x.id),
      n.map((x) => x.address),
      n.map((x) => x.addr),
      n.map((x) => x.name),
      n.map((x) => x.symbol),
      n.map((x) => x.total_supply),
      n.map((x) => x.has_uri),
      n.map((x) => x.first_block),
      n.map((x) => x.standard),
    ],
  );
  await inPieces(
    ch.newPairs,
    'INSERT INTO idx_pairs (id, owner_id, contract_id) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])',
    (p) => [p.map((x) => x.id), p.map((x) => x.owner), p.map((x) => x.contract)],
  );
  // Deletes first (every piece): a replayed ERC-1155 id deletes and re-creates holdings with the same keys.
  await inPieces([...ch.deleted], 'DELETE FROM idx_tokens WHERE id = ANY($1::bigint[])', (ids) => [ids]);
  const created: TokenRow[] = [];
  const changed: TokenRow[] = [];
  await forEachInPieces(ch.tokens.values(), piece, (t) => (ch.created.has(t.id) ? created : changed).push(t));
  await inPieces(
    created,
    `INSERT INTO idx_tokens (${TOKEN_COLUMNS}) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], ` +
      `$5::bigint[], $6::bytea[], $7::bytea[], $8::bytea[], $9::bytea[], $10::text[], $11::text[])`,
    columns,
  );
  await inPieces(
    changed,
    'UPDATE idx_tokens t SET owner_id = u.owner_id, pair_id = u.pair_id, k_tr = u.k_tr, balance = u.balance, uri = u.uri ' +
      'FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bytea[], $5::text[], $6::text[]) AS u(id, owner_id, ' +
      'pair_id, k_tr, balance, uri) WHERE t.id = u.id',
    (part) => {
      const [id, , , owner, pair, kTr, , , , balance, uri] = columns(part);
      return [id, owner, pair, kTr, balance, uri];
    },
  );
  await inPieces(
    [...ch.uris],
    'UPDATE idx_tokens t SET uri = u.uri FROM unnest($1::bigint[], $2::text[]) AS u(id, uri) WHERE t.id = u.id',
    (part) => [part.map(([id]) => id), part.map(([, uri]) => uri)],
  );
  await inPieces(
    [...ch.ids.values()],
    'INSERT INTO idx_ids (contract_id, k_id, supply, uri) SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[], ' +
      '$4::text[]) ON CONFLICT (contract_id, k_id) DO UPDATE SET supply = excluded.supply, uri = excluded.uri',
    (ids) => [ids.map((i) => i.contract), ids.map((i) => i.kId), ids.map((i) => i.row.supply), ids.map((i) => i.row.uri)],
  );
  for (const u of ch.idUris) {
    await q('UPDATE idx_ids SET uri = $1 WHERE contract_id = $2 AND k_id = $3', [u.uri, u.contract, u.kId]);
    await q('UPDATE idx_tokens SET uri = $1 WHERE contract_id = $2 AND k_cid > $3 AND k_cid < $4', [
      u.uri,
      u.contract,
      u.kId,
      holdingsUpperBound(u.kId),
    ]);
  }
  await inPieces(
    [...new Set([...ch.totalSupply.keys(), ...ch.mintBurn.keys(), ...ch.contractCount.keys()])],
    `UPDATE idx_contracts c SET total_supply = CASE WHEN u.set_supply THEN u.supply ELSE c.total_supply END,
         minted = c.minted + u.minted, burned = c.burned + u.burned, token_count = c.token_count + u.n
       FROM unnest($1::bigint[], $2::bool[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
         AS u(id, set_supply, supply, minted, burned, n) WHERE c.id = u.id`,
    (contractIds) => [
      contractIds,
      contractIds.map((id) => ch.totalSupply.has(id)),
      contractIds.map((id) => ch.totalSupply.get(id) ?? null),
      contractIds.map((id) => ch.mintBurn.get(id)?.[0] ?? 0),
      contractIds.map((id) => ch.mintBurn.get(id)?.[1] ?? 0),
      contractIds.map((id) => ch.contractCount.get(id) ?? 0),
    ],
  );
  await inPieces(
    [...ch.accountCount].filter(([, d]) => d !== 0),
    'UPDATE idx_accounts a SET token_count = a.token_count + u.d FROM unnest($1::bigint[], $2::bigint[]) AS u(id, d) WHERE a.id = u.id',
    (accounts) => [accounts.map(([id]) => id), accounts.map(([, d]) => d)],
  );
  // Every piece is added before any is emptied out.
  const oc = [...ch.ownerContract.values()].filter((x) => x.n !== 0);
  await inPieces(
    oc,
    'INSERT INTO idx_owner_contract (owner_id, caddr, contract_id, n) SELECT * FROM unnest($1::bigint[], $2::bytea[], ' +
      '$3::bigint[], $4::bigint[]) ON CONFLICT (owner_id, caddr) DO UPDATE SET n = idx_owner_contract.n + excluded.n',
    (part) => [part.map((x) => x.owner), part.map((x) => x.caddr), part.map((x) => x.contract), part.map((x) => x.n)],
  );
  await inPieces(
    oc,
    'DELETE FROM idx_owner_contract o USING unnest($1::bigint[], $2::bytea[]) AS u(owner_id, caddr) WHERE o.owner_id = ' +
      'u.owner_id AND o.caddr = u.caddr AND o.n <= 0',
    (part) => [part.map((x) => x.owner), part.map((x) => x.caddr)],
  );
  await inPieces(
    ch.transfers,
    `INSERT INTO idx_transfers (block, log_index, sub, contract_id, k_id, from_id, to_id, amount)
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::bigint[], $5::bytea[], $6::bigint[], $7::bigint[], $8::text[])
       ON CONFLICT (block, log_index, sub) DO UPDATE SET contract_id = excluded.contract_id, k_id = excluded.k_id,
         from_id = excluded.from_id, to_id = excluded.to_id, amount = excluded.amount`,
    (t) => [
      t.map((x) => x.block),
      t.map((x) => x.logIndex),
      t.map((x) => x.sub),
      t.map((x) => x.contract),
      t.map((x) => x.kId),
      t.map((x) => x.from),
      t.map((x) => x.to),
      t.map((x) => x.amount),
    ],
  );
  if (ch.dropContractsAbove !== null) {
    await q('DELETE FROM idx_contracts WHERE first_block > $1', [ch.dropContractsAbove]);
    await q('DELETE FROM idx_ids WHERE contract_id NOT IN (SELECT id FROM idx_contracts)', []);
  }
}

/** Token rows as the column arrays of TOKEN_COLUMNS, in that order (the columns are named as TokenRow's fields). */
const TOKEN_FIELDS = TOKEN_COLUMNS.split(', ') as (keyof TokenRow)[];
const columns = (rows: readonly TokenRow[]): unknown[][] => TOKEN_FIELDS.map((f) => rows.map((t) => t[f]));
