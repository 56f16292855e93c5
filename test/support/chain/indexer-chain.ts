// Indexer test chain: anvil in automine mode with the test contracts, and a counting JSON-RPC proxy. The listing model
// replayed from the chain's Transfer logs is in service-model.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContractFactory, JsonRpcProvider, NonceManager, Wallet, type Contract } from 'ethers';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { indexerTestArtifacts, type TestContractName } from './indexer-contracts.js';

export const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export interface TestChain {
  url: string;
  anvil: RunningAnvil;
  provider: JsonRpcProvider;
  signer: NonceManager;
  deploy(name: TestContractName, ...args: unknown[]): Promise<Contract>;
  /** Sends a contract call and waits for it to be mined (automine: one block per transaction). */
  send(c: Contract, method: string, ...args: unknown[]): Promise<void>;
  mine(blocks?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestChain(opts: { gasLimit?: number } = {}): Promise<TestChain> {
  const anvil = await startAnvil({ gasLimit: opts.gasLimit ?? 30_000_000 });
  // The team's anvil mines on an interval; tests want a block per transaction, now.
  await rpc(anvil.url, 'evm_setIntervalMining', [0]);
  await rpc(anvil.url, 'evm_setAutomine', [true]);
  const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, polling: false, cacheTimeout: -1 });
  const signer = new NonceManager(new Wallet(DEV_KEY, provider));
  const artifacts = indexerTestArtifacts();
  return {
    url: anvil.url,
    anvil,
    provider,
    signer,
    async deploy(name, ...args) {
      const a = artifacts[name];
      const c = await new ContractFactory(a.abi as never, a.bytecode, signer).deploy(...args);
      await c.waitForDeployment();
      return c as unknown as Contract;
    },
    async send(c, method, ...args) {
      const tx = await (c.getFunction(method) as (...a: unknown[]) => Promise<{ wait(): Promise<unknown> }>)(...args);
      await tx.wait();
    },
    async mine(blocks = 1) {
      await rpc(anvil.url, 'anvil_mine', ['0x' + blocks.toString(16)]);
    },
    async stop() {
      provider.destroy();
      await anvil.stop();
    },
  };
}

export interface RpcProxy {
  url: string;
  /** Every JSON-RPC request that went through, in order. */
  requests: { method: string; params: unknown[] }[];
  /** Return a JSON-RPC error object to refuse a request, or null to forward it. */
  refuse: ((req: { method: string; params: unknown[] }) => { code: number; message: string } | null) | null;
  /** Return a promise to hold a request until it settles (a slow node), or null to forward it at once. */
  hold: ((req: { method: string; params: unknown[] }) => Promise<void> | null) | null;
  /** Writes each answer body (a node with other JSON habits); JSON.stringify when null. */
  format: ((answer: unknown) => string) | null;
  stop(): Promise<void>;
}

/** A refusal rule for RpcProxy.refuse, like a public RPC: eth_getLogs over more than `max` blocks is refused (-32005). */
export function refuseLogRangesOver(max: number): NonNullable<RpcProxy['refuse']> {
  return (r) => {
    if (r.method !== 'eth_getLogs') return null;
    return logSpan(r) > max ? { code: -32005, message: `query exceeds max block range ${max}` } : null;
  };
}

/** Blocks asked for by a recorded eth_getLogs request. */
export function logSpan(r: { params: unknown[] }): number {
  const p = r.params[0] as { fromBlock: string; toBlock: string };
  return Number(p.toBlock) - Number(p.fromBlock) + 1;
}

/** A loopback JSON-RPC proxy that records requests (batches included) and can refuse or hold some, like a limited node. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const proxy: RpcProxy = { url: '', requests: [], refuse: null, hold: null, format: null, stop: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // Not JSON-RPC (say, a WebSocket upgrade for newHeads): this proxy speaks HTTP only.
        res.statusCode = 400;
        return void res.end();
      }
      const list = (Array.isArray(body) ? body : [body]) as { id: number; method: string; params: unknown[] }[];
      const answers = await Promise.all(
        list.map(async (r) => {
          proxy.requests.push({ method: r.method, params: r.params });
          const refusal = proxy.refuse?.(r) ?? null;
          if (refusal) return { jsonrpc: '2.0', id: r.id, error: refusal };
          await proxy.hold?.(r);
          const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r) });
          return (await up.json()) as unknown;
        }),
      );
      res.setHeader('content-type', 'application/json');
      const answer = Array.isArray(body) ? answers : answers[0];
      res.end(proxy.format ? proxy.format(answer) : JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}
