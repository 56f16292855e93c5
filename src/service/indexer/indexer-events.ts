// Decodes the token events the indexer follows (ERC-721 Transfer, EIP-2309 ConsecutiveTransfer, ERC-1155
// TransferSingle/TransferBatch/URI, ERC-4906 metadata updates) into one list of single-token moves. Pure.
import type { Standard } from '../../shared/listing.js';
import { ZERO_ADDRESS } from '../../shared/address.js';

export { ZERO_ADDRESS };

/** A log as eth_getLogs returns it (hex strings). */
export interface RawLog {
  address: string;
  topics: string[];
  blockNumber: string;
  blockHash: string;
  logIndex: string;
  data?: string;
  removed?: boolean;
}

/**
 * keccak256 of each event's signature, written out (indexer-units.test.ts checks them against the signatures): the
 * reader thread imports this module, and hashing at load meant loading ethers there, ~200 ms before its first read.
 */
export const TOPIC = {
  /** Transfer(address,address,uint256) */
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  /** ConsecutiveTransfer(uint256,uint256,address,address) */
  consecutive: '0xdeaa91b6123d068f5821d0fb0678463d1a8a6079fe8af5de3ce5e896dcf9133d',
  /** TransferSingle(address,address,address,uint256,uint256) */
  single: '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62',
  /** TransferBatch(address,address,address,uint256[],uint256[]) */
  batch: '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
  /** URI(string,uint256) */
  uri: '0x6bb7ff708619ba0610cba295a58592e0451dee2622938c8755667688daf3529b',
  /** MetadataUpdate(uint256) */
  metadataUpdate: '0xf8e1a15aba9398e019f0b49df1a4fde98ee17ae345cb5f6b5e2c27f5033e8ce7',
  /** BatchMetadataUpdate(uint256,uint256) */
  batchMetadataUpdate: '0x6bd5c950a8d8df17f772f5af37cb3655737899cbf903264b9795592da439661c',
} as const;

/** Every topic eth_getLogs asks for (one OR filter). */
export const TOKEN_TOPICS: readonly string[] = Object.values(TOPIC);

/**
 * Tokens indexed per ConsecutiveTransfer event. EIP-2309 allows any range, and one event naming 2^256 tokens must not
 * stop the index; OpenZeppelin's ERC721Consecutive mints at most 5,000 per event. Longer ranges are indexed up to
 * the cap, logged and reported on /health (docs/indexer.md).
 */
export const CONSECUTIVE_CAP = 50_000;

/** One token moved by one log. ERC-1155 moves carry an amount; ERC-721 moves move exactly one token. */
export interface TokenMove {
  block: number;
  logIndex: number;
  /** Position inside a multi-token log, from 1 (ConsecutiveTransfer, TransferBatch); 0 for a single-token log. */
  sub: number;
  blockHash: string;
  contract: string;
  from: string;
  to: string;
  id: bigint;
  /** null for ERC-721. */
  amount: bigint | null;
}

export interface UriEvent {
  block: number;
  logIndex: number;
  contract: string;
  id: bigint;
  value: string;
}

/** ERC-4906: the tokens [fromId, toId] of a contract have new metadata. */
export interface MetadataUpdate {
  contract: string;
  fromId: bigint;
  toId: bigint;
}

export interface Truncation {
  block: number;
  logIndex: number;
  contract: string;
  fromId: bigint;
  toId: bigint;
  indexed: number;
}

export interface DecodedLogs {
  moves: TokenMove[];
  uris: UriEvent[];
  metadataUpdates: MetadataUpdate[];
  truncated: Truncation[];
  /** The standard of the first event each contract emitted in the range (ERC-4906 and URI say nothing). */
  firstKind: Map<string, Standard>;
  /**
   * Block and hash of the decoded logs, for the range-end consistency check: one entry per run of logs with the same
   * block and hash (a part's 10,000 logs of one block are one entry, not 10,000 to copy to the writer's thread).
   */
  blocks: { block: number; blockHash: string }[];
}

const MAX_UINT = (1n << 256n) - 1n;

const word = (data: string, i: number): bigint | null => {
  const s = 2 + i * 64;
  if (data.length < s + 64) return null;
  return BigInt('0x' + data.slice(s, s + 64));
};
const addressTopic = (t: string) => '0x' + t.slice(26).toLowerCase();
/** Topics and data as nodes send them are lowercase already; lowercasing only what is not saves a copy per field. */
const lower = (h: string) => (/[A-Z]/.test(h) ? h.toLowerCase() : h);

/** Live logs in chain order (block, then log index); nodes answer in that order, so a copy is sorted only when not. */
function inChainOrder(raw: readonly RawLog[]): { l: RawLog; block: number; logIndex: number }[] {
  const out: { l: RawLog; block: number; logIndex: number }[] = [];
  let sorted = true;
  for (const l of raw) {
    if (l.removed) continue;
    const e = { l, block: Number(l.blockNumber), logIndex: Number(l.logIndex) };
    const prev = out[out.length - 1];
    if (prev && (e.block < prev.block || (e.block === prev.block && e.logIndex < prev.logIndex))) sorted = false;
    out.push(e);
  }
  return sorted ? out : out.sort((a, b) => a.block - b.block || a.logIndex - b.logIndex);
}

/** A dynamic uint256[] at byte offset `offset` of `data`, or null when it does not fit. */
function uintArray(data: string, offset: bigint): bigint[] | null {
  if (offset % 32n !== 0n || offset > BigInt(data.length)) return null;
  const at = Number(offset / 32n);
  const len = word(data, at);
  if (len === null || len > BigInt((data.length - 2) / 64)) return null;
  const out: bigint[] = [];
  for (let i = 0; i < Number(len); i++) {
    const v = word(data, at + 1 + i);
    if (v === null) return null;
    out.push(v);
  }
  return out;
}

/** ABI-encoded string at the start of `data` (URI event), or null. */
function abiString(data: string): string | null {
  const off = word(data, 0);
  if (off === null || off % 32n !== 0n || off > BigInt(data.length)) return null;
  const len = word(data, Number(off / 32n));
  if (len === null) return null;
  const start = 2 + Number(off / 32n + 1n) * 64;
  if (len > BigInt(data.length) || start + Number(len) * 2 > data.length) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(data.slice(start, start + Number(len) * 2), 'hex'));
  } catch {
    return null;
  }
}

/** EIP-1155 `{id}` substitution: the id as 64 lowercase hex digits, no 0x. */
export function substituteId(uri: string, id: bigint): string {
  return uri.includes('{id}') ? uri.replaceAll('{id}', id.toString(16).padStart(64, '0')) : uri;
}

/** An empty decoding, to which logs are added in chain order. */
export function emptyDecoding(): DecodedLogs {
  return { moves: [], uris: [], metadataUpdates: [], truncated: [], firstKind: new Map(), blocks: [] };
}

/** Adds one ERC-721 Transfer (its addresses lowercase); the scanner of the node's bytes calls this for most logs. */
export function addTransfer(
  out: DecodedLogs,
  block: number,
  logIndex: number,
  blockHash: string,
  contract: string,
  from: string,
  to: string,
  id: bigint,
): void {
  if (!out.firstKind.has(contract)) out.firstKind.set(contract, 'ERC721');
  out.moves.push({ block, logIndex, blockHash, contract, sub: 0, from, to, id, amount: null });
  noteBlock(out, block, blockHash);
}

function noteBlock(out: DecodedLogs, block: number, blockHash: string): void {
  const last = out.blocks.at(-1);
  if (last?.block !== block || last.blockHash !== blockHash) out.blocks.push({ block, blockHash });
}

/** Decodes a range's logs, in chain order. Malformed logs (wrong topic count, short data) are skipped. */
export function decodeTokenLogs(raw: readonly RawLog[], cap = CONSECUTIVE_CAP): DecodedLogs {
  const out = emptyDecoding();
  for (const { l, block, logIndex } of inChainOrder(raw)) addLog(out, l, block, logIndex, cap);
  return out;
}

/** Adds one live log at its place in chain order (the caller keeps that order). Malformed logs are skipped. */
export function addLog(out: DecodedLogs, l: RawLog, block: number, logIndex: number, cap = CONSECUTIVE_CAP): void {
  const t0 = l.topics[0] === undefined ? undefined : lower(l.topics[0]);
  const data = lower(l.data ?? '0x');
  const contract = l.address.toLowerCase();
  const blockHash = l.blockHash;
  const base = { block, logIndex, blockHash, contract };
  const kind = (k: Standard) => {
    if (!out.firstKind.has(contract)) out.firstKind.set(contract, k);
  };
  const n = l.topics.length;
  if (t0 === TOPIC.transfer) {
    // ERC-20 Transfer has 3 topics (the amount is data); only ERC-721 indexes the id.
    if (n !== 4) return;
    addTransfer(out, block, logIndex, blockHash, contract, addressTopic(l.topics[1]!), addressTopic(l.topics[2]!), BigInt(l.topics[3]!));
    return;
  } else if (t0 === TOPIC.consecutive) {
    const toId = word(data, 0);
    if (n !== 4 || toId === null) return;
    const fromId = BigInt(l.topics[1]!);
    if (toId < fromId) return;
    kind('ERC721');
    const count = toId - fromId + 1n;
    const take = count > BigInt(cap) ? cap : Number(count);
    if (count > BigInt(cap)) out.truncated.push({ block, logIndex, contract, fromId, toId, indexed: take });
    const from = addressTopic(l.topics[2]!);
    const to = addressTopic(l.topics[3]!);
    for (let i = 0; i < take; i++) out.moves.push({ ...base, sub: i + 1, from, to, id: fromId + BigInt(i), amount: null });
  } else if (t0 === TOPIC.single) {
    const id = word(data, 0);
    const amount = word(data, 1);
    if (n !== 4 || id === null || amount === null) return;
    kind('ERC1155');
    out.moves.push({ ...base, sub: 0, from: addressTopic(l.topics[2]!), to: addressTopic(l.topics[3]!), id, amount });
  } else if (t0 === TOPIC.batch) {
    const o1 = word(data, 0);
    const o2 = word(data, 1);
    if (n !== 4 || o1 === null || o2 === null) return;
    const ids = uintArray(data, o1);
    const amounts = uintArray(data, o2);
    if (!ids || !amounts || ids.length !== amounts.length) return;
    kind('ERC1155');
    const from = addressTopic(l.topics[2]!);
    const to = addressTopic(l.topics[3]!);
    ids.forEach((id, i) => out.moves.push({ ...base, sub: i + 1, from, to, id, amount: amounts[i]! }));
  } else if (t0 === TOPIC.uri) {
    const value = abiString(data);
    if (n !== 2 || value === null) return;
    const id = BigInt(l.topics[1]!);
    out.uris.push({ block, logIndex, contract, id, value: substituteId(value, id) });
  } else if (t0 === TOPIC.metadataUpdate) {
    const id = word(data, 0);
    if (n !== 1 || id === null) return;
    out.metadataUpdates.push({ contract, fromId: id, toId: id });
  } else if (t0 === TOPIC.batchMetadataUpdate) {
    const a = word(data, 0);
    const b = word(data, 1);
    if (n !== 1 || a === null || b === null || b < a || b > MAX_UINT) return;
    out.metadataUpdates.push({ contract, fromId: a, toId: b });
  } else return;
  noteBlock(out, block, blockHash);
}
