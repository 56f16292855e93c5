// Everything one range needs from the node before it can be written: its Transfer logs, metadata of contracts seen
// for the first time, tokenURI of minted tokens and fresh totalSupply values. Pure reads, so it can run ahead.
import type { ContractRow } from '../listing/listing-store-write.js';
import { decodeTransferLogs, netMoves, ZERO_ADDRESS, type TransferLog } from './indexer-apply.js';
import { readContractMeta, readTokenUris, readTotalSupplies, type ContractMeta } from './indexer-metadata.js';
import type { ChainReader } from './indexer-rpc.js';

export interface PreparedRange {
  from: number;
  to: number;
  /** Logs the node returned (all Transfer logs, ERC-20 included), for range adaptation. */
  rawCount: number;
  logs: TransferLog[];
  newContracts: Map<string, ContractMeta>;
  /** tokenURI by `contract:id` for tokens minted in the range (others are filled after writing, see backfill). */
  uris: Map<string, string>;
  supplies: Map<string, string | null>;
  timing: { logsMs: number; metadataMs: number };
}

export async function prepareRange(
  chain: ChainReader,
  contractOf: (address: string) => ContractRow | undefined,
  from: number,
  to: number,
  refreshSupply: ReadonlySet<string>,
): Promise<PreparedRange> {
  const t0 = performance.now();
  const raw = await chain.transferLogs(from, to);
  const t1 = performance.now();
  const logs = decodeTransferLogs(raw);

  const probes = new Map<string, bigint>();
  for (const l of logs) if (!contractOf(l.contract) && !probes.has(l.contract)) probes.set(l.contract, l.id);
  const metaList = await readContractMeta(chain, [...probes].map(([address, probeId]) => ({ address, probeId })), to);
  const newContracts = new Map<string, ContractMeta>([...probes.keys()].map((a, i) => [a, metaList[i]!]));
  const hasUri = (address: string) => {
    const c = contractOf(address);
    return c ? c.has_uri === 1 : (newContracts.get(address)?.hasUri ?? false);
  };

  const minted = netMoves(logs).filter((m) => m.minted && m.to !== ZERO_ADDRESS && hasUri(m.contract));
  const uriList = await readTokenUris(chain, minted.map((m) => ({ address: m.contract, id: m.id })), to);
  const uris = new Map(minted.map((m, i) => [`${m.contract}:${m.id}`, uriList[i]!]));

  const supplyOf = new Set(refreshSupply);
  for (const l of logs) {
    const c = contractOf(l.contract);
    if (c ? c.total_supply !== null : newContracts.get(l.contract)?.totalSupply != null) supplyOf.add(l.contract);
  }
  const supplyList = [...supplyOf];
  const values = await readTotalSupplies(chain, supplyList, to);
  const supplies = new Map(supplyList.map((a, i) => [a, values[i] ?? null]));
  return { from, to, rawCount: raw.length, logs, newContracts, uris, supplies, timing: { logsMs: t1 - t0, metadataMs: performance.now() - t1 } };
}
