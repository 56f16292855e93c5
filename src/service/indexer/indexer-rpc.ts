// Thin JSON-RPC adapter the indexer reads the chain through, over kept-alive node:http (lib/json-post.ts), or over one
// WebSocket for a ws:// or wss:// node (lib/json-rpc-ws.ts): heads and headers (one batch per call), Transfer logs and
// batched eth_call. No ethers provider: it decoded every answer with a JavaScript UTF-8 decoder, which cost the service
// 10-20 ms per 1,000-transaction block header on the event loop the tracker shares; and no fetch(), whose body decoding
// cost the reader more CPU than JSON.parse on catch-up. Every request goes through the node's budget
// (network/node-throttle.ts): back-pressure is waited out and asked again, not reported as a failed read.
import { setMaxListeners } from 'node:events';
import { bodyText, postBytes } from '../../lib/json-post.js';
import { createWsTransport, RpcTimeoutError, type WsTransport } from '../../lib/json-rpc-ws.js';
import { isRevertAnswer } from '../../lib/json-rpc.js';
import { backPressureIn } from '../network/node-budget.js';
import { NodeBackPressure, nodeThrottle, throttled, type NodeThrottle } from '../network/node-throttle.js';
import { chunkCalls, decodeCallBatch, encodeCallBatch, scanCallBatchAnswer, type CallRequest } from './indexer-call-batch.js';
import { TOKEN_TOPICS, type RawLog } from './indexer-events.js';
import { decodeRawLogs, scanTokenLogs, type ScannedLogs } from './indexer-log-scan.js';

// The log shape lives with its decoder (indexer-events.ts), so decoding never imports the transport.
export type { RawLog };

/** keccak256("Transfer(address,address,uint256)"), shared by ERC-20 and ERC-721; only ERC-721 indexes the id (4 topics). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
}

export interface ChainReader {
  blockNumber(): Promise<number>;
  /** Headers of the given blocks in one batch; null where the node has no such block. */
  headers(numbers: readonly number[]): Promise<(BlockHeader | null)[]>;
  /**
   * The token events of blocks [from, to], decoded (indexer-events.ts; ConsecutiveTransfer ranges up to `cap`), and
   * how many logs the node answered with (ERC-20 Transfer shares the topic and counts, then is skipped).
   */
  tokenLogs(from: number, to: number, cap: number): Promise<ScannedLogs>;
  /** eth_call results in one batch; null where the call reverted. */
  calls(requests: readonly CallRequest[], block: number): Promise<(string | null)[]>;
  /** Counts of requests by method, for tests and benchmarks. */
  readonly stats: Map<string, number>;
  destroy(): void;
}

const hex = (n: number) => '0x' + n.toString(16);

const CALL_CHUNK = 1000;
const CALL_PARALLEL = 4;

type RpcAnswer = { id?: number; result?: string; error?: { code: number; message: string; data?: unknown } };

/**
 * The node's URL, the signal that aborts every request in flight once the reader is destroyed, and how long one
 * request may take before it is given up (the step fails and the indexer retries it with backoff).
 */
interface NodeEndpoint {
  url: string;
  target: URL;
  /** Set for a ws:// or wss:// node: every request goes over this socket instead of HTTP. */
  ws: WsTransport | null;
  signal: AbortSignal;
  timeoutMs: number;
  /** The node's request budget, shared with everything else in the process that talks to it. */
  throttle: NodeThrottle;
}

/**
 * How long one request may take by default: a node that stops answering must not hold the indexer for good (fetch()
 * gave up after 300 s), while a wide eth_getLogs on a busy remote node may take tens of seconds.
 */
export const REQUEST_TIMEOUT_MS = 120_000;

/**
 * One request (an object or a batch array) and the node's parsed answer, with the HTTP status (200 over a WebSocket).
 * A transport failure or a node that does not answer in time names the node; an answer that is not JSON (gateways
 * refuse oversized eth_getLogs with an HTML page) becomes an RpcAnswerError that keeps the status, so range refusals
 * are recognised. `scan` may read an HTTP answer's bytes first: what it returns (not null) is the answer.
 */
function exchange(
  node: NodeEndpoint,
  body: unknown,
  scan?: (bytes: Buffer) => unknown,
): Promise<{ status: number; answer: unknown; scanned?: true }> {
  return throttled(node.throttle, () => exchangeOnce(node, body, scan), node.signal);
}

/** One try of exchange(); back-pressure in the answer is thrown as NodeBackPressure, for throttled() to wait out. */
async function exchangeOnce(
  node: NodeEndpoint,
  body: unknown,
  scan?: (bytes: Buffer) => unknown,
): Promise<{ status: number; answer: unknown; scanned?: true }> {
  const tooSlow = () => new Error(`the node at ${node.url} did not answer within ${node.timeoutMs / 1000} s; is it overloaded or stuck?`);
  if (node.ws) {
    let answer: unknown;
    try {
      answer = await node.ws.post(body, node.timeoutMs);
    } catch (e) {
      throw e instanceof RpcTimeoutError
        ? tooSlow()
        : new Error(`cannot reach the node at ${node.url}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const pushBack = backPressureIn(200, null, answer, Date.now());
    if (pushBack) throw new NodeBackPressure(node.url, pushBack.retryAfterMs);
    return { status: 200, answer };
  }
  const timeout = AbortSignal.timeout(node.timeoutMs);
  let status: number;
  let bytes: Buffer;
  let retryAfter: string | undefined;
  try {
    let headers;
    ({ status, bytes, headers } = await postBytes(node.target, JSON.stringify(body), AbortSignal.any([node.signal, timeout])));
    retryAfter = headers['retry-after'];
  } catch (e) {
    if (timeout.aborted && !node.signal.aborted) throw tooSlow();
    const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
    throw new Error(`cannot reach the node at ${node.url}: ${cause}`);
  }
  if (status === 429) throw new NodeBackPressure(node.url, backPressureIn(status, retryAfter, null, Date.now())!.retryAfterMs);
  const scanned = status === 200 ? scan?.(bytes) : null;
  if (scanned != null) return { status, answer: scanned, scanned: true };
  const text = bodyText(bytes);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new RpcAnswerError({ code: status, message: `HTTP ${status}: ${text.slice(0, 200)}` });
  }
  const pushBack = backPressureIn(status, retryAfter, answer, Date.now());
  if (pushBack) throw new NodeBackPressure(node.url, pushBack.retryAfterMs);
  return { status, answer };
}

/** Runs `task` for 0..count-1 with at most `limit` in flight: the node serves concurrent requests on several threads. */
async function pool(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/**
 * Batched eth_call: one JSON-RPC batch per 1,000 calls, a few in flight. Measured on anvil:
 * 5,000 calls in 150 ms this way against 1,140 ms through JsonRpcProvider.send, whose per-request overhead dominates.
 */
async function callEach(node: NodeEndpoint, requests: readonly CallRequest[], block: string): Promise<(string | null)[]> {
  const out: (string | null)[] = new Array(requests.length).fill(null);
  await pool(Math.ceil(requests.length / CALL_CHUNK), CALL_PARALLEL, async (c) => {
    const start = c * CALL_CHUNK;
    const slice = requests.slice(start, start + CALL_CHUNK);
    const body = slice.map((r, j) => ({ jsonrpc: '2.0', id: start + j, method: 'eth_call', params: [{ to: r.to, data: r.data }, block] }));
    const { status, answer } = await exchange(node, body);
    if (!Array.isArray(answer))
      throw new RpcAnswerError((answer as RpcAnswer).error ?? { code: status, message: `HTTP ${status} to a batch of eth_call` });
    for (const a of answer as RpcAnswer[]) {
      if (a.error && !isRevertAnswer(a.error)) throw new RpcAnswerError(a.error);
      if (typeof a.id === 'number' && a.id >= start && a.id < start + slice.length) out[a.id] = a.error ? null : (a.result ?? null);
    }
  });
  return out;
}

/** Packed batches worth trying: below this many calls the per-call batch is as fast. */
const PACK_MIN = 8;

/**
 * Many eth_calls as a few CallBatch eth_calls (indexer-call-batch.ts): a node spends most of a plain eth_call on
 * JSON-RPC and EVM set-up, not on tokenURI itself. Measured on anvil: 100,000 tokenURI calls in 0.4-0.6 s packed
 * (about 500 per eth_call) against 2.3-2.6 s as plain batches.
 * Entries that failed inside the batch, and whole chunks the node did not answer with a CallBatch answer, are asked
 * again one by one, so every answer is what a plain eth_call of that request returns.
 */
async function callPacked(
  node: NodeEndpoint,
  requests: readonly CallRequest[],
  block: string,
  packing: { failures: number },
): Promise<(string | null)[]> {
  const out: (string | null | undefined)[] = new Array(requests.length).fill(undefined);
  const chunks = chunkCalls(requests);
  await pool(chunks.length, CALL_PARALLEL, async (c) => {
    const [start, end] = chunks[c]!;
    let results: (string | undefined)[] | null = null;
    try {
      const call = { data: encodeCallBatch(requests.slice(start, end)) };
      const request = { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [call, block] };
      // Most answers are decoded from the node's bytes; anything else is JSON first.
      const { answer, scanned } = await exchange(node, request, (bytes) => scanCallBatchAnswer(bytes, end - start));
      if (scanned) results = answer as (string | undefined)[];
      else {
        const a = answer as RpcAnswer;
        const data = typeof a.error?.data === 'string' ? a.error.data : a.result;
        results = typeof data === 'string' ? decodeCallBatch(data, end - start) : null;
      }
    } catch {
      // A gateway may refuse the big body with an HTML page; the plain batch below tells a dead node apart.
    }
    packing.failures = results ? 0 : packing.failures + 1;
    results?.forEach((r, i) => (out[start + i] = r));
  });
  const retry = out.flatMap((r, i) => (r === undefined ? [i] : []));
  if (retry.length > 0) {
    const again = await callEach(
      node,
      retry.map((i) => requests[i]!),
      block,
    );
    retry.forEach((i, j) => (out[i] = again[j] ?? null));
  }
  return out as (string | null)[];
}

/** A JSON-RPC error answer as an Error that keeps the node's `error.code` and `error.message` for the callers' checks. */
export class RpcAnswerError extends Error {
  constructor(readonly error: { code: number; message: string }) {
    super(`the node answered: ${error.message}`);
  }
}

/**
 * One JSON-RPC batch. A transport failure names the node; an error answer, or an HTTP error page (gateways refuse
 * oversized eth_getLogs that way; the status is kept so range refusals are recognised), becomes an RpcAnswerError.
 */
async function send(node: NodeEndpoint, calls: readonly { method: string; params: unknown[] }[]): Promise<unknown[]> {
  const { status, answer: answers } = await exchange(
    node,
    calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params })),
  );
  return answersOf(node, calls.length, status, answers);
}

/** The results of a batch of `count` requests, in order; an error answer becomes an RpcAnswerError. */
function answersOf(node: NodeEndpoint, count: number, status: number, answers: unknown): unknown[] {
  if (!Array.isArray(answers))
    throw new RpcAnswerError((answers as RpcAnswer).error ?? { code: status, message: `HTTP ${status} to a batch` });
  const out: unknown[] = new Array(count);
  for (const a of answers as { id?: number; result?: unknown; error?: { code: number; message: string } }[]) {
    if (a.error) throw new RpcAnswerError(a.error);
    if (typeof a.id === 'number' && a.id >= 0 && a.id < count) out[a.id] = a.result ?? null;
  }
  if (out.some((r) => r === undefined)) throw new Error(`the node at ${node.url} left requests of a batch unanswered`);
  return out;
}

export function createChainReader(nodeUrl: string, opts: { timeoutMs?: number } = {}): ChainReader {
  const closing = new AbortController();
  // Every request in flight listens on the one signal (a catch-up has a few dozen).
  setMaxListeners(256, closing.signal);
  const target = new URL(nodeUrl);
  const ws = target.protocol === 'ws:' || target.protocol === 'wss:' ? createWsTransport(nodeUrl) : null;
  const node: NodeEndpoint = {
    url: nodeUrl,
    target,
    ws,
    signal: closing.signal,
    timeoutMs: opts.timeoutMs ?? REQUEST_TIMEOUT_MS,
    throttle: nodeThrottle(nodeUrl),
  };
  const stats = new Map<string, number>();
  const count = (method: string, n: number) => stats.set(method, (stats.get(method) ?? 0) + n);
  const packing = { failures: 0 };
  return {
    stats,
    async blockNumber() {
      count('eth_blockNumber', 1);
      const [n] = await send(node, [{ method: 'eth_blockNumber', params: [] }]);
      return Number(n);
    },
    async headers(numbers) {
      if (numbers.length === 0) return [];
      count('eth_getBlockByNumber', numbers.length);
      const blocks = await send(
        node,
        numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
      );
      return blocks.map((b) => {
        const block = b as { number: string; hash: string; parentHash: string } | null;
        return block ? { number: Number(block.number), hash: block.hash, parentHash: block.parentHash } : null;
      });
    },
    async tokenLogs(from, to, cap) {
      count('eth_getLogs', 1);
      const request = [
        { jsonrpc: '2.0', id: 0, method: 'eth_getLogs', params: [{ fromBlock: hex(from), toBlock: hex(to), topics: [TOKEN_TOPICS] }] },
      ];
      // Most answers are decoded from the node's bytes; anything else (an error, a WebSocket node) is JSON first.
      const { status, answer, scanned } = await exchange(node, request, (bytes) => scanTokenLogs(bytes, cap));
      if (scanned) return answer as ScannedLogs;
      const [logs] = answersOf(node, 1, status, answer);
      if (!Array.isArray(logs)) throw new Error('eth_getLogs: the node answered without a list of logs');
      return decodeRawLogs(logs as RawLog[], cap);
    },
    async calls(requests, block) {
      if (requests.length === 0) return [];
      count('eth_call', requests.length);
      // A node that keeps refusing CallBatch (no contract-creating eth_call, no revert data) gets plain batches.
      if (requests.length < PACK_MIN || packing.failures >= 3) return callEach(node, requests, hex(block));
      return callPacked(node, requests, hex(block), packing);
    },
    destroy() {
      closing.abort();
      ws?.close();
    },
  };
}
