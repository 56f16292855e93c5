// Everything one range needs from the node before it can be written: its token logs, metadata of contracts seen
// for the first time, the uri of minted tokens and ids, and fresh totalSupply values. Pure reads, so it can run ahead.
import type { Standard } from '../../shared/listing.js';
import type { ContractRow } from '../listing/listing-writer.js';
import { netMoves, type TransferLog } from './indexer-apply.js';
import { CONSECUTIVE_CAP, decodeTokenLogs, ZERO_ADDRESS, type MetadataUpdate, type Truncation, type UriEvent } from './indexer-events.js';
import { readContractMeta, readTotalSupplies, readUris, type ContractMeta } from './indexer-metadata.js';
import type { ChainReader } from './indexer-rpc.js';

export interface PreparedRange {
  from: number;
  to: number;
  /** Logs the node returned (ERC-20 transfers included), for range adaptation. */
  rawCount: number;
  /** Single-token moves in chain order, of contracts whose standard they match. */
  logs: TransferLog[];
  /** Block and hash of every decoded log, for the range-end check. */
  blocks: { block: number; blockHash: string }[];
  newContracts: Map<string, ContractMeta>;
  /** uri by `contract:id` for tokens minted in the range and ERC-1155 ids new to the index (others: backfill). */
  uris: Map<string, string>;
  supplies: Map<string, string | null>;
  uriEvents: UriEvent[];
  metadataUpdates: MetadataUpdate[];
  truncated: Truncation[];
  timing: { logsMs: number; metadataMs: number };
}

export interface PrepareLookups {
  contractOf(address: string): ContractRow | undefined;
  /** Whether the index already holds this ERC-1155 id (its uri is known). */
  idKnown(contract: ContractRow, id: bigint): boolean;
}

export async function prepareRange(
  chain: ChainReader,
  lookups: PrepareLookups,
  from: number,
  to: number,
  refreshSupply: ReadonlySet<string>,
  cap = CONSECUTIVE_CAP,
): Promise<PreparedRange> {
  const { contractOf } = lookups;
  const t0 = performance.now();
  const raw = await chain.transferLogs(from, to);
  const t1 = performance.now();
  const decoded = decodeTokenLogs(raw, cap);

  const probes = new Map<string, { probeId: bigint; byEvents: Standard }>();
  for (const l of decoded.moves) {
    if (!contractOf(l.contract) && !probes.has(l.contract)) {
      probes.set(l.contract, { probeId: l.id, byEvents: decoded.firstKind.get(l.contract) ?? 'ERC721' });
    }
  }
  const metaList = await readContractMeta(chain, [...probes].map(([address, p]) => ({ address, ...p })), to);
  const newContracts = new Map<string, ContractMeta>([...probes.keys()].map((a, i) => [a, metaList[i]!]));
  const standardOf = (address: string): Standard | undefined => contractOf(address)?.standard ?? newContracts.get(address)?.standard;
  const hasUri = (address: string) => {
    const c = contractOf(address);
    return c ? c.has_uri === 1 : (newContracts.get(address)?.hasUri ?? false);
  };
  // A contract is one standard: moves of the other kind (a contract emitting both) are not followed.
  const logs = decoded.moves.filter((m) => standardOf(m.contract) === (m.amount === null ? 'ERC721' : 'ERC1155'));

  const wanted: { standard: Standard; address: string; id: bigint }[] = [];
  for (const m of netMoves(logs)) {
    if (m.minted && m.to !== ZERO_ADDRESS && hasUri(m.contract)) wanted.push({ standard: 'ERC721', address: m.contract, id: m.id });
  }
  const seenIds = new Set<string>();
  for (const m of logs) {
    if (m.amount === null || m.from !== ZERO_ADDRESS || !hasUri(m.contract)) continue;
    const key = `${m.contract}:${m.id}`;
    if (seenIds.has(key)) continue;
    seenIds.add(key);
    const c = contractOf(m.contract);
    if (c && lookups.idKnown(c, m.id)) continue;
    wanted.push({ standard: 'ERC1155', address: m.contract, id: m.id });
  }
  const uriList = await readUris(chain, wanted, to);
  const uris = new Map(wanted.map((m, i) => [`${m.address}:${m.id}`, uriList[i]!]));

  const supplyOf = new Set([...refreshSupply].filter((a) => standardOf(a) !== 'ERC1155'));
  for (const l of logs) {
    if (l.amount !== null) continue;
    const c = contractOf(l.contract);
    if (c ? c.total_supply !== null : newContracts.get(l.contract)?.totalSupply != null) supplyOf.add(l.contract);
  }
  const supplyList = [...supplyOf];
  const values = await readTotalSupplies(chain, supplyList, to);
  const supplies = new Map(supplyList.map((a, i) => [a, values[i] ?? null]));
  return {
    from,
    to,
    rawCount: raw.length,
    logs,
    blocks: decoded.blocks,
    newContracts,
    uris,
    supplies,
    uriEvents: decoded.uris,
    metadataUpdates: decoded.metadataUpdates,
    truncated: decoded.truncated,
    timing: { logsMs: t1 - t0, metadataMs: performance.now() - t1 },
  };
}
