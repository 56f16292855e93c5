// JSON-RPC to the Ethereum node for the chain watcher: batched calls (receipts for many hashes in one request) over
// HTTP, or over a WebSocket for ws:// node URLs, and a best-effort `newHeads` subscription over the node's WebSocket
// endpoint (an http:// URL is tried as ws:// on the same port, as anvil serves both), so blocks are seen without polling lag.
// Requests go through the node's budget (network/node-throttle.ts): the watcher and the webhooks' activity scan, which
// reads through this client too, wait out a node's back-pressure instead of failing their round.
import WebSocket from 'ws';
import { postText } from '../../lib/json-post.js';
import type { Logger } from '../../lib/log.js';
import { createWsTransport } from '../../lib/json-rpc-ws.js';
import { backPressureIn } from '../network/node-budget.js';
import { NodeBackPressure, nodeThrottle, throttled } from '../network/node-throttle.js';

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type RpcOutcome = { ok: true; result: unknown } | { ok: false; message: string };

export interface NodeRpc {
  call<T>(method: string, params: unknown[]): Promise<T>;
  /**
   * Runs calls as JSON-RPC batches (chunks, a few in parallel); the outcome array lines up with `calls`.
   * `onChunk` sees each chunk's outcomes as soon as it arrives, with the offset of its first call.
   */
  batch(calls: readonly RpcCall[], onChunk?: (offset: number, outcomes: RpcOutcome[]) => void): Promise<RpcOutcome[]>;
  /** Calls `onHead` for every new head until the returned stop function runs; reconnects quietly. */
  subscribeHeads(onHead: () => void, onState: (subscribed: boolean) => void): () => void;
  /** Aborts requests in flight; later calls fail at once. */
  close(): void;
}

/** Small chunks: the first receipts of a large block are handed on while later chunks are still being fetched. */
const BATCH_CHUNK = 100;
const BATCH_CONCURRENCY = 4;

export function createNodeRpc(nodeUrl: string, log: Logger): NodeRpc {
  const isWs = /^wss?:/i.test(nodeUrl);
  const httpUrl = isWs ? null : new URL(nodeUrl);
  const wsUrl = isWs ? nodeUrl : nodeUrl.replace(/^http/i, 'ws');
  let nextId = 1;
  const closing = new AbortController();

  const wsTransport = isWs ? createWsTransport(nodeUrl) : null;

  const throttle = nodeThrottle(nodeUrl);

  /** One request and its parsed answer, once the budget allows it; back-pressure is waited out and asked again. */
  function post(body: unknown): Promise<unknown> {
    return throttled(throttle, () => postOnce(body), closing.signal);
  }

  async function postOnce(body: unknown): Promise<unknown> {
    if (wsTransport) return withoutBackPressure(200, undefined, await wsTransport.post(body, 30_000));
    const { status, text, headers } = await postText(
      httpUrl!,
      JSON.stringify(body),
      AbortSignal.any([closing.signal, AbortSignal.timeout(30_000)]),
    );
    if (status === 429) return withoutBackPressure(status, headers['retry-after'], null);
    if (status < 200 || status >= 300) throw new Error(`node answered HTTP ${status}`);
    try {
      return withoutBackPressure(status, headers['retry-after'], JSON.parse(text));
    } catch (e) {
      if (e instanceof NodeBackPressure) throw e;
      throw new Error(`node answered with a body that is not JSON (HTTP ${status})`);
    }
  }

  /** The answer, or NodeBackPressure when it is the node asking us to slow down. */
  function withoutBackPressure(status: number, retryAfter: string | undefined, answer: unknown): unknown {
    const pushBack = backPressureIn(status, retryAfter, answer, Date.now());
    if (pushBack) throw new NodeBackPressure(nodeUrl, pushBack.retryAfterMs);
    return answer;
  }

  async function runChunk(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    const base = nextId;
    nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: base + i, method: c.method, params: c.params }));
    const reply = await post(body);
    if (!Array.isArray(reply)) throw new Error(`node answered a batch with ${JSON.stringify(reply).slice(0, 200)}`);
    const out: RpcOutcome[] = calls.map(() => ({ ok: false, message: 'no answer in batch' }));
    for (const r of reply as { id: number; result?: unknown; error?: { message?: string } }[]) {
      const i = r.id - base;
      if (i < 0 || i >= calls.length) continue;
      out[i] = r.error ? { ok: false, message: r.error.message ?? 'node error' } : { ok: true, result: r.result ?? null };
    }
    return out;
  }

  return {
    close() {
      closing.abort();
      wsTransport?.close();
    },

    async call<T>(method: string, params: unknown[]): Promise<T> {
      const reply = (await post({ jsonrpc: '2.0', id: nextId++, method, params })) as { result?: T; error?: { message?: string } };
      if (reply.error) throw new Error(`${method} failed: ${reply.error.message ?? 'node error'}`);
      return reply.result as T;
    },

    async batch(calls, onChunk) {
      if (calls.length === 0) return [];
      const chunks: RpcCall[][] = [];
      for (let i = 0; i < calls.length; i += BATCH_CHUNK) chunks.push(calls.slice(i, i + BATCH_CHUNK));
      const results: RpcOutcome[][] = new Array(chunks.length);
      let next = 0;
      const worker = async () => {
        while (next < chunks.length) {
          const i = next++;
          results[i] = await runChunk(chunks[i]!);
          onChunk?.(i * BATCH_CHUNK, results[i]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, chunks.length) }, worker));
      return results.flat();
    },

    subscribeHeads(onHead, onState) {
      let stopped = false;
      let socket: WebSocket | null = null;
      let retry: NodeJS.Timeout | null = null;
      let warned = false;
      const connect = () => {
        if (stopped) return;
        const ws = new WebSocket(wsUrl, { handshakeTimeout: 5000 });
        socket = ws;
        ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
        ws.on('message', (data) => {
          let msg: { id?: number; result?: unknown; error?: unknown; method?: string };
          try {
            msg = JSON.parse(String(data));
          } catch {
            return;
          }
          if (msg.id === 1) {
            if (msg.error) {
              if (!warned) log.warn(`the node refused eth_subscribe newHeads; polling for blocks instead`);
              warned = true;
              ws.close();
            } else onState(true);
          } else if (msg.method === 'eth_subscription') onHead();
        });
        ws.on('error', () => {});
        ws.on('close', () => {
          onState(false);
          if (!stopped) retry = setTimeout(connect, 2000).unref();
        });
      };
      connect();
      return () => {
        stopped = true;
        if (retry) clearTimeout(retry);
        socket?.terminate();
      };
    },
  };
}
