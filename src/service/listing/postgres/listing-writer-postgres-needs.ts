// Which rows a write will read, worked out from what it says it writes (a WriteIntent): the rows the PostgreSQL writer
// loads before it applies a range or a rollback in memory (listing-writer-postgres.ts). Pure functions of the intent.
import { addressBytes, holdingIdKey, tokenKeys, type WriteIntent } from '../listing-writer.js';
import { ZERO_ADDRESS } from '../../../shared/address.js';

/** A contract by address or by row id. */
export type ContractRef = string | number;

/** What the writer will be asked for while it applies one range or rollback; anything else it is asked for throws. */
export interface OverlayNeeds {
  contracts: Set<string>;
  contractIds: Set<number>;
  accounts: Set<string>;
  accountIds: Set<number>;
  /** Token rows by (contract, k_cid). */
  tokens: { contract: ContractRef; kCid: Buffer }[];
  /** ERC-1155 id rows by (contract, k_id). */
  ids: { contract: ContractRef; kId: Buffer }[];
  /** Every holding of an ERC-1155 id (a rollback replays it). */
  holdingsOfIds: { contract: number; kId: Buffer }[];
  /** (owner, contract) pairs a token may move into. */
  pairs: { owner: string | number; contract: ContractRef }[];
  /** Contracts whose count of non-zero ids is asked for. */
  nonZero: Set<number>;
  /** ERC-4906 ranges: tokens or id keys in [lo, hi] of a contract. */
  ranges: { contract: string; lo: Buffer; hi: Buffer; limit: number }[];
}

export function emptyNeeds(): OverlayNeeds {
  return {
    contracts: new Set(),
    contractIds: new Set(),
    accounts: new Set(),
    accountIds: new Set(),
    tokens: [],
    ids: [],
    holdingsOfIds: [],
    pairs: [],
    nonZero: new Set(),
    ranges: [],
  };
}

/** What `intent` needs, worked out as a generator that yields after every `piece` moves (runInPieces runs it). */
export function* needsOf(intent: WriteIntent, piece = Number.POSITIVE_INFINITY): Generator<void, OverlayNeeds, undefined> {
  const needs = emptyNeeds();
  for (const a of intent.contracts ?? []) needs.contracts.add(a);
  for (const id of intent.contractIds ?? []) needs.contractIds.add(id);
  const keysOf = new Map<string, Buffer>();
  let done = 0;
  for (const l of intent.moves ?? []) {
    if (++done % piece === 0) yield;
    needs.contracts.add(l.contract);
    let addr = keysOf.get(l.contract);
    if (!addr) keysOf.set(l.contract, (addr = addressBytes(l.contract)));
    const { kId } = tokenKeys(addr, l.id);
    if (l.from !== ZERO_ADDRESS) needs.accounts.add(l.from);
    if (l.to !== ZERO_ADDRESS) {
      needs.accounts.add(l.to);
      needs.pairs.push({ owner: l.to, contract: l.contract });
    }
    if (l.amount == null) {
      needs.tokens.push({ contract: l.contract, kCid: kId });
      continue;
    }
    needs.ids.push({ contract: l.contract, kId });
    for (const holder of [l.from, l.to]) {
      if (holder !== ZERO_ADDRESS) needs.tokens.push({ contract: l.contract, kCid: holdingIdKey(kId, addressBytes(holder)) });
    }
  }
  for (const u of intent.idUris ?? []) {
    needs.contracts.add(u.contract);
    needs.ids.push({ contract: u.contract, kId: tokenKeys(addressBytes(u.contract), u.id).kId });
  }
  for (const r of intent.idRanges ?? []) {
    needs.contracts.add(r.contract);
    needs.ranges.push(r);
  }
  const undo = intent.undo;
  if (!undo) return needs;
  for (const id of undo.contractIds) needs.contractIds.add(id);
  for (const t of undo.tokens) {
    if (++done % piece === 0) yield;
    needs.contractIds.add(t.contractId);
    needs.tokens.push({ contract: t.contractId, kCid: t.kId });
    if (t.owner !== null) needs.pairs.push({ owner: t.owner, contract: t.contractId });
  }
  for (const i of undo.ids) {
    if (++done % piece === 0) yield;
    needs.contractIds.add(i.contractId);
    needs.ids.push({ contract: i.contractId, kId: i.kId });
    needs.holdingsOfIds.push({ contract: i.contractId, kId: i.kId });
    needs.nonZero.add(i.contractId);
    for (const to of i.receivers) {
      needs.accountIds.add(to);
      needs.pairs.push({ owner: to, contract: i.contractId });
    }
  }
  return needs;
}
