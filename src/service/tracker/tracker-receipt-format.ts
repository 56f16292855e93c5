// Node receipts (hex quantities) to the wire receipt of docs/tracker-protocol.md §3-4: counters as JSON numbers, the wei amount as a
// decimal string, addresses and hashes lowercase; and the receipt's JSON, serialized once per receipt.
import type { TrackerPayload, TrackerReceipt } from '@txdesk/tracker/tracker-wire';

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

/**
 * Receipts are never mutated once formatted, and one receipt is written up to four times (the tracking row when
 * mined and when confirmed, the `receipt` and the `confirmation` payloads): serialize it once.
 */
const jsonOf = new WeakMap<TrackerReceipt, string>();

export function receiptJson(r: TrackerReceipt): string {
  let json = jsonOf.get(r);
  if (json === undefined) {
    json = JSON.stringify(r);
    jsonOf.set(r, json);
  }
  return json;
}

/** Parses a stored receipt, remembering its JSON so it is not serialized again. */
export function parseReceiptJson(json: string): TrackerReceipt {
  const r = JSON.parse(json) as TrackerReceipt;
  jsonOf.set(r, json);
  return r;
}

/** The serialized payload, byte for byte what JSON.stringify(payload) gives. */
export function payloadJson(payload: TrackerPayload): string {
  if (payload.type === 'pending') return JSON.stringify(payload);
  return `{"type":${JSON.stringify(payload.type)},"result":${receiptJson(payload.result)}}`;
}
