// Decodes the node's eth_getLogs answer straight from its bytes, without a JSON object per log: the same result as
// JSON.parse then decodeTokenLogs for the answers nodes send, or null for any answer it does not expect (the caller
// then parses it as JSON). Pure, except that it lends two bytes of the body to each Transfer and gives them back.
import { addLog, addTransfer, CONSECUTIVE_CAP, decodeTokenLogs, emptyDecoding, TOPIC, type DecodedLogs } from './indexer-events.js';
import type { RawLog } from './indexer-rpc.js';

/** A range's decoded logs, with what range adaptation needs of the node's answer. */
export interface ScannedLogs {
  decoded: DecodedLogs;
  /** Logs in the answer, ERC-20 transfers and removed logs included. */
  count: number;
  /** The most of those logs in one block. */
  densest: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const TRANSFER = Buffer.from(TOPIC.transfer, 'latin1');
/** Bytes of a 32-byte topic as "0x" and 64 hex digits. */
const TOPIC_LENGTH = 66;

/** The members the scan reads; any other is skipped. */
const KEYS = ['result', 'jsonrpc', 'id', 'address', 'topics', 'data', 'blockHash', 'blockNumber', 'logIndex', 'removed'] as const;
type Key = (typeof KEYS)[number];
const KEY_BYTES = KEYS.map((k) => Buffer.from(k, 'latin1'));

/** Which of KEYS the bytes [s, e) spell, compared byte by byte (no string made per member). */
function keyAt(b: Buffer, s: number, e: number): Key | null {
  next: for (let k = 0; k < KEYS.length; k++) {
    const key = KEY_BYTES[k]!;
    if (key.length !== e - s || key[0] !== b[s]) continue;
    for (let i = 1; i < key.length; i++) if (key[i] !== b[s + i]) continue next;
    return KEYS[k]!;
  }
  return null;
}

/** Thrown inside the scan for anything unexpected; the scan then answers null. */
class Unexpected extends Error {}
const unexpected = () => {
  throw new Unexpected();
};

/**
 * The scan of one answer to a one-request batch (`[{"jsonrpc":"2.0","id":0,"result":[...]}]`, whitespace allowed).
 * Each log's members may come in any order; members it does not use are skipped. null for an error answer, a string
 * with an escape, a log out of chain order (the JSON path sorts), or anything else a node does not send for logs.
 */
export function scanTokenLogs(body: Buffer, cap = CONSECUTIVE_CAP): ScannedLogs | null {
  try {
    return new LogScan(body, cap).answer();
  } catch (e) {
    if (e instanceof Unexpected) return null;
    throw e;
  }
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

class LogScan {
  private at = 0;
  /** The contents of the last string read: [start, end). */
  private start = 0;
  private end = 0;
  /** Where the next backslash is (2^32 - 1 for none), once looked up. */
  private slash = -1;
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
    private readonly b: Buffer,
    private readonly cap: number,
  ) {}

  answer(): ScannedLogs {
    this.expect(OPEN_ARRAY);
    this.expect(OPEN_OBJECT);
    let logs = false;
    do {
      const key = this.key();
      if (key === 'result' && !logs) {
        this.list(() => this.log());
        logs = true;
      } else if (key === 'jsonrpc' || key === 'id') this.skipValue();
      else unexpected();
    } while (this.more(CLOSE_OBJECT));
    this.expect(CLOSE_ARRAY);
    if (!logs || this.peek() !== -1) unexpected();
    return { decoded: this.out, count: this.count, densest: this.densest };
  }

  /** One log object, added to the decoding unless removed. */
  private log(): void {
    const b = this.b;
    this.expect(OPEN_OBJECT);
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
    do {
      const key = this.key();
      const c = this.peek();
      if (key === 'topics') {
        topics.length = 0;
        this.list(() => {
          this.string();
          topics.push(this.start, this.end);
        });
        topicsSeen = true;
      } else if (key === 'removed') {
        // true, false or null (JSON.parse's path skips a log whose member is truthy: anything else is not scanned).
        if (c !== 0x74 && c !== 0x66 && c !== 0x6e) unexpected();
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
    if (!topicsSeen || address === '' || blockHash === '' || blockNumber === '' || logIndex === '') unexpected();
    const block = Number(blockNumber);
    const index = Number(logIndex);
    if (!Number.isSafeInteger(block) || !Number.isSafeInteger(index)) unexpected();
    // Out of chain order (removed logs included, so that counting runs counts every log of a block): the JSON path sorts.
    if (block < this.lastBlock || (block === this.lastBlock && index < this.lastLogIndex)) unexpected();
    this.counted(block);
    this.lastBlock = block;
    this.lastLogIndex = index;
    if (removed) return;
    if (topics.length === 8 && this.isTransfer(topics)) {
      const contract = address.toLowerCase();
      addTransfer(this.out, block, index, blockHash, contract, this.addressTopic(topics[2]!), this.addressTopic(topics[4]!), BigInt(b.toString('latin1', topics[6]!, topics[7]!)));
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

  /**
   * The address in a topic, "0x" and its last 40 digits, lowercase: the two digits before them are lent "0x" so the
   * string is one slice, not a joined pair (each is ~10% of a Transfer's decoding), then given back.
   */
  private addressTopic(start: number): string {
    const b = this.b;
    const at = start + TOPIC_LENGTH - 42;
    const x = b[at]!;
    const y = b[at + 1]!;
    b[at] = 0x30;
    b[at + 1] = 0x78;
    const s = b.toString('latin1', at, start + TOPIC_LENGTH);
    b[at] = x;
    b[at + 1] = y;
    return s.toLowerCase();
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

  /** A member's key, and the colon after it: one of KEYS, or null for any other. */
  private key(): Key | null {
    this.string();
    const key = keyAt(this.b, this.start, this.end);
    this.expect(COLON);
    return key;
  }

  /** Reads a string: its contents are [start, end). A string with an escape ends the scan (hex never has one). */
  private string(): void {
    this.expect(QUOTE);
    const s = this.at;
    const e = this.b.indexOf(QUOTE, s);
    if (e < 0) unexpected();
    // The next backslash is looked up once, not per string (most answers have none, and each lookup runs to the end).
    if (this.slash < s) this.slash = this.b.indexOf(BACKSLASH, s) >>> 0;
    if (this.slash < e) unexpected();
    this.start = s;
    this.end = e;
    this.at = e + 1;
  }

  /** A member's value the scan does not read: a string, number, true, false or null (not an array or object). */
  private skipValue(): void {
    if (this.peek() === QUOTE) return this.string();
    const b = this.b;
    const s = this.at;
    while (this.at < b.length) {
      const c = b[this.at]!;
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c <= 0x20) break;
      if (c === QUOTE || c === OPEN_ARRAY || c === OPEN_OBJECT) unexpected();
      this.at++;
    }
    if (this.at === s) unexpected();
  }

  /** An array, each element read by `item`. */
  private list(item: () => void): void {
    this.expect(OPEN_ARRAY);
    if (this.peek() === CLOSE_ARRAY) {
      this.at++;
      return;
    }
    do item();
    while (this.more(CLOSE_ARRAY));
  }

  /** After an element: true past a comma, false past `close`. */
  private more(close: number): boolean {
    const c = this.peek();
    this.at++;
    if (c === COMMA) return true;
    if (c !== close) unexpected();
    return false;
  }

  private expect(c: number): void {
    if (this.peek() !== c) unexpected();
    this.at++;
  }

  /** The next byte that is not whitespace (-1 at the end). */
  private peek(): number {
    const b = this.b;
    while (this.at < b.length && b[this.at]! <= 0x20) this.at++;
    return this.at < b.length ? b[this.at]! : -1;
  }
}
