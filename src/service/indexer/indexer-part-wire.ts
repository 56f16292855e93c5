// How a part read on the reader thread crosses to the writer's thread: its moves as number columns over one table of
// the strings they name (block hashes, contracts, owners), instead of one object per move; and, when the index is
// written on a thread of its own, sealed: moves and uris in two buffers the main thread only passes on. Pure.
//
// The structured copy of 10,000 move objects, each with four strings of 42-66 characters, took 17 ms to send and
// 19 ms to receive here, the receiving on the writer's thread, which a transfer catch-up keeps busy; as columns
// 6 ms on each side, and the columns' buffer is handed over, not copied. The main thread, which answers every
// network's listing and tracker, still unpacked each part (tens of ms per 10,000 moves, profiled during another
// network's catch-up) and packed it again for the writer thread: a sealed part crosses it as two buffers handed on.
import { deserialize, serialize } from 'node:v8';
import { mergeTokenUris, type Batch, type SealedPart, type TokenUris, type TransferLog } from './indexer-apply.js';
import type { TokenMove } from './indexer-events.js';
import type { PreparedRange } from './indexer-prepare.js';

/** Numbers per move in `cols`: block, log index, sub, and the table positions of block hash, contract, from, to. */
const WIDTH = 7;

export interface PackedLogs {
  strings: string[];
  /** Float64: block numbers beyond 2^31 stay exact. */
  cols: Float64Array;
  ids: bigint[];
  /** Position and amount of each ERC-1155 move (ERC-721 moves carry none). */
  amounts: [number, bigint][];
}

/** A prepared range as it crosses the thread boundary. */
export type WireRange = Omit<PreparedRange, 'logs'> & { logs: PackedLogs };

export function packLogs(logs: readonly TransferLog[]): PackedLogs {
  const table = new Map<string, number>();
  const at = (s: string) => {
    let i = table.get(s);
    if (i === undefined) table.set(s, (i = table.size));
    return i;
  };
  const cols = new Float64Array(logs.length * WIDTH);
  const ids: bigint[] = new Array(logs.length);
  const amounts: [number, bigint][] = [];
  logs.forEach((l, i) => {
    const o = i * WIDTH;
    cols[o] = l.block;
    cols[o + 1] = l.logIndex;
    cols[o + 2] = l.sub ?? 0;
    cols[o + 3] = at(l.blockHash);
    cols[o + 4] = at(l.contract);
    cols[o + 5] = at(l.from);
    cols[o + 6] = at(l.to);
    ids[i] = l.id;
    if (l.amount != null) amounts.push([i, l.amount]);
  });
  return { strings: [...table.keys()], cols, ids, amounts };
}

/** The moves again, every one with its `sub` and `amount` (null for ERC-721). */
export function unpackLogs(p: PackedLogs): TokenMove[] {
  const { strings, cols, ids } = p;
  const out: TokenMove[] = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const o = i * WIDTH;
    out[i] = {
      block: cols[o]!,
      logIndex: cols[o + 1]!,
      sub: cols[o + 2]!,
      blockHash: strings[cols[o + 3]!]!,
      contract: strings[cols[o + 4]!]!,
      from: strings[cols[o + 5]!]!,
      to: strings[cols[o + 6]!]!,
      id: ids[i]!,
      amount: null,
    };
  }
  for (const [i, amount] of p.amounts) out[i]!.amount = amount;
  return out;
}

export const toWire = (r: PreparedRange): WireRange => ({ ...r, logs: packLogs(r.logs) });
export const fromWire = (w: WireRange): PreparedRange => ({ ...w, logs: unpackLogs(w.logs) });

/** What a sealed part's `rest` holds. */
interface SealedRest {
  strings: string[];
  ids: bigint[];
  amounts: [number, bigint][];
  uris: TokenUris;
}

/** The buffer of `bytes` alone, so that handing it over moves nothing else (v8.serialize may answer a view). */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/** A part's moves and uris sealed for the writer thread, with what the main thread's loop needs of them. */
export function seal(r: Pick<PreparedRange, 'logs' | 'uris' | 'newContracts'>): SealedPart {
  const { strings, cols, ids, amounts } = packLogs(r.logs);
  const firstBlocks = new Map<string, number>();
  for (const l of r.logs) if (r.newContracts.has(l.contract) && !firstBlocks.has(l.contract)) firstBlocks.set(l.contract, l.block);
  const rest = ownBuffer(serialize({ strings, ids, amounts, uris: r.uris } satisfies SealedRest));
  return { moves: r.logs.length, firstBlocks, cols, rest };
}

/** The moves (in order, as unpackLogs gives them) and the uris (a later part's winning) of sealed parts. */
export function unseal(parts: readonly SealedPart[]): { logs: TokenMove[]; uris: TokenUris } {
  const logs: TokenMove[][] = [];
  const uris: TokenUris[] = [];
  for (const p of parts) {
    const rest = deserialize(p.rest) as SealedRest;
    logs.push(unpackLogs({ strings: rest.strings, cols: p.cols, ids: rest.ids, amounts: rest.amounts }));
    uris.push(rest.uris);
  }
  return { logs: logs.length === 1 ? logs[0]! : logs.flat(), uris: uris.length === 1 ? uris[0]! : mergeTokenUris(uris) };
}

/**
 * The block entries of a range that the range-end check reads (indexer-join.ts, endsAgree): those of its first and
 * last block, each hash once.
 */
export function endBlocks(r: Pick<PreparedRange, 'from' | 'to' | 'blocks'>): PreparedRange['blocks'] {
  const seen = new Set<string>();
  const out: PreparedRange['blocks'] = [];
  for (const b of r.blocks) {
    if (b.block !== r.from && b.block !== r.to) continue;
    const key = `${b.block}:${b.blockHash}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(b);
    }
  }
  return out;
}

/** A part as the reader thread hands it on when the writer thread takes it: moves and uris sealed, end blocks only. */
export function sealRange(r: PreparedRange): PreparedRange {
  return { ...r, logs: [], uris: new Map(), blocks: endBlocks(r), sealed: [seal(r)] };
}

/** The buffers of sealed parts, to hand over with the message that carries them. */
export const sealedBuffers = (parts: readonly SealedPart[] | undefined): ArrayBuffer[] =>
  (parts ?? []).flatMap((p) => [p.cols.buffer as ArrayBuffer, p.rest.buffer as ArrayBuffer]);

/** Moves in a range or a batch, sealed or not. */
export const moveCount = (r: { logs: readonly unknown[]; sealed?: readonly SealedPart[] | undefined }): number =>
  r.logs.length + (r.sealed ?? []).reduce((n, p) => n + p.moves, 0);

/** The batch with its sealed parts' moves and uris in place (after any it carried already: parts join only alike), ready for any store. */
export function unsealBatch(b: Batch): Batch {
  if (!b.sealed) return b;
  const { sealed, ...rest } = b;
  const open = unseal(sealed);
  return {
    ...rest,
    logs: b.logs.length === 0 ? open.logs : [...b.logs, ...open.logs],
    uris: b.uris.size === 0 ? open.uris : mergeTokenUris([b.uris, open.uris]),
  };
}
