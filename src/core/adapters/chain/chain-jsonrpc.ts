// The Chain port over Ethereum JSON-RPC: plain fetch for http(s) nodes, ethers' WebSocketProvider for ws(s).
// Raw requests keep failures classifiable (BroadcastError) and avoid a provider's caching and polling.
import { WebSocketProvider } from 'ethers';
import { BroadcastError, type Chain } from '../../ports.js';
import type { NetworkFees } from '../../domain/fees.js';
import { classifyRefusal } from '../../domain/refusal.js';

export class RpcError extends Error {
  constructor(
    readonly code: number | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

type Send = (method: string, params: unknown[]) => Promise<unknown>;

function httpSender(url: string, timeoutMs: number): Send {
  let id = 0;
  return async (method, params) => {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw new RpcError('unreachable', `The node at ${url} could not be reached (${(e as Error).name}).`);
    }
    if (res.status >= 500 || res.status === 429) throw new RpcError('unreachable', `The node at ${url} answered HTTP ${res.status}.`);
    const body = (await res.json().catch(() => null)) as { result?: unknown; error?: { code: number; message: string } } | null;
    if (!body) throw new RpcError('unreachable', `The node at ${url} sent a response that is not JSON-RPC.`);
    if (body.error) throw new RpcError(body.error.code, String(body.error.message));
    return body.result;
  };
}

function wsSender(url: string): { send: Send; close: () => Promise<void> } {
  const provider = new WebSocketProvider(url);
  return {
    send: async (method, params) => {
      try {
        return await provider.send(method, params);
      } catch (e) {
        const err = e as { error?: { code: number; message: string }; message?: string };
        if (err.error) throw new RpcError(err.error.code, err.error.message);
        throw new RpcError('unreachable', `The node at ${url} could not be reached.`);
      }
    },
    close: () => provider.destroy() as unknown as Promise<void>,
  };
}

const big = (hex: unknown): bigint => BigInt(hex as string);
const num = (hex: unknown): number => Number(BigInt(hex as string));
/** JSON numbers where they are exact, decimal strings above 2^53 (SPEC 3.2). */
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
  const ws = /^wss?:/i.test(nodeUrl) ? wsSender(nodeUrl) : null;
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
      return r && r.blockHash ? receiptToResult(r) : null;
    },
    balance: async (address) => big(await send('eth_getBalance', [address, 'latest'])),
    async latestBlock() {
      const b = (await send('eth_getBlockByNumber', ['latest', false])) as { number: string; baseFeePerGas?: string };
      return { number: num(b.number), baseFeeWei: b.baseFeePerGas ? big(b.baseFeePerGas) : null };
    },
    close: async () => {
      await ws?.close();
    },
  };
}
