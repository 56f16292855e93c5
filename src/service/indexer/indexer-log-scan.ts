// Decodes the node's eth_getLogs answer straight from its bytes, without a JSON object per log: the same result as
// JSON.parse then decodeTokenLogs for the answers nodes send, or null for any answer it does not expect (the caller
// then parses it as JSON). Pure, except that it lends two bytes of the body to each Transfer and gives them back.
import { addLog, addTransfer, CONSECUTIVE_CAP, decodeTokenLogs, emptyDecoding, TOPIC, type DecodedLogs } from './indexer-events.js';
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  hexWith0x,
  JsonBytes,
  keyTable,
  notScanned,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  scanned,
} from '../../lib/json-bytes.js';
import type { RawLog } from './indexer-events.js';

/** A range's decoded logs, with what range adaptation needs of the node's answer. */
export interface ScannedLogs {
  decoded: DecodedLogs;
  /** Logs in the answer, ERC-20 transfers and removed logs included. */
  count: number;
  /** The most of those logs in one block. */
  densest: number;
}

const TRANSFER = Buffer.from(TOPIC.transfer, 'latin1');
/** Bytes of a 32-byte topic as "0x" and 64 hex digits. */
const TOPIC_LENGTH = 66;

/** The members the scan reads; any other is skipped. */
const KEYS = keyTable(['result', 'jsonrpc', 'id', 'address', 'topics', 'data', 'blockHash', 'blockNumber', 'logIndex', 'removed']);

/**
 * The scan of one answer to a one-request batch (`[{"jsonrpc":"2.0","id":0,"result":[...]}]`, whitespace allowed).
 * Each log's members may come in any order; members it does not use are skipped. null for an error answer, a string
 * with an escape, a log out of chain order (the JSON path sorts), or anything else a node does not send for logs.
 */
export function scanTokenLogs(body: Buffer, cap = CONSECUTIVE_CAP): ScannedLogs | null {
  return scanned(() => new LogScan(body, cap).answer());
}

/** The JSON path: logs JSON.parse made of an answer the scan did not take. */
export function decodeRawLogs(raw: readonly RawLog[], cap = CONSECUTIVE_CAP): ScannedLogs {
  return { decoded: decodeTokenLogs(raw, cap), count: raw.length, densest: mostInOneBlock(raw.map((l) => l.blockNumber)) };
}

/** The most entries that name the same block. Pure. */
export function mostInOneBlock(blocks: readonly (string | number)[]): number {
  const counts = new Map<string | number, number>();
  let most = 0;
  for (const b of blocks) {
    const n = (counts.get(b) ?? 0) + 1;
    counts.set(b, n);
    if (n > most) most = n;
  }
  return most;
}

class LogScan extends JsonBytes {
  private readonly out = emptyDecoding();
  private count = 0;
  private densest = 0;
  private inBlock = 0;
  private lastBlock = -1;
  private lastLogIndex = -1;
  // Every log of a block repeats its hash and number, and a contract's logs its address: one string each per run.
  private hash = { start: -1, value: '' };
  private address = { start: -1, value: '' };
  private number = { start: -1, value: '' };
  private readonly topics: number[] = [];

  constructor(
    b: Buffer,
    private readonly cap: number,
  ) {
    super(b);
  }

  answer(): ScannedLogs {
    let logs = false;
    this.list(() => {
      if (logs) notScanned();
      this.object(() => {
        const key = this.key(KEYS);
        if (key === 'result' && !logs) {
          this.list(() => this.log());
          logs = true;
        } else if (key === 'jsonrpc' || key === 'id') this.skipValue();
        else notScanned();
      });
    });
    this.finish();
    if (!logs) notScanned();
    return { decoded: this.out, count: this.count, densest: this.densest };
  }

  /** One log object, added to the decoding unless removed. */
  private log(): void {
    const b = this.b;
    let address = '';
    let blockHash = '';
    let blockNumber = '';
    let logIndex = '';
    let dataStart = -1;
    let dataEnd = -1;
    let removed = false;
    let topicsSeen = false;
    const topics = this.topics;
    topics.length = 0;
    if (this.enter(OPEN_OBJECT, CLOSE_OBJECT))
      do {
        const key = this.key(KEYS);
        const c = this.peek();
        if (key === 'topics') {
          topics.length = 0;
          if (this.enter(OPEN_ARRAY, CLOSE_ARRAY))
            do {
              this.string();
              topics.push(this.start, this.end);
            } while (this.more(CLOSE_ARRAY));
          topicsSeen = true;
        } else if (key === 'removed') {
          // true, false or null (JSON.parse's path skips a log whose member is truthy: anything else is not scanned).
          if (c !== 0x74 && c !== 0x66 && c !== 0x6e) notScanned();
          removed = c === 0x74;
          this.skipValue();
        } else if (c !== QUOTE) this.skipValue();
        else {
          this.string();
          const s = this.start;
          const e = this.end;
          if (key === 'address') address = this.repeated(this.address, s, e);
          else if (key === 'blockHash') blockHash = this.repeated(this.hash, s, e);
          else if (key === 'blockNumber') blockNumber = this.repeated(this.number, s, e);
          else if (key === 'logIndex') logIndex = b.toString('latin1', s, e);
          else if (key === 'data') {
            dataStart = s;
            dataEnd = e;
          }
        }
      } while (this.more(CLOSE_OBJECT));
    if (!topicsSeen || address === '' || blockHash === '' || blockNumber === '' || logIndex === '') notScanned();
    const block = Number(blockNumber);
    const index = Number(logIndex);
    if (!Number.isSafeInteger(block) || !Number.isSafeInteger(index)) notScanned();
    // Out of chain order (removed logs included, so that counting runs counts every log of a block): the JSON path sorts.
    if (block < this.lastBlock || (block === this.lastBlock && index < this.lastLogIndex)) notScanned();
    this.counted(block);
    this.lastBlock = block;
    this.lastLogIndex = index;
    if (removed) return;
    if (topics.length === 8 && this.isTransfer(topics)) {
      const contract = address.toLowerCase();
      addTransfer(
        this.out,
        block,
        index,
        blockHash,
        contract,
        this.addressTopic(topics[2]!),
        this.addressTopic(topics[4]!),
        BigInt(b.toString('latin1', topics[6]!, topics[7]!)),
      );
      return;
    }
    const raw: RawLog = { address, topics: [], blockNumber, blockHash, logIndex };
    for (let i = 0; i < topics.length; i += 2) raw.topics.push(b.toString('latin1', topics[i]!, topics[i + 1]!));
    if (dataStart >= 0) raw.data = b.toString('latin1', dataStart, dataEnd);
    addLog(this.out, raw, block, index, this.cap);
  }

  /** Counts the log for range adaptation (logs come block by block, or the scan has given up already). */
  private counted(block: number): void {
    this.count++;
    this.inBlock = block === this.lastBlock ? this.inBlock + 1 : 1;
    if (this.inBlock > this.densest) this.densest = this.inBlock;
  }

  /** An ERC-721 Transfer as nodes write it: lowercase topic 0, and the three others 32 bytes each. */
  private isTransfer(topics: readonly number[]): boolean {
    for (let i = 2; i < 8; i += 2) if (topics[i + 1]! - topics[i]! !== TOPIC_LENGTH) return false;
    return topics[1]! - topics[0]! === TOPIC_LENGTH && TRANSFER.compare(this.b, topics[0]!, topics[1]!) === 0;
  }

  /** The address in a topic, "0x" and its last 40 digits, lowercase. */
  private addressTopic(start: number): string {
    return hexWith0x(this.b, start + TOPIC_LENGTH - 40, start + TOPIC_LENGTH).toLowerCase();
  }

  /** The string at [s, e), the same string as the last time when the bytes are the same. */
  private repeated(last: { start: number; value: string }, s: number, e: number): string {
    const n = e - s;
    if (last.start < 0 || last.value.length !== n || this.b.compare(this.b, last.start, last.start + n, s, e) !== 0) {
      last.start = s;
      last.value = this.b.toString('latin1', s, e);
    }
    return last.value;
  }
}
