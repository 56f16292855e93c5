// Follows the node's canonical chain for the watcher: fetches the latest block, walks back to the fork point when
// parents do not match the window, and reports the newly canonical blocks and the block hashes they displaced.
import type { BlockInfo, ChainWindow } from './tracker-chain-window.js';
import type { NodeRpc } from './tracker-node-rpc.js';

/** More new blocks than this in one sync: the older ones are skipped and every tracked hash is looked up instead. */
const MAX_BLOCKS_PER_SYNC = 64;
const MAX_REORG_WALK = 128;

export interface ChainSyncResult {
  head: number;
  /** Newly canonical blocks, oldest first (empty on the first sync). */
  blocks: BlockInfo[];
  displaced: Set<string>;
  /** Blocks were skipped (a big jump or a reorganisation deeper than the walk): look everything up. */
  gap: boolean;
}

export function createChainSync(rpc: NodeRpc, window: ChainWindow) {
  async function getBlock(tag: string | number): Promise<BlockInfo | null> {
    const raw = await rpc.call<{ number: string; hash: string; parentHash: string; transactions: string[] } | null>(
      'eth_getBlockByNumber',
      [typeof tag === 'number' ? '0x' + tag.toString(16) : tag, false],
    );
    return raw ? toBlock(raw) : null;
  }

  async function getBlocks(numbers: number[]): Promise<Map<number, BlockInfo>> {
    const out = new Map<number, BlockInfo>();
    const res = await rpc.batch(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: ['0x' + n.toString(16), false] })));
    res.forEach((r) => {
      if (r.ok && r.result) {
        const b = toBlock(r.result as Parameters<typeof toBlock>[0]);
        out.set(b.number, b);
      }
    });
    return out;
  }

  /** Brings the window up to the node's head; returns the newly canonical blocks and the hashes they displaced. */
  async function syncHead(): Promise<ChainSyncResult | null> {
    const latest = await getBlock('latest');
    if (!latest) return null;
    // A known latest block below our tip is news too: the chain went back (blocks above it are gone).
    if (window.hashAt(latest.number) === latest.hash && latest.number === window.tip) return null;
    const blocks = new Map<number, BlockInfo>([[latest.number, latest]]);
    let gap = false;
    const tip = window.tip;
    if (tip !== null && latest.number - tip > 1) {
      const from = Math.max(tip + 1, latest.number - MAX_BLOCKS_PER_SYNC);
      if (from > tip + 1) gap = true;
      const nums: number[] = [];
      for (let n = from; n < latest.number; n++) nums.push(n);
      for (const [n, b] of await getBlocks(nums)) blocks.set(n, b);
    }
    let oldest = blocks.get(Math.min(...blocks.keys()))!;
    let walked = 0;
    while (window.linkOf(oldest) === 'fetch-parent') {
      if (++walked > MAX_REORG_WALK) {
        gap = true;
        break;
      }
      const parent = await getBlock(oldest.number - 1);
      if (!parent) break;
      blocks.set(parent.number, parent);
      oldest = parent;
    }
    const list = [...blocks.values()].sort((a, b) => a.number - b.number);
    const displaced = window.apply(list, latest.number);
    if (tip === null) return { head: latest.number, blocks: [], displaced, gap: false };
    return { head: latest.number, blocks: list, displaced, gap };
  }

  return { sync: syncHead };
}

function toBlock(raw: { number: string; hash: string; parentHash: string; transactions: string[] }): BlockInfo {
  return {
    number: Number.parseInt(raw.number, 16),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    txs: raw.transactions.map((h) => h.toLowerCase()),
  };
}
