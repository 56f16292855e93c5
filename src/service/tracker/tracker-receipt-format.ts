// Node receipts (hex quantities) to the wire receipt of SPEC 3.2: counters as JSON numbers, the wei amount as a
// decimal string, addresses and hashes lowercase. Pure.
import type { TrackerReceipt } from '../../sdk/tracker-wire.js';

type Hex = string;
interface RawLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  removed?: boolean;
}
export interface RawReceipt {
  transactionHash: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  transactionIndex: Hex;
  from: Hex;
  to: Hex | null;
  contractAddress: Hex | null;
  gasUsed: Hex;
  cumulativeGasUsed: Hex;
  effectiveGasPrice?: Hex;
  status?: Hex;
  type?: Hex;
  logs: RawLog[];
}

const num = (h: Hex | undefined): number => (h === undefined ? 0 : Number.parseInt(h, 16));

/** Node JSON (hex quantities) -> the wire receipt: counters as numbers, the wei amount as a decimal string. */
export function formatReceipt(r: RawReceipt): TrackerReceipt {
  return {
    transactionHash: r.transactionHash.toLowerCase(),
    blockHash: r.blockHash.toLowerCase(),
    blockNumber: num(r.blockNumber),
    transactionIndex: num(r.transactionIndex),
    from: r.from.toLowerCase(),
    to: r.to ? r.to.toLowerCase() : null,
    contractAddress: r.contractAddress ? r.contractAddress.toLowerCase() : null,
    gasUsed: num(r.gasUsed),
    cumulativeGasUsed: num(r.cumulativeGasUsed),
    effectiveGasPrice: r.effectiveGasPrice ? BigInt(r.effectiveGasPrice).toString() : '0',
    status: num(r.status ?? '0x1'),
    type: num(r.type ?? '0x0'),
    logs: r.logs.map((l) => ({
      address: l.address.toLowerCase(),
      topics: l.topics,
      data: l.data,
      logIndex: num(l.logIndex),
      blockNumber: num(l.blockNumber),
      blockHash: l.blockHash.toLowerCase(),
      transactionHash: l.transactionHash.toLowerCase(),
      transactionIndex: num(l.transactionIndex),
      removed: l.removed ?? false,
    })),
  };
}
