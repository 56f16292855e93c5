// Everything one range needs from the node before it can be written: its token logs, metadata of contracts seen
// for the first time, the uri of minted tokens and ids, and fresh totalSupply values. Pure reads, so it can run ahead.
// A range read with many moves is handed out in parts cut at block boundaries: the metadata of part k+1 is read while
// part k is written, so a catch-up whose first range holds every log does not wait for all of its metadata.
import type { Standard } from '../../shared/listing.js';
import type { ContractRow } from '../listing/listing-writer.js';
import { netMoves, tokenUris, type SealedPart, type TokenUris, type TransferLog } from './indexer-apply.js';
import { CONSECUTIVE_CAP, ZERO_ADDRESS, type MetadataUpdate, type TokenMove, type Truncation, type UriEvent } from './indexer-events.js';
import { readContractMeta, readTotalSupplies, readUris, type ContractMeta } from './indexer-metadata.js';
import { mostInOneBlock } from './indexer-log-scan.js';
import type { ChainReader } from './indexer-rpc.js';
import type { RangeSize } from './indexer-range.js';

export interface PreparedRange {
  from: number;
  to: number;
  /** Single-token moves in chain order, of contracts whose standard they match. */
  logs: TransferLog[];
  /** Block and hash of every decoded log, for the range-end check. */
  blocks: { block: number; blockHash: string }[];
  newContracts: Map<string, ContractMeta>;
  /** uris of tokens minted in the range and ERC-1155 ids new to the index (others: backfill). */
  uris: TokenUris;
  supplies: Map<string, string | null>;
  uriEvents: UriEvent[];
  metadataUpdates: MetadataUpdate[];
  truncated: Truncation[];
  /** Time of this part's reads (the log read is counted on the first part). */
  timing: { logsMs: number; metadataMs: number };
  /**
   * Set when the reader thread sealed the moves and uris for the writer thread (indexer-part-wire.ts, sealRange):
   * `logs` and `uris` are empty then, and `blocks` holds only the range's two end blocks.
   */
  sealed?: SealedPart[];
}

/** A part of a range read: its blocks and its reads, which finish in order. */
export interface PreparedPart {
  from: number;
  to: number;
  /**
   * On the first part of a read (null on later parts), for range adaptation before any metadata is read: the logs the
   * node returned (ERC-20 transfers included) or the moves they carry, whichever is larger (multi-token logs count by
   * their tokens), and the same count for the block holding the most.
   */
  size: RangeSize | null;
  result: Promise<PreparedRange>;
}

/** Moves per part of a range (a block is never cut, so a part can hold more when one block does). */
export const PART_MOVES = 10_000;

/**
 * Pure: cuts [from, to] after block boundaries so that each part holds at most `maxMoves` of the moves (sorted by
 * block), except a single block holding more. The parts cover [from, to] without gaps.
 */
export function splitAtBlocks(
  moves: readonly { block: number }[],
  from: number,
  to: number,
  maxMoves: number,
): { from: number; to: number }[] {
  const parts: { from: number; to: number }[] = [];
  let start = from;
  let count = 0;
  for (let i = 0; i < moves.length; ) {
    const block = moves[i]!.block;
    let j = i;
    while (j < moves.length && moves[j]!.block === block) j++;
    if (count > 0 && count + (j - i) > maxMoves) {
      parts.push({ from: start, to: block - 1 });
      start = block;
      count = 0;
    }
    count += j - i;
    i = j;
  }
  parts.push({ from: start, to });
  return parts;
}

export interface PrepareLookups {
  contractOf(address: string): ContractRow | undefined;
  /** Whether the index already holds this ERC-1155 id (its uri is known). */
  idKnown(contract: ContractRow, id: bigint): boolean;
  /** Reads what the two questions above will be asked about a range's moves, when answering needs a round trip. */
  preload?(moves: readonly TokenMove[]): Promise<void>;
}

/**
 * Reads the logs of [from, to] and the metadata of its new contracts, then returns the range in parts (one part for a
 * small range). Each part's uri and totalSupply reads (at the part's last block) start when those of the part two
 * before it are done.
 */
export async function prepareRange(
  chain: ChainReader,
  lookups: PrepareLookups,
  from: number,
  to: number,
  refreshSupply: ReadonlySet<string>,
  cap = CONSECUTIVE_CAP,
  maxMoves = PART_MOVES,
): Promise<PreparedPart[]> {
  // One read sees one state of the contracts and asks the index about each once: a contract new to the index was
  // otherwise looked up (and missed) by every one of its moves, ~4 SQL lookups per move (170 ms per 10,000, profiled).
  const known = new Map<string, ContractRow | undefined>();
  const contractOf = (address: string): ContractRow | undefined => {
    if (!known.has(address)) known.set(address, lookups.contractOf(address));
    return known.get(address);
  };
  const t0 = performance.now();
  const { decoded, count: rawLength, densest: densestLogs } = await chain.tokenLogs(from, to, cap);
  const t1 = performance.now();
  const densest = Math.max(densestLogs, mostInOneBlock(decoded.moves.map((m) => m.block)));
  await lookups.preload?.(decoded.moves);

  const probes = new Map<string, { probeId: bigint; byEvents: Standard }>();
  for (const l of decoded.moves) {
    if (!contractOf(l.contract) && !probes.has(l.contract)) {
      probes.set(l.contract, { probeId: l.id, byEvents: decoded.firstKind.get(l.contract) ?? 'ERC721' });
    }
  }
  const metaList = await readContractMeta(
    chain,
    [...probes].map(([address, p]) => ({ address, ...p })),
    to,
  );
  const newContracts = new Map<string, ContractMeta>([...probes.keys()].map((a, i) => [a, metaList[i]!]));
  const standardOf = (address: string): Standard | undefined => contractOf(address)?.standard ?? newContracts.get(address)?.standard;
  const hasUri = (address: string) => {
    const c = contractOf(address);
    return c ? c.has_uri === 1 : (newContracts.get(address)?.hasUri ?? false);
  };
  const hasSupply = (address: string) => {
    const c = contractOf(address);
    return c ? c.total_supply !== null : newContracts.get(address)?.totalSupply != null;
  };
  // A contract is one standard: moves of the other kind (a contract emitting both) are not followed.
  const logs = decoded.moves.filter((m) => standardOf(m.contract) === (m.amount === null ? 'ERC721' : 'ERC1155'));
  const metaMs = performance.now() - t1;

  // Each new contract is added by the part holding its first followed move (contracts with none: the first part).
  const firstPart = new Map<string, number>();
  const cuts = splitAtBlocks(logs, from, to, maxMoves);
  const partOf = (block: number) => cuts.findIndex((c) => block <= c.to);
  for (const l of logs) if (!firstPart.has(l.contract)) firstPart.set(l.contract, partOf(l.block));
  const seenIds = new Set<string>();
  // Two parts' reads in flight: part k+1's requests are out before part k is written (a write blocks the event loop),
  // so the node answers them meanwhile.
  const done: Promise<unknown>[] = [];
  return cuts.map((cut, k) => {
    const last = k === cuts.length - 1;
    const partLogs = cuts.length === 1 ? logs : logs.filter((l) => l.block >= cut.from && l.block <= cut.to);
    // What to read is decided now, part by part in order (an ERC-1155 id new to the index is read by its first part).
    const wanted: { standard: Standard; address: string; id: bigint }[] = [];
    for (const m of netMoves(partLogs)) {
      if (m.minted && m.to !== ZERO_ADDRESS && hasUri(m.contract)) wanted.push({ standard: 'ERC721', address: m.contract, id: m.id });
    }
    for (const m of partLogs) {
      if (m.amount === null || m.from !== ZERO_ADDRESS || !hasUri(m.contract)) continue;
      const key = `${m.contract}:${m.id}`;
      if (seenIds.has(key)) continue;
      seenIds.add(key);
      const c = contractOf(m.contract);
      if (c && lookups.idKnown(c, m.id)) continue;
      wanted.push({ standard: 'ERC1155', address: m.contract, id: m.id });
    }
    const supplyOf = new Set(k === 0 ? [...refreshSupply].filter((a) => standardOf(a) !== 'ERC1155') : []);
    for (const l of partLogs) if (l.amount === null && hasSupply(l.contract)) supplyOf.add(l.contract);
    const result = (done[k - 2] ?? Promise.resolve()).then(async () => {
      const t2 = performance.now();
      const uriList = await readUris(chain, wanted, cut.to);
      const uris = tokenUris(wanted, uriList);
      const supplyList = [...supplyOf];
      const values = await readTotalSupplies(chain, supplyList, cut.to);
      const supplies = new Map(supplyList.map((a, i) => [a, values[i] ?? null]));
      const inPart = (b: number) => b >= cut.from && b <= cut.to;
      const part: PreparedRange = {
        from: cut.from,
        to: cut.to,
        logs: partLogs,
        blocks: cuts.length === 1 ? decoded.blocks : decoded.blocks.filter((b) => inPart(b.block)),
        newContracts: new Map([...newContracts].filter(([a]) => (firstPart.get(a) ?? 0) === k)),
        uris,
        supplies,
        // Events that act after the moves of the range act after those of its last part.
        uriEvents: last ? decoded.uris : [],
        metadataUpdates: last ? decoded.metadataUpdates : [],
        truncated: last ? decoded.truncated : [],
        timing: { logsMs: k === 0 ? t1 - t0 : 0, metadataMs: (k === 0 ? metaMs : 0) + performance.now() - t2 },
      };
      return part;
    });
    done.push(result.catch(() => {}));
    return { from: cut.from, to: cut.to, size: k === 0 ? { logs: Math.max(rawLength, logs.length), densest } : null, result };
  });
}
