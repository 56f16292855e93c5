// Thin JSON-RPC adapter the indexer reads the chain through: heads and headers via an ethers v6 JsonRpcProvider (one
// static network, same-tick batching), the bulk reads (Transfer logs, batched eth_call) over fetch for speed.
import { JsonRpcProvider, Network } from 'ethers';

/** keccak256("Transfer(address,address,uint256)"), shared by ERC-20 and ERC-721; only ERC-721 indexes the id (4 topics). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
}

export interface RawLog {
  address: string;
  topics: string[];
  blockNumber: string;
  blockHash: string;
  logIndex: string;
  removed?: boolean;
}

export interface ChainReader {
  blockNumber(): Promise<number>;
  /** Headers of the given blocks in one batch; null where the node has no such block. */
  headers(numbers: readonly number[]): Promise<(BlockHeader | null)[]>;
  transferLogs(from: number, to: number): Promise<RawLog[]>;
  /** eth_call results in one batch; null where the call reverted. */
  calls(requests: readonly { to: string; data: string }[], block: number): Promise<(string | null)[]>;
  /** Counts of requests by method, for tests and benchmarks. */
  readonly stats: Map<string, number>;
  destroy(): void;
}

const hex = (n: number) => '0x' + n.toString(16);

/** An eth_call that failed inside the EVM (the contract lacks the function or refused): its answer is "absent". */
export function isRevertAnswer(error: { code?: unknown; message?: unknown }): boolean {
  return error.code === 3 || /revert|evmerror|invalid opcode|out of gas|stack underflow|invalid jump|invalidfe/i.test(String(error.message ?? ''));
}

const CALL_CHUNK = 1000;
const CALL_PARALLEL = 4;

/**
 * Batched eth_call straight over fetch: one JSON-RPC batch per 1,000 calls, a few in flight. Measured on anvil:
 * 5,000 calls in 150 ms this way against 1,140 ms through JsonRpcProvider.send, whose per-request overhead dominates.
 */
async function callBatch(nodeUrl: string, requests: readonly { to: string; data: string }[], block: string): Promise<(string | null)[]> {
  const out: (string | null)[] = new Array(requests.length).fill(null);
  const chunks: number[] = [];
  for (let i = 0; i < requests.length; i += CALL_CHUNK) chunks.push(i);
  const run = async (start: number) => {
    const slice = requests.slice(start, start + CALL_CHUNK);
    const body = slice.map((r, j) => ({ jsonrpc: '2.0', id: start + j, method: 'eth_call', params: [{ to: r.to, data: r.data }, block] }));
    const res = await fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answers = JSON.parse(await res.text()) as { id: number; result?: string; error?: { code: number; message: string } }[] | { error?: { code: number; message: string } };
    if (!Array.isArray(answers)) throw new RpcAnswerError(answers.error ?? { code: res.status, message: `HTTP ${res.status} to a batch of eth_call` });
    for (const a of answers) {
      if (a.error && !isRevertAnswer(a.error)) throw new RpcAnswerError(a.error);
      if (typeof a.id === 'number' && a.id >= start && a.id < start + slice.length) out[a.id] = a.error ? null : (a.result ?? null);
    }
  };
  for (let i = 0; i < chunks.length; i += CALL_PARALLEL) await Promise.all(chunks.slice(i, i + CALL_PARALLEL).map(run));
  return out;
}

async function readChainId(nodeUrl: string): Promise<bigint> {
  const res = await fetch(nodeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  });
  const body = (await res.json()) as { result?: string; error?: { message?: string } };
  if (!body.result) throw new Error(`The node at ${nodeUrl} did not answer eth_chainId: ${body.error?.message ?? res.status}`);
  return BigInt(body.result);
}

/** A JSON-RPC error answer, shaped like ethers' (`error.code`, `error.message`) so callers test both the same way. */
export class RpcAnswerError extends Error {
  constructor(readonly error: { code: number; message: string }) {
    super(`the node answered: ${error.message}`);
  }
}

/**
 * eth_getLogs straight over fetch: answers run to megabytes, and ethers decodes bodies with its own JavaScript UTF-8
 * decoder before JSON.parse, which measured 3.5x slower than Node's native decoding on 10,000-log answers.
 */
async function getLogs(nodeUrl: string, filter: object): Promise<RawLog[]> {
  const res = await fetch(nodeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] }),
  });
  const text = await res.text();
  let body: { result?: RawLog[]; error?: { code: number; message: string } };
  try {
    body = JSON.parse(text);
  } catch {
    // Gateways answer oversized queries with HTTP errors and HTML; keep the status so range refusals are recognised.
    throw new RpcAnswerError({ code: res.status, message: `HTTP ${res.status}: ${text.slice(0, 200)}` });
  }
  if (body.error) throw new RpcAnswerError(body.error);
  if (!Array.isArray(body.result)) throw new Error(`eth_getLogs: the node answered without a result (HTTP ${res.status})`);
  return body.result;
}

export function createChainReader(nodeUrl: string, opts: { batchMaxCount?: number } = {}): ChainReader {
  // The chain id is read once by hand and handed to ethers as a static network: ethers then never probes the network
  // again, and never prints its own "failed to detect network" retries. Same-tick requests go out as one batch.
  let provider: Promise<JsonRpcProvider> | null = null;
  let live: JsonRpcProvider | null = null;
  let destroyed = false;
  const connect = () => {
    provider ??= readChainId(nodeUrl).then(
      (id) => {
        const network = Network.from(id);
        live = new JsonRpcProvider(nodeUrl, network, {
          staticNetwork: network,
          batchMaxCount: opts.batchMaxCount ?? 200,
          batchStallTime: 2,
          polling: false,
        });
        if (destroyed) live.destroy();
        return live;
      },
      (e: unknown) => {
        provider = null;
        throw e;
      },
    );
    return provider;
  };
  const stats = new Map<string, number>();
  const send = async (method: string, params: unknown[]) => {
    stats.set(method, (stats.get(method) ?? 0) + 1);
    return (await connect()).send(method, params);
  };
  return {
    stats,
    async blockNumber() {
      return Number(await send('eth_blockNumber', []));
    },
    async headers(numbers) {
      const blocks = await Promise.all(numbers.map((n) => send('eth_getBlockByNumber', [hex(n), false])));
      return blocks.map((b: { number: string; hash: string; parentHash: string } | null) =>
        b ? { number: Number(b.number), hash: b.hash, parentHash: b.parentHash } : null,
      );
    },
    async transferLogs(from, to) {
      stats.set('eth_getLogs', (stats.get('eth_getLogs') ?? 0) + 1);
      return getLogs(nodeUrl, { fromBlock: hex(from), toBlock: hex(to), topics: [TRANSFER_TOPIC] });
    },
    async calls(requests, block) {
      if (requests.length === 0) return [];
      stats.set('eth_call', (stats.get('eth_call') ?? 0) + requests.length);
      return callBatch(nodeUrl, requests, hex(block));
    },
    destroy() {
      destroyed = true;
      live?.destroy();
    },
  };
}
