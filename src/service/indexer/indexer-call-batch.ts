// Packs many read-only eth_calls into one contract-creating eth_call (see contracts/indexer/CallBatch.sol) and unpacks the answer.
// Pure: encoding, chunking and decoding only (the answer read from its bytes, or from JSON); indexer-rpc.ts sends the
// chunks and retries failed entries one by one.
import { hexWith0x, JsonBytes, keyTable, OPEN_OBJECT, QUOTE, scanned } from '../../lib/json-bytes.js';

/**
 * Init code of CallBatch (contracts/indexer/CallBatch.sol; solc 0.8.30, optimizer 200 runs, no metadata): checked by
 * `node scripts/check-call-batch.js`.
 */
export const CALL_BATCH_INIT_CODE =
  '0x608060405234801561001057600080fd5b506040516101b03803806101b083398101604081905261002f916100e3565b6020810181518101604051' +
  '6308c379a060e01b815260206004820152601460248201527f74786465736b2d63616c6c2d62617463682d7632000000000000000000000000604482' +
  '0152606481015b828410156100c757835160601c601485015160f01c60168601600080838386622dc6c0fa92503d80841560ff1b1785528060006020' +
  '87013e9101955091909101602001905061007d565b81810382fd5b634e487b7160e01b600052604160045260246000fd5b6000602082840312156100' +
  'f557600080fd5b81516001600160401b0381111561010b57600080fd5b8201601f8101841361011c57600080fd5b80516001600160401b0381111561' +
  '0135576101356100cd565b604051601f8201601f19908116603f011681016001600160401b0381118282101715610163576101636100cd565b604052' +
  '81815282820160200186101561017b57600080fd5b60005b8281101561019a5760208185018101518383018201520161017e565b5060009181016020' +
  '019190915294935050505056fe';

/**
 * Head of every CallBatch answer, so revert data from anything else is never mistaken for one: the ABI encoding of
 * Error("txdesk-call-batch-v2") (selector, offset, length, the padded text), which nodes show as a short message.
 */
const HEAD =
  '08c379a0' +
  (0x20).toString(16).padStart(64, '0') +
  (20).toString(16).padStart(64, '0') +
  Buffer.from('txdesk-call-batch-v2').toString('hex').padEnd(64, '0');

/**
 * Bytes of packed calls per chunk: init code is limited to 49,152 bytes (EIP-3860), and a chunk of about 500 tokenURI
 * calls keeps the EVM's memory (returned strings are collected in memory, whose cost grows quadratically) cheap.
 */
export const CALL_BATCH_BYTES = 30_000;

export interface CallRequest {
  to: string;
  data: string;
}

const strip = (h: string) => (h.startsWith('0x') ? h.slice(2) : h);

/** Splits requests into index ranges [start, end) whose packed size fits CALL_BATCH_BYTES (at least one call each). */
export function chunkCalls(requests: readonly CallRequest[], maxBytes = CALL_BATCH_BYTES): [number, number][] {
  const chunks: [number, number][] = [];
  let start = 0;
  let bytes = 0;
  requests.forEach((r, i) => {
    const size = 22 + strip(r.data).length / 2;
    if (i > start && bytes + size > maxBytes) {
      chunks.push([start, i]);
      start = i;
      bytes = 0;
    }
    bytes += size;
  });
  if (start < requests.length) chunks.push([start, requests.length]);
  return chunks;
}

/** eth_call data running every request: init code + ABI-encoded `bytes` of [target][uint16 length][calldata] entries. */
export function encodeCallBatch(requests: readonly CallRequest[]): string {
  const entry = (r: CallRequest) => {
    const data = strip(r.data);
    return strip(r.to).toLowerCase() + (data.length / 2).toString(16).padStart(4, '0') + data;
  };
  const packed = requests.map(entry).join('');
  const length = packed.length / 2;
  const padded = packed.padEnd(Math.ceil(length / 32) * 64, '0');
  return CALL_BATCH_INIT_CODE + (32).toString(16).padStart(64, '0') + length.toString(16).padStart(64, '0') + padded;
}

/**
 * Per request: its return data ("0x..."), or undefined when it failed inside the batch (revert, gas cap, state
 * write under STATICCALL) and must be asked again on its own. Null when the answer is not a CallBatch answer at all.
 */
export function decodeCallBatch(answer: string, count: number): (string | undefined)[] | null {
  return decodeCallBatchBytes(Buffer.from(answer, 'latin1'), 0, answer.length, count);
}

const HEAD_BYTES = Buffer.from(HEAD, 'latin1');
/** The value of one hex digit, NaN for any other byte. */
const digit = (c: number) =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : NaN;

/**
 * decodeCallBatch over hex digits where they lie in a buffer, [start, end) with or without "0x": an answer of 500
 * tokenURIs is ~130 KB of hex, and a string that size costs more to make than to decode. Each request's data is one
 * slice (hexWith0x).
 */
export function decodeCallBatchBytes(b: Buffer, start: number, end: number, count: number): (string | undefined)[] | null {
  if (b[start] === 0x30 && (b[start + 1] === 0x78 || b[start + 1] === 0x58)) start += 2;
  if (end - start < HEAD_BYTES.length || HEAD_BYTES.compare(b, start, start + HEAD_BYTES.length) !== 0) return null;
  const out: (string | undefined)[] = [];
  let p = start + HEAD_BYTES.length;
  for (let i = 0; i < count; i++) {
    if (p + 64 > end) return null;
    const failed = digit(b[p]!) >= 8;
    let size = 0;
    for (let j = p + 48; j < p + 64; j++) size = size * 16 + digit(b[j]!);
    if (!Number.isSafeInteger(size)) return null;
    p += 64;
    if (p + size * 2 > end) return null;
    out.push(failed ? undefined : hexWith0x(b, p, p + size * 2));
    p += size * 2;
  }
  return p === end ? out : null;
}

const ANSWER_KEYS = keyTable(['result', 'error', 'data']);

/**
 * decodeCallBatch of a node's answer to one CallBatch eth_call, read from its bytes: the revert data (`error.data`),
 * else `result`, as the JSON path reads them. Null for anything else (the caller parses the answer as JSON).
 */
export function scanCallBatchAnswer(body: Buffer, count: number): (string | undefined)[] | null {
  return scanned(() => new CallAnswerScan(body).answer(count));
}

class CallAnswerScan extends JsonBytes {
  answer(count: number): (string | undefined)[] | null {
    let result: [number, number] | null = null;
    let data: [number, number] | null = null;
    this.object(() => {
      const key = this.key(ANSWER_KEYS);
      if (key === 'error' && this.peek() === OPEN_OBJECT) {
        this.object(() => {
          if (this.key(ANSWER_KEYS) === 'data' && this.peek() === QUOTE) {
            this.string();
            data = [this.start, this.end];
          } else this.skipValue();
        });
      } else if (key === 'result' && this.peek() === QUOTE) {
        this.string();
        result = [this.start, this.end];
      } else this.skipValue();
    });
    this.finish();
    const hex = data ?? result;
    return hex && decodeCallBatchBytes(this.b, hex[0], hex[1], count);
  }
}
