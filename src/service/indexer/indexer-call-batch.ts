// Packs many read-only eth_calls into one contract-creating eth_call (see contracts/indexer/CallBatch.sol) and unpacks the answer.
// Pure: encoding, chunking and decoding only; indexer-rpc.ts sends the chunks and retries failed entries one by one.

/**
 * Init code of CallBatch (contracts/indexer/CallBatch.sol; solc 0.8.30, optimizer 200 runs, no metadata): checked by
 * `node scripts/check-call-batch.js`.
 */
export const CALL_BATCH_INIT_CODE =
  '0x608060405234801561001057600080fd5b506040516101b03803806101b083398101604081905261002f916100e3565b60208101815181016040516308c379a060e01b815260206004820152601460248201527f74786465736b2d63616c6c2d62617463682d76320000000000000000000000006044820152606481015b828410156100c757835160601c601485015160f01c60168601600080838386622dc6c0fa92503d80841560ff1b178552806000602087013e9101955091909101602001905061007d565b81810382fd5b634e487b7160e01b600052604160045260246000fd5b6000602082840312156100f557600080fd5b81516001600160401b0381111561010b57600080fd5b8201601f8101841361011c57600080fd5b80516001600160401b03811115610135576101356100cd565b604051601f8201601f19908116603f011681016001600160401b0381118282101715610163576101636100cd565b60405281815282820160200186101561017b57600080fd5b60005b8281101561019a5760208185018101518383018201520161017e565b5060009181016020019190915294935050505056fe';

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
  const h = strip(answer);
  if (!h.startsWith(HEAD)) return null;
  const out: (string | undefined)[] = [];
  let p = HEAD.length;
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
