// Turns one range of token moves into index changes in one transaction: ERC-721 ownership, ERC-1155 balances and
// supplies, URI events, history for rollbacks, checkpoints. Reads nothing from the node (see indexer-prepare.ts).
import {
  addressBytes,
  holdingIdKey,
  tokenIdKey,
  tokenKeys,
  transferKey,
  type ContractRow,
  type IndexWriter,
  type TokenRow,
} from '../listing/listing-writer.js';
import { runInPieces, runWhole } from '../../lib/event-loop-pieces.js';
import { ZERO_ADDRESS, type MetadataUpdate, type TokenMove, type Truncation, type UriEvent } from './indexer-events.js';
import type { ContractMeta } from './indexer-metadata.js';
import type { BlockHeader } from './indexer-rpc.js';

export { ZERO_ADDRESS } from './indexer-events.js';
/** A move of one ERC-721 token, as tests and older callers build them (sub and amount default to a plain Transfer). */
export type TransferLog = Omit<TokenMove, 'sub' | 'amount'> & Partial<Pick<TokenMove, 'sub' | 'amount'>>;

/** Where each ERC-721 token ends up after a range: only the last move changes the listing, earlier ones go to history. */
export interface NetMove {
  contract: string;
  id: bigint;
  to: string;
  block: number;
  logIndex: number;
  sub: number;
  minted: boolean;
}

export function netMoves(logs: readonly TransferLog[]): NetMove[] {
  const fold = netMoveFold();
  for (const l of logs) fold.add(l);
  return fold.moves;
}

/** netMoves one move at a time, in chain order: applySteps folds them in its own pass over the range, in pieces. */
function netMoveFold(): { add(l: TransferLog): void; moves: NetMove[] } {
  // Each token's place in `moves` (order of first move), by contract then by id: no "contract:id" string per log.
  const at = new Map<string, Map<bigint, number>>();
  const out: NetMove[] = [];
  return {
    moves: out,
    add(l) {
      if (l.amount != null) return;
      let ofContract = at.get(l.contract);
      if (!ofContract) at.set(l.contract, (ofContract = new Map()));
      const i = ofContract.get(l.id);
      const move: NetMove = {
        contract: l.contract,
        id: l.id,
        to: l.to,
        block: l.block,
        logIndex: l.logIndex,
        sub: l.sub ?? 0,
        minted: (i !== undefined && out[i]!.minted) || l.from === ZERO_ADDRESS,
      };
      if (i === undefined) {
        ofContract.set(l.id, out.length);
        out.push(move);
      } else out[i] = move;
    },
  };
}

/** Order key of a move: a plain log keeps the 10-byte key, a position inside a multi-token log adds 4 bytes. */
export const moveKey = (m: { block: number; logIndex: number; sub?: number }) =>
  transferKey(m.block, m.logIndex, m.sub ? m.sub : undefined);

/**
 * Uris by contract, then by token id: no `contract:id` string per token to build, copy to the writer's thread and look
 * up (10,000 mints: 10 ms to build such keys, 8 ms to receive them, 3 ms of lookups; nested, 3, 5 and 1).
 */
export type TokenUris = Map<string, Map<bigint, string>>;

/** Pure: the uris of `items` (in order) keyed by contract and id. */
export function tokenUris(items: readonly { address: string; id: bigint }[], uris: readonly string[]): TokenUris {
  const out: TokenUris = new Map();
  items.forEach((t, i) => {
    let byId = out.get(t.address);
    if (!byId) out.set(t.address, (byId = new Map()));
    byId.set(t.id, uris[i]!);
  });
  return out;
}

/** Pure: one TokenUris from several, a later one's uri winning for the same token. */
export function mergeTokenUris(list: readonly TokenUris[]): TokenUris {
  const out: TokenUris = new Map();
  for (const uris of list) {
    for (const [address, byId] of uris) {
      const into = out.get(address);
      if (!into) out.set(address, new Map(byId));
      else for (const [id, uri] of byId) into.set(id, uri);
    }
  }
  return out;
}

/**
 * One part's moves and uris as the reader thread sealed them for the writer thread (indexer-part-wire.ts): the main
 * thread holds the two buffers, handed over and never read there, and only what its loop needs of them.
 */
export interface SealedPart {
  /** Moves in the part. */
  moves: number;
  /** The block of each of the part's new contracts' first move in it. */
  firstBlocks: Map<string, number>;
  /** The moves' number columns (indexer-part-wire.ts). */
  cols: Float64Array;
  /** The rest, serialised: the strings the columns name, the ids, the amounts and the uris. */
  rest: Uint8Array;
}

export interface Batch {
  from: number;
  to: number;
  /** Headers read for this range (its ends), stored as reorganisation checkpoints. */
  headers: BlockHeader[];
  /** Moves in chain order, only of contracts whose standard they match. */
  logs: TransferLog[];
  newContracts: Map<string, ContractMeta>;
  /** Block each new contract was first seen in, when not its first move here (parts written together, indexer-join.ts). */
  firstBlocks?: Map<string, number>;
  /** tokenURI (ERC-721) or uri(id) (ERC-1155, `{id}` substituted) read for new tokens and ids. */
  uris: TokenUris;
  supplies: Map<string, string | null>;
  uriEvents?: UriEvent[];
  metadataUpdates?: MetadataUpdate[];
  truncated?: Truncation[];
  /**
   * The moves and uris of its parts, in order, still sealed by the reader thread for the writer thread: `logs` and
   * `uris` are empty until the writer thread unseals them (unsealBatch).
   */
  sealed?: SealedPart[];
}

/**
 * A token (ERC-721) or an id (ERC-1155) whose uri must be read after the write: first seen through a plain transfer
 * (its mint predates the index), or named by an ERC-4906 event.
 */
export interface MissingUri {
  standard: 'ERC721' | 'ERC1155';
  /** The ERC-721 token's row; for ERC-1155 the id's holdings are updated through the id. */
  rowId: number;
  contractId: number;
  address: string;
  id: bigint;
}

/** Tokens one BatchMetadataUpdate re-reads at most (a range may name every id there is). */
export const METADATA_UPDATE_CAP = 10_000;

interface Holding {
  contract: ContractRow;
  id: bigint;
  kId: Buffer;
  owner: string;
  balance: bigint;
  /** The newest move that gave the owner some of the id; undefined when none in this range. */
  kTr?: Buffer;
  row?: TokenRow;
}

/**
 * The indexer's own rows a batch writes beside the listing's (checkpoints, tip, truncated ranges, the generation readers
 * watch), and the transaction both go in. SQLite writes them as it goes (sqlite/indexer-sink-sqlite.ts); PostgreSQL collects them with
 * the listing's changes and writes everything in one transaction afterwards (postgres/indexer-store-postgres.ts).
 */
export interface BatchSink {
  transaction<T>(fn: () => T): T;
  putBlock(number: number, hash: string, parentHash: string | null): void;
  setTip(block: number): void;
  putTruncated(t: Truncation): void;
  /** Removes checkpoints, history and truncated ranges above `block` (a rollback). */
  dropAbove(block: number): void;
  bumpGeneration(): void;
}

/**
 * Moves applied between two yields of applyBatchInPieces: the in-memory apply of a 10,000-move range on PostgreSQL
 * held the event loop 80-170 ms at once (profiled on the shared box); in pieces of 500 moves each took 3-13 ms of CPU
 * (median 4), so 250 keeps a piece within a few ms.
 */
export const APPLY_PIECE_MOVES = 250;

/** Applies one range through the listing's writer and the indexer's sink, inside the sink's transaction. */
export function applyBatchTo(sink: BatchSink, w: IndexWriter, b: Batch): MissingUri[] {
  return sink.transaction(() => runWhole(applySteps(sink, w, b, pieceCounter(Number.POSITIVE_INFINITY))));
}

/**
 * The same apply, giving the event loop a turn after every `pieceMoves` moves: for a store that holds no transaction
 * while it applies (PostgreSQL collects the changes and writes them in one transaction afterwards), so that a big
 * range never holds the thread that answers every network's listing and tracker for long. `w` and `sink` must be this
 * write's alone meanwhile.
 */
export async function applyBatchInPieces(sink: BatchSink, w: IndexWriter, b: Batch, pieceMoves = APPLY_PIECE_MOVES): Promise<MissingUri[]> {
  return runInPieces(applySteps(sink, w, b, pieceCounter(pieceMoves)));
}

/** Counts units of work (a move, a row): true after every `size`-th, when its caller yields (never when Infinity). */
export type PieceCounter = () => boolean;
export function pieceCounter(size: number): PieceCounter {
  let done = 0;
  return () => ++done % size === 0;
}

/**
 * applyBatchTo's work, yielding whenever `piece` says so: once per move of each pass over the range (moves, ERC-721
 * owners, ERC-1155 ids, holdings) and per token an ERC-4906 update names. Exported for the test that counts them.
 */
export function* applySteps(sink: BatchSink, w: IndexWriter, b: Batch, piece: PieceCounter): Generator<void, MissingUri[]> {
  const missing: MissingUri[] = [];
  for (const [address, m] of b.newContracts) {
    // Read ahead of the previous range's write: that write may have added it since.
    if (w.contract(address)) continue;
    const first = b.logs.find((l) => l.contract === address);
    w.addContract({
      address,
      name: m.name,
      symbol: m.symbol,
      totalSupply: m.standard === 'ERC1155' ? '0' : m.totalSupply,
      hasUri: m.hasUri,
      firstBlock: b.firstBlocks?.get(address) ?? first?.block ?? b.to,
      standard: m.standard,
    });
  }
  const mintBurn = new Map<number, [number, number]>();
  // Where each ERC-721 token ends up (netMoves), folded in the pass over the moves below rather than in one go.
  const net = netMoveFold();
  const seenBlocks = new Map<number, string>();
  const holdings = new Map<string, Holding>();
  const ids = new Map<string, { contract: ContractRow; id: bigint; kId: Buffer; before: bigint | null; supply: bigint; uri: string }>();
  const idState = (c: ContractRow, id: bigint, kId: Buffer) => {
    const key = `${c.id}:${id}`;
    let s = ids.get(key);
    if (!s) {
      const row = w.idRow(c.id, kId);
      const read = b.uris.get(c.address)?.get(id);
      s = {
        contract: c,
        id,
        kId,
        before: row ? BigInt(row.supply) : null,
        supply: row ? BigInt(row.supply) : 0n,
        uri: read ?? row?.uri ?? '',
      };
      if (!row && read === undefined && c.has_uri === 1)
        missing.push({ standard: 'ERC1155', rowId: 0, contractId: c.id, address: c.address, id });
      ids.set(key, s);
    }
    return s;
  };
  const holding = (c: ContractRow, id: bigint, kId: Buffer, owner: string) => {
    const key = `${c.id}:${id}:${owner}`;
    let h = holdings.get(key);
    if (!h) {
      const row = w.token(c.id, holdingIdKey(kId, addressBytes(owner)));
      h = { contract: c, id, kId, owner, balance: row ? BigInt(row.balance) : 0n, ...(row ? { row } : {}) };
      holdings.set(key, h);
    }
    return h;
  };

  for (const l of b.logs) {
    const c = w.contract(l.contract)!;
    const { kId } = tokenKeys(c.addr, l.id);
    const fromId = l.from === ZERO_ADDRESS ? null : w.accountId(l.from);
    const toId = l.to === ZERO_ADDRESS ? null : w.accountId(l.to);
    w.recordTransfer(l.block, l.logIndex, l.sub ?? 0, c.id, kId, fromId, toId, l.amount == null ? null : l.amount.toString());
    const mb = mintBurn.get(c.id) ?? [0, 0];
    if (fromId === null) mb[0]++;
    if (toId === null) mb[1]++;
    mintBurn.set(c.id, mb);
    seenBlocks.set(l.block, l.blockHash);
    net.add(l);
    if (piece()) yield;
    if (l.amount == null) continue;
    // ERC-1155: balances move by the amount; a balance never goes below zero (a history that starts after the mint).
    const s = idState(c, l.id, kId);
    if (fromId === null) s.supply += l.amount;
    else {
      const h = holding(c, l.id, kId, l.from);
      h.balance = h.balance > l.amount ? h.balance - l.amount : 0n;
    }
    if (toId === null) s.supply = s.supply > l.amount ? s.supply - l.amount : 0n;
    else {
      const h = holding(c, l.id, kId, l.to);
      h.balance += l.amount;
      h.kTr = moveKey(l);
    }
  }
  for (const [cid, [m, burned]] of mintBurn) w.addMintBurn(cid, m, burned);

  for (const move of net.moves) {
    if (piece()) yield;
    const c = w.contract(move.contract)!;
    const keys = tokenKeys(c.addr, move.id);
    const kTr = moveKey(move);
    const owner = move.to === ZERO_ADDRESS ? null : w.accountId(move.to);
    const uri = b.uris.get(move.contract)?.get(move.id);
    // A token minted here is almost never in the index yet: insert it without a lookup first.
    const created = move.minted ? w.createMinted(c, move.id, owner, kTr, uri ?? '', keys) : undefined;
    let row = created ?? w.token(c.id, keys.kId);
    if (created || !row) {
      row = created ?? w.createToken(c, move.id, owner, kTr, uri ?? '');
      if (uri === undefined && c.has_uri === 1 && owner !== null) {
        missing.push({ standard: 'ERC721', rowId: row.id, contractId: c.id, address: move.contract, id: move.id });
      }
      continue;
    }
    if (uri !== undefined) w.setUri(row.id, uri);
    w.setOwner(row, owner, kTr);
  }

  // ERC-1155 ids first: a new holding copies its id's uri.
  const nonZero = new Map<number, number>();
  for (const s of ids.values()) {
    if (piece()) yield;
    w.putId(s.contract.id, s.kId, { supply: s.supply.toString(), uri: s.uri });
    const was = s.before !== null && s.before > 0n ? 1 : 0;
    const is = s.supply > 0n ? 1 : 0;
    if (is !== was) nonZero.set(s.contract.id, (nonZero.get(s.contract.id) ?? 0) + is - was);
  }
  for (const h of holdings.values()) {
    if (piece()) yield;
    if (h.balance === 0n) {
      if (h.row) w.deleteToken(h.row);
      continue;
    }
    const ownerId = w.accountId(h.owner);
    const row = h.row;
    if (!row) {
      const uri = ids.get(`${h.contract.id}:${h.id}`)?.uri ?? w.idRow(h.contract.id, h.kId)?.uri ?? '';
      w.createToken(h.contract, h.id, ownerId, h.kTr!, uri, { address: h.owner, balance: h.balance.toString() });
    } else {
      w.setBalance(row, h.balance.toString());
      if (h.kTr) w.setOwner(row, ownerId, h.kTr);
    }
  }
  for (const [cid, d] of nonZero) {
    const c = w.contractById(cid)!;
    w.setTotalSupply(cid, String(Number(c.total_supply ?? '0') + d));
  }
  // URI events after the moves of the range: the newest value of each id wins.
  for (const u of b.uriEvents ?? []) {
    const c = w.contract(u.contract);
    if (c?.standard !== 'ERC1155') continue;
    const { kId } = tokenKeys(c.addr, u.id);
    if (!w.idRow(c.id, kId)) w.putId(c.id, kId, { supply: '0', uri: u.value });
    w.setIdUri(c.id, kId, u.value);
  }
  w.flush();
  for (const [address, supply] of b.supplies) {
    const c = w.contract(address);
    if (c && c.standard === 'ERC721') w.setTotalSupply(c.id, supply);
  }
  for (const t of b.truncated ?? []) sink.putTruncated(t);
  missing.push(...(yield* metadataTargetSteps(w, b.metadataUpdates ?? [], piece)));
  for (const [n, hash] of seenBlocks) sink.putBlock(n, hash, null);
  for (const h of b.headers) sink.putBlock(h.number, h.hash, h.parentHash);
  sink.setTip(b.to);
  if (b.logs.length > 0 || b.supplies.size > 0 || (b.uriEvents?.length ?? 0) > 0) sink.bumpGeneration();
  return missing;
}

/** Stores uris read after a write: an ERC-721 token's own row, or an ERC-1155 id and every holding of it. */
export function applyUris(w: IndexWriter, missing: readonly MissingUri[], uris: readonly string[]): void {
  runWhole(applyUriSteps(w, missing, uris, pieceCounter(Number.POSITIVE_INFINITY)));
}

/** The same with a turn of the event loop every `pieceRows` uris, for PostgreSQL (an ERC-4906 range may bring 10,000). */
export function applyUrisInPieces(
  w: IndexWriter,
  missing: readonly MissingUri[],
  uris: readonly string[],
  pieceRows = APPLY_PIECE_MOVES,
): Promise<void> {
  return runInPieces(applyUriSteps(w, missing, uris, pieceCounter(pieceRows)));
}

/** applyUris' work, yielding whenever `piece` says so (exported for the test that counts the work between yields). */
export function* applyUriSteps(
  w: IndexWriter,
  missing: readonly MissingUri[],
  uris: readonly string[],
  piece: PieceCounter,
): Generator<void, void> {
  for (const [i, m] of missing.entries()) {
    if (piece()) yield;
    if (m.standard === 'ERC721') w.setUri(m.rowId, uris[i]!);
    else {
      const c = w.contractById(m.contractId);
      if (c) w.setIdUri(c.id, tokenKeys(c.addr, m.id).kId, uris[i]!);
    }
  }
}

/** Keys of the tokens (k_id) or ids one ERC-4906 event names, inclusive; at most METADATA_UPDATE_CAP are read. */
export function metadataBounds(u: MetadataUpdate, addr: Buffer): { lo: Buffer; hi: Buffer } {
  return { lo: Buffer.concat([tokenIdKey(u.fromId), addr]), hi: Buffer.concat([tokenIdKey(u.toId), addr]) };
}

/**
 * Tokens named by ERC-4906 events that the index holds: ERC-721 tokens (owned or burned) and ERC-1155 ids. A range
 * reads at most METADATA_UPDATE_CAP tokens per event, lowest ids first.
 */
export function metadataTargets(w: IndexWriter, updates: readonly MetadataUpdate[]): MissingUri[] {
  return runWhole(metadataTargetSteps(w, updates, pieceCounter(Number.POSITIVE_INFINITY)));
}

/** The same with a turn of the event loop every `pieceRows` tokens, for PostgreSQL (a range may name 10,000). */
export function metadataTargetsInPieces(
  w: IndexWriter,
  updates: readonly MetadataUpdate[],
  pieceRows = APPLY_PIECE_MOVES,
): Promise<MissingUri[]> {
  return runInPieces(metadataTargetSteps(w, updates, pieceCounter(pieceRows)));
}

/** metadataTargets' work, yielding whenever `piece` says so (exported for the test that counts the work between yields). */
export function* metadataTargetSteps(
  w: IndexWriter,
  updates: readonly MetadataUpdate[],
  piece: PieceCounter,
): Generator<void, MissingUri[]> {
  const out: MissingUri[] = [];
  const seen = new Set<string>();
  for (const u of updates) {
    const c = w.contract(u.contract);
    if (!c) continue;
    const { lo, hi } = metadataBounds(u, c.addr);
    if (c.standard === 'ERC721') {
      for (const r of w.tokensInIdRange(c.id, lo, hi, METADATA_UPDATE_CAP)) {
        if (piece()) yield;
        const key = `${c.id}:${r.token_id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ standard: 'ERC721', rowId: r.id, contractId: c.id, address: c.address, id: BigInt(r.token_id) });
      }
    } else {
      for (const k of w.idKeysInRange(c.id, lo, hi, METADATA_UPDATE_CAP)) {
        if (piece()) yield;
        const id = BigInt('0x' + (k.subarray(1, 1 + (k[0] ?? 0)).toString('hex') || '0'));
        const key = `${c.id}:${id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ standard: 'ERC1155', rowId: 0, contractId: c.id, address: c.address, id });
      }
    }
  }
  return out;
}
