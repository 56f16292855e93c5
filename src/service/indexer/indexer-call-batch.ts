// Packs many read-only eth_calls into one contract-creating eth_call (see contracts/indexer/CallBatch.sol) and unpacks the answer.
// Pure: encoding, chunking and decoding only; indexer-rpc.ts sends the chunks and retries failed entries one by one.

/**
 * Init code of CallBatch (contracts/indexer/CallBatch.sol; solc 0.8.30, optimizer 200 runs, no metadata): checked by
 * `node scripts/check-call-batch.js`.
 */
export const CALL_BATCH_INIT_CODE =
  '0x608060405234801561001057600080fd5b5060405161019538038061019583398101604081905261002f916100c8565b60208101815181016040517f74786465736b2d63616c6c2d62617463682d76310000000000000000000000008152602081015b828410156100ac57835160601c601485015160f01c60168601600080838386622dc6c0fa92503d80841560ff1b178552806000602087013e91019550919091016020019050610062565b81810382fd5b634e487b7160e01b600052604160045260246000fd5b6000602082840312156100da57600080fd5b81516001600160401b038111156100f057600080fd5b8201601f8101841361010157600080fd5b80516001600160401b0381111561011a5761011a6100b2565b604051601f8201601f19908116603f011681016001600160401b0381118282101715610148576101486100b2565b60405281815282820160200186101561016057600080fd5b60005b8281101561017f57602081850181015183830182015201610163565b5060009181016020019190915294935050505056fe';

/** First word of every CallBatch answer, so revert data from anything else is never mistaken for one. */
const MAGIC = '74786465736b2d63616c6c2d62617463682d7631000000000000000000000000';

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
  const h = strip(answer);
  if (h.slice(0, 64) !== MAGIC) return null;
  const out: (string | undefined)[] = [];
  let p = 64;
  for (let i = 0; i < count; i++) {
    if (p + 64 > h.length) return null;
    const word = h.slice(p, p + 64);
    const failed = parseInt(word[0]!, 16) >= 8;
    const size = parseInt(word.slice(48), 16);
    p += 64;
    if (p + size * 2 > h.length) return null;
    out.push(failed ? undefined : '0x' + h.slice(p, p + size * 2));
    p += size * 2;
  }
  return p === h.length ? out : null;
}
