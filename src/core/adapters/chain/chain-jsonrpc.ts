// The Chain port over Ethereum JSON-RPC: for http(s) nodes the calls of one event-loop turn in one batch over kept-alive
// node:http(s) connections, for ws(s) nodes ethers' WebSocketProvider. Raw requests keep failures classifiable
// (BroadcastError) and avoid a provider's caching and polling.
import { WebSocketProvider } from 'ethers';
import WebSocket from 'ws';
import { BroadcastError, type Chain } from '../../ports.js';
import type { NetworkFees } from '../../domain/fees.js';
import { classifyRefusal } from '../../domain/refusal.js';
import { bodyText, postBytes } from '../../../lib/json-post.js';
import {
  BatchRefused,
  readRpcAnswer,
  readRpcBatchAnswer,
  RpcError,
  takeRpcIds,
  unreachableNode,
  type RpcCallSpec,
} from '../../../lib/json-rpc.js';

type Send = (method: string, params: unknown[]) => Promise<unknown>;

/** More calls than this in one turn go out as several batches: hosted nodes limit a batch, some to 10 calls. */
const BATCH_MAX = 10;
/** Reads a node may take seconds over: sent alone, so a send's checks never wait behind them in a batch. */
const SENT_ALONE = new Set(['eth_getLogs', 'eth_getFilterLogs', 'eth_getBlockReceipts']);

/**
 * An http(s) node. Over kept-alive node:http(s) connections (lib/json-post.ts), not fetch(), which cost about 0.6 ms
 * more CPU per call here. The calls made in one turn of the event loop go out as one JSON-RPC batch, so a send's
 * checks, pending count and fees (issued together) are one round trip, and many sends at once share theirs: each
 * round trip costs the core a socket write and read and the node a request, the largest part of a send's CPU. A node
 * that answers a batch with anything but a batch (some hosted nodes refuse them) gets calls one at a time from then on.
 */
function httpSender(url: string, timeoutMs: number): Send {
  type Queued = RpcCallSpec & { resolve: (v: unknown) => void; reject: (e: unknown) => void };
  const target = new URL(url);
  let queued: Queued[] = [];
  let batches = true;

  /** The node's HTTP answer to `body`; `unreachable` when it gives none in time or the connection fails. */
  async function post(body: unknown, method?: string): Promise<{ status: number; text: string }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const { status, bytes } = await postBytes(target, JSON.stringify(body), timeout);
      return { status, text: bodyText(bytes) };
    } catch (e) {
      throw unreachableNode(url, timeout.aborted ? 'TimeoutError' : ((e as NodeJS.ErrnoException).code ?? (e as Error).name), method);
    }
  }
  const alone = (c: Queued) =>
    void post({ jsonrpc: '2.0', id: takeRpcIds(1), method: c.method, params: c.params }, c.method)
      .then(({ status, text }) => readRpcAnswer(url, c.method, status, text))
      .then(c.resolve, c.reject);
  async function together(calls: Queued[]): Promise<void> {
    const first = takeRpcIds(calls.length);
    let outcomes: unknown[];
    try {
      const { status, text } = await post(calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })));
      outcomes = readRpcBatchAnswer(url, calls, first, status, text);
    } catch (e) {
      if (!(e instanceof BatchRefused)) return calls.forEach((c) => c.reject(e));
      batches = false;
      return calls.forEach(alone);
    }
    outcomes.forEach((o, i) => (o instanceof RpcError ? calls[i]!.reject(o) : calls[i]!.resolve(o)));
  }
  const flush = () => {
    const calls = queued;
    queued = [];
    if (!batches) return calls.forEach(alone);
    for (let i = 0; i < calls.length; i += BATCH_MAX) {
      const chunk = calls.slice(i, i + BATCH_MAX);
      if (chunk.length === 1) alone(chunk[0]!);
      else void together(chunk);
    }
  };
  return (method, params) =>
    new Promise((resolve, reject) => {
      const call = { method, params, resolve, reject };
      if (SENT_ALONE.has(method)) return alone(call);
      if (queued.push(call) === 1) setImmediate(flush);
    });
}

/**
 * A ws(s) node: one ethers WebSocketProvider over a socket we own, so a refused or dropped connection is an error we
 * handle (ethers' own socket would crash the process with an unhandled 'error'). A dead socket fails what is pending
 * at once as unreachable and the next call connects again.
 */
function wsSender(url: string, timeoutMs: number): { send: Send; close: () => Promise<void> } {
  let current: { provider: WebSocketProvider; fail: Set<(e: RpcError) => void> } | null = null;
  const unreachable = (why: string) => new RpcError('unreachable', `The node at ${url} could not be reached (${why}).`);
  const drop = (c: NonNullable<typeof current>, why: string) => {
    if (current === c) current = null;
    for (const f of c.fail) f(unreachable(why));
    c.fail.clear();
    Promise.resolve()
      .then(() => c.provider.destroy())
      .catch(() => undefined);
  };
  const connect = () => {
    const socket = new WebSocket(url, { handshakeTimeout: timeoutMs });
    const c = {
      provider: new WebSocketProvider(socket as unknown as ConstructorParameters<typeof WebSocketProvider>[0]),
      fail: new Set<(e: RpcError) => void>(),
    };
    socket.on('error', (e) => drop(c, (e as NodeJS.ErrnoException).code ?? e.message));
    socket.on('close', () => drop(c, 'the connection closed'));
    current = c;
    return c;
  };
  return {
    send: (method, params) => {
      const c = current ?? connect();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => fail(unreachable(`no answer within ${timeoutMs} ms`)), timeoutMs);
        const fail = (e: RpcError) => {
          clearTimeout(timer);
          c.fail.delete(fail);
          reject(e);
        };
        c.fail.add(fail);
        c.provider.send(method, params).then(
          (r) => {
            clearTimeout(timer);
            c.fail.delete(fail);
            resolve(r);
          },
          (e: { error?: { code: number; message: string; data?: unknown } }) =>
            fail(e?.error ? new RpcError(e.error.code, e.error.message, method, e.error.data) : unreachable('the request failed')),
        );
      });
    },
    close: async () => {
      const c = current;
      current = null;
      if (c) await Promise.resolve(c.provider.destroy()).catch(() => undefined);
    },
  };
}

const big = (hex: unknown): bigint => BigInt(hex as string);
const num = (hex: unknown): number => Number(BigInt(hex as string));
/** JSON numbers where they are exact, decimal strings above 2^53 (docs/tracker-protocol.md §3-4). */
const safe = (hex: unknown): number | string => {
  const v = BigInt(hex as string);
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
};

/** An RPC receipt in the tracker's message shape, so recovery and the tracker write the same `data`. */
export function receiptToResult(r: Record<string, unknown>): Record<string, unknown> {
  return {
    transactionHash: r.transactionHash,
    blockHash: r.blockHash,
    blockNumber: num(r.blockNumber),
    from: String(r.from).toLowerCase(),
    to: r.to === null || r.to === undefined ? null : String(r.to).toLowerCase(),
    gasUsed: safe(r.gasUsed),
    cumulativeGasUsed: safe(r.cumulativeGasUsed),
    effectiveGasPrice: r.effectiveGasPrice === undefined ? null : big(r.effectiveGasPrice).toString(),
    status: r.status === undefined ? null : num(r.status),
    logs: r.logs ?? [],
    contractAddress: r.contractAddress ?? null,
    transactionIndex: num(r.transactionIndex),
    type: r.type === undefined ? 0 : num(r.type),
  };
}

export function classifySendError(e: unknown): BroadcastError {
  if (e instanceof RpcError && e.code === 'unreachable') return new BroadcastError('unreachable', e.message);
  const msg = e instanceof Error ? e.message : String(e);
  return new BroadcastError(classifyRefusal(msg), msg);
}

export function createJsonRpcChain(nodeUrl: string, opts: { timeoutMs?: number } = {}): Chain {
  const ws = /^wss?:/i.test(nodeUrl) ? wsSender(nodeUrl, opts.timeoutMs ?? 10_000) : null;
  const send: Send = ws?.send ?? httpSender(nodeUrl, opts.timeoutMs ?? 10_000);
  return {
    chainId: async () => num(await send('eth_chainId', [])),
    genesisHash: async () => String(((await send('eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash).toLowerCase(),
    nonceCount: async (address, tag) => num(await send('eth_getTransactionCount', [address, tag])),
    async fees(): Promise<NetworkFees> {
      const [block, gasPrice, tip] = await Promise.all([
        send('eth_getBlockByNumber', ['latest', false]) as Promise<{ baseFeePerGas?: string } | null>,
        send('eth_gasPrice', []),
        send('eth_maxPriorityFeePerGas', []).catch(() => '0x0'),
      ]);
      return { baseFeeWei: block?.baseFeePerGas ? big(block.baseFeePerGas) : null, gasPriceWei: big(gasPrice), priorityFeeWei: big(tip) };
    },
    async sendRaw(raw) {
      try {
        await send('eth_sendRawTransaction', [raw]);
      } catch (e) {
        throw classifySendError(e);
      }
    },
    hasTransaction: async (hash) => (await send('eth_getTransactionByHash', [hash])) !== null,
    async receipt(hash) {
      const r = (await send('eth_getTransactionReceipt', [hash])) as Record<string, unknown> | null;
      return r?.blockHash ? receiptToResult(r) : null;
    },
    balance: async (address) => big(await send('eth_getBalance', [address, 'latest'])),
    async latestBlock() {
      const b = (await send('eth_getBlockByNumber', ['latest', false])) as { number: string; baseFeePerGas?: string };
      return { number: num(b.number), baseFeeWei: b.baseFeePerGas ? big(b.baseFeePerGas) : null };
    },
    request: (method, params) => send(method, [...params]),
    close: async () => {
      await ws?.close();
    },
  };
}
