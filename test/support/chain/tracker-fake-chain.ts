// A scripted chain for the tracker's watcher (no node): blocks and reorganisations at the test's command, an outage
// switch, methods it refuses, and a count of every JSON-RPC call by method (what a tracked hash costs the node).
import type { NodeRpc, RpcCall, RpcOutcome } from '../../../src/service/tracker/tracker-node-rpc.js';

export const hex = (n: number) => '0x' + n.toString(16);
export const hash = (tag: string) => '0x' + Buffer.from(tag).toString('hex').padEnd(64, '0').slice(0, 64);

interface FakeBlock {
  number: number;
  hash: string;
  parentHash: string;
  txs: string[];
}

/** A chain the test rewrites at will; `down` makes every call fail like an unreachable node. */
export class FakeChain implements NodeRpc {
  blocks: FakeBlock[] = [{ number: 0, hash: hash('genesis'), parentHash: hash('none'), txs: [] }];
  down = false;
  /** Methods the node refuses (a batch holding one fails as a whole), like a node that is up but failing them. */
  readonly refuse = new Set<string>();
  /** JSON-RPC calls answered so far, by method. */
  readonly calls = new Map<string, number>();

  private count(method: string): void {
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
  }

  mine(branch: string, txs: string[] = []): FakeBlock {
    const parent = this.blocks[this.blocks.length - 1]!;
    const b = { number: parent.number + 1, hash: hash(`${branch}-${parent.number + 1}`), parentHash: parent.hash, txs };
    this.blocks.push(b);
    return b;
  }

  /** Drops the last `depth` blocks (a reorganisation starts from there). */
  rewind(depth: number): void {
    this.blocks.splice(this.blocks.length - depth, depth);
  }

  private answer(c: RpcCall): unknown {
    if (c.method === 'eth_getBlockByNumber') {
      const tag = c.params[0] as string;
      const b = tag === 'latest' ? this.blocks[this.blocks.length - 1] : this.blocks[Number.parseInt(tag, 16)];
      return b ? { number: hex(b.number), hash: b.hash, parentHash: b.parentHash, transactions: b.txs } : null;
    }
    if (c.method === 'eth_getTransactionReceipt') {
      const h = c.params[0] as string;
      const b = this.blocks.find((x) => x.txs.includes(h));
      if (!b) return null;
      return {
        transactionHash: h,
        blockHash: b.hash,
        blockNumber: hex(b.number),
        transactionIndex: hex(b.txs.indexOf(h)),
        from: '0x' + '1'.repeat(40),
        to: '0x' + '2'.repeat(40),
        contractAddress: null,
        gasUsed: '0x5208',
        cumulativeGasUsed: '0x5208',
        effectiveGasPrice: '0x3b9aca00',
        status: '0x1',
        type: '0x2',
        logs: [],
      };
    }
    return null;
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    if (this.down) throw new Error('connect ECONNREFUSED');
    this.count(method);
    return this.answer({ method, params }) as T;
  }

  async batch(calls: readonly RpcCall[], onChunk?: (offset: number, outcomes: RpcOutcome[]) => void): Promise<RpcOutcome[]> {
    if (this.down) throw new Error('connect ECONNREFUSED');
    if (calls.some((c) => this.refuse.has(c.method))) throw new Error('HTTP 503 from the node');
    for (const c of calls) this.count(c.method);
    const out: RpcOutcome[] = calls.map((c) => ({ ok: true, result: this.answer(c) }));
    onChunk?.(0, out);
    return out;
  }

  subscribeHeads(): () => void {
    return () => {};
  }

  close(): void {}
}
