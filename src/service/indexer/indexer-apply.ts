// Turns one range of Transfer logs into index changes: decode, plan the metadata reads, apply everything in one transaction.
import type { Db } from '../../lib/sqlite.js';
import { transferKey } from '../listing/listing-store-keys.js';
import { bumpGeneration } from '../listing/listing-store-rank.js';
import { tokenKeys, type IndexWriter } from '../listing/listing-store-write.js';
import type { ContractMeta } from './indexer-metadata.js';
import { TRANSFER_TOPIC, type BlockHeader, type RawLog } from './indexer-rpc.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface TransferLog {
  block: number;
  logIndex: number;
  blockHash: string;
  contract: string;
  from: string;
  to: string;
  id: bigint;
}

/** ERC-721 transfers only: 4 topics (the id is indexed); ERC-20 Transfer has 3 and is skipped. Sorted by chain order. */
export function decodeTransferLogs(raw: readonly RawLog[]): TransferLog[] {
  const out: TransferLog[] = [];
  for (const l of raw) {
    if (l.removed || l.topics.length !== 4 || l.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
    out.push({
      block: Number(l.blockNumber),
      logIndex: Number(l.logIndex),
      blockHash: l.blockHash,
      contract: l.address.toLowerCase(),
      from: '0x' + l.topics[1]!.slice(26).toLowerCase(),
      to: '0x' + l.topics[2]!.slice(26).toLowerCase(),
      id: BigInt(l.topics[3]!),
    });
  }
  return out.sort((a, b) => a.block - b.block || a.logIndex - b.logIndex);
}

/** Where each token ends up after a range: only the last transfer changes the listing, earlier ones go to history. */
export interface NetMove {
  contract: string;
  id: bigint;
  to: string;
  block: number;
  logIndex: number;
  minted: boolean;
}

export function netMoves(logs: readonly TransferLog[]): NetMove[] {
  const net = new Map<string, NetMove>();
  for (const l of logs) {
    const key = `${l.contract}:${l.id}`;
    const prev = net.get(key);
    net.set(key, { contract: l.contract, id: l.id, to: l.to, block: l.block, logIndex: l.logIndex, minted: (prev?.minted ?? false) || l.from === ZERO_ADDRESS });
  }
  return [...net.values()];
}

export interface Batch {
  from: number;
  to: number;
  /** Headers read for this range (its ends), stored as reorganisation checkpoints. */
  headers: BlockHeader[];
  logs: TransferLog[];
  newContracts: Map<string, ContractMeta>;
  /** tokenURI per `contract:id` read for tokens that are new or re-minted. */
  uris: Map<string, string>;
  supplies: Map<string, string | null>;
}

/** A token first seen through a plain transfer (its mint predates the index or the contract): its tokenURI is read after. */
export interface MissingUri {
  rowId: number;
  address: string;
  id: bigint;
}

export function applyBatch(db: Db, w: IndexWriter, b: Batch): MissingUri[] {
  const putBlock = db.prepare(
    'INSERT INTO idx_blocks (number, hash, parent_hash) VALUES (?, ?, ?) ON CONFLICT (number) DO UPDATE SET hash = excluded.hash, parent_hash = coalesce(excluded.parent_hash, parent_hash)',
  );
  const setTip = db.prepare("INSERT INTO idx_state (key, value) VALUES ('tip', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  return db.transaction(() => {
    const missing: MissingUri[] = [];
    for (const [address, m] of b.newContracts) {
      // Read ahead of the previous range's write: that write may have added it since.
      if (w.contract(address)) continue;
      const first = b.logs.find((l) => l.contract === address);
      w.addContract({ address, name: m.name, symbol: m.symbol, totalSupply: m.totalSupply, hasUri: m.hasUri, firstBlock: first?.block ?? b.to });
    }
    const mintBurn = new Map<number, [number, number]>();
    const seenBlocks = new Map<number, string>();
    for (const l of b.logs) {
      const c = w.contract(l.contract)!;
      const { kId } = tokenKeys(c.addr, l.id);
      const fromId = l.from === ZERO_ADDRESS ? null : w.accountId(l.from);
      const toId = l.to === ZERO_ADDRESS ? null : w.accountId(l.to);
      w.recordTransfer(l.block, l.logIndex, c.id, kId, fromId, toId);
      const mb = mintBurn.get(c.id) ?? [0, 0];
      if (fromId === null) mb[0]++;
      if (toId === null) mb[1]++;
      mintBurn.set(c.id, mb);
      seenBlocks.set(l.block, l.blockHash);
    }
    for (const [cid, [m, burned]] of mintBurn) w.addMintBurn(cid, m, burned);
    for (const move of netMoves(b.logs)) {
      const c = w.contract(move.contract)!;
      const { kId } = tokenKeys(c.addr, move.id);
      const kTr = transferKey(move.block, move.logIndex);
      const owner = move.to === ZERO_ADDRESS ? null : w.accountId(move.to);
      const uri = b.uris.get(`${move.contract}:${move.id}`);
      let row = w.token(c.id, kId);
      if (!row) {
        row = w.createToken(c, move.id, kTr, uri ?? '');
        if (uri === undefined && c.has_uri === 1 && owner !== null) missing.push({ rowId: row.id, address: move.contract, id: move.id });
      } else if (uri !== undefined) w.setUri(row.id, uri);
      w.setOwner(row, owner, kTr);
    }
    w.flush();
    for (const [address, supply] of b.supplies) {
      const c = w.contract(address);
      if (c) w.setTotalSupply(c.id, supply);
    }
    for (const [n, hash] of seenBlocks) putBlock.run(n, hash, null);
    for (const h of b.headers) putBlock.run(h.number, h.hash, h.parentHash);
    setTip.run(String(b.to));
    if (b.logs.length > 0 || b.supplies.size > 0) bumpGeneration(db);
    return missing;
  })();
}
