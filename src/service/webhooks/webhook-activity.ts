// Address activity for webhooks: follows the network's index (so only blocks past the indexer's lag, where a
// reorganisation no longer reaches) and turns each ERC-721 / ERC-1155 move into or out of a watched address into a
// delivery of the webhook, with the transaction hash read from the node. A webhook's cursor moves only with the
// deliveries it produced (one transaction, compare-and-set), so any instance may scan and nothing is stored twice.
import type { Logger } from '../../lib/log.js';
import type { IndexStore } from '../indexer/indexer-store.js';
import { createNodeRpc } from '../tracker/tracker-node-rpc.js';
import type { IndexedMove, NewActivityMessage, WebhookRow, WebhookStore } from './webhook-store.js';

export interface ActivityScannerOptions {
  store: WebhookStore;
  index: IndexStore;
  nodeUrl: () => string;
  log: Logger;
  /** Deliveries were stored: the deliverer may look now. */
  onStored(): void;
  pollMs?: number;
  now?: () => number;
}

/** Blocks scanned per step: a webhook far behind (a long outage) catches up in steps of this many. */
const STEP_BLOCKS = 5_000;

/** The `activity` message of one move, as the receiver gets it in `payload`. */
export interface ActivityResult {
  standard: 'ERC-721' | 'ERC-1155';
  contract: string;
  tokenId: string;
  from: string;
  to: string;
  amount: string;
  blockNumber: number;
  blockHash: string;
  logIndex: number;
  transactionHash: string;
  /** The webhook's addresses the move goes into or out of. */
  addresses: string[];
}

const ZERO = '0x0000000000000000000000000000000000000000';

interface LogRef {
  logIndex: string;
  transactionHash: string;
  blockHash: string;
}

export function startActivityScanner(o: ActivityScannerOptions) {
  const now = o.now ?? Date.now;
  const log = o.log.child('webhook-activity');
  let running = false;
  let stopped = false;
  /** The tip the last scan saw: a lower one means the index rolled back. */
  let lastTip: number | null = null;

  /** Transaction and block hash of each move, by the block's logs of the moves' contracts; null when the node disagrees with the index. */
  async function locate(moves: readonly IndexedMove[]): Promise<Map<string, LogRef> | null> {
    const byBlock = new Map<number, Set<string>>();
    for (const m of moves) {
      let set = byBlock.get(m.block);
      if (!set) byBlock.set(m.block, (set = new Set()));
      set.add(m.contract);
    }
    const rpc = createNodeRpc(o.nodeUrl(), log);
    try {
      const found = new Map<string, LogRef>();
      for (const [block, contracts] of byBlock) {
        const hex = '0x' + block.toString(16);
        const logs = await rpc.call<LogRef[]>('eth_getLogs', [{ fromBlock: hex, toBlock: hex, address: [...contracts] }]);
        const stored = await o.index.storedHash(block);
        for (const l of logs) {
          if (stored !== null && l.blockHash.toLowerCase() !== stored.toLowerCase()) return null;
          found.set(`${block}:${Number(l.logIndex)}`, l);
        }
      }
      return found;
    } finally {
      rpc.close();
    }
  }

  function messagesOf(w: WebhookRow, moves: readonly IndexedMove[], refs: ReadonlyMap<string, LogRef>): NewActivityMessage[] | null {
    const watched = new Set(w.addresses);
    const out: NewActivityMessage[] = [];
    for (const m of moves) {
      const hits = [m.from, m.to].filter((a): a is string => a !== null && watched.has(a));
      if (hits.length === 0) continue;
      const ref = refs.get(`${m.block}:${m.logIndex}`);
      if (!ref) return null; // the node does not have the log (yet): try again next round
      const result: ActivityResult = {
        standard: m.standard,
        contract: m.contract,
        tokenId: m.tokenId,
        from: m.from ?? ZERO,
        to: m.to ?? ZERO,
        amount: m.amount,
        blockNumber: m.block,
        blockHash: ref.blockHash,
        logIndex: m.logIndex,
        transactionHash: ref.transactionHash,
        addresses: [...new Set(hits)],
      };
      out.push({ webhookId: w.id, clientId: w.clientId, txHash: ref.transactionHash, payload: JSON.stringify({ type: 'activity', result }) });
    }
    return out;
  }

  async function scan(): Promise<void> {
    const tip = await o.index.tip();
    if (tip === null) return;
    const watching = (await o.store.all()).filter((w) => w.addresses.length > 0);
    // Webhooks at the same cursor share one read of the index.
    const groups = new Map<number, WebhookRow[]>();
    const rolledBack = lastTip !== null && tip < lastTip;
    lastTip = tip;
    for (const w of watching) {
      const from = w.activityBlock ?? -1;
      if (from > tip) {
        // Ahead of the index: a webhook made while it catches up waits for it. Unless the index went back (a
        // reorganisation deeper than the lag): then the cursor follows it down, so the new blocks are read.
        if (rolledBack) {
          await o.store.commitActivity(w.id, w.activityBlock, tip, [], now());
          log.warn(`webhook ${w.id}: the index went back to block ${tip}; address activity continues from there`);
        }
        continue;
      }
      if (from === tip) continue;
      let g = groups.get(from);
      if (!g) groups.set(from, (g = []));
      g.push(w);
    }
    for (const [from, group] of groups) {
      if (stopped) return;
      const to = Math.min(tip, from + STEP_BLOCKS);
      const addresses = [...new Set(group.flatMap((w) => w.addresses))];
      const moves = await o.store.movesOf(addresses, from, to);
      const refs = moves.length > 0 ? await locate(moves) : new Map<string, LogRef>();
      if (!refs) {
        log.warn(`blocks ${from + 1}-${to}: the node's logs differ from the index (a reorganisation under way); trying again`);
        continue;
      }
      let stored = false;
      for (const w of group) {
        const messages = messagesOf(w, moves, refs);
        if (!messages) continue;
        if ((await o.store.commitActivity(w.id, w.activityBlock, to, messages, now())) && messages.length > 0) stored = true;
      }
      if (stored) o.onStored();
      if (to < tip) again = true;
    }
  }

  let again = false;
  async function tick(): Promise<void> {
    if (running || stopped) return;
    running = true;
    try {
      do {
        again = false;
        await scan();
      } while (again && !stopped);
    } catch (e) {
      log.warn(`could not scan address activity (trying again): ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      running = false;
    }
  }

  const timer = setInterval(() => void tick(), o.pollMs ?? 1_000);
  timer.unref();
  void tick();
  return {
    /** Scans now (a webhook was created or changed). */
    nudge: () => void tick(),
    stop(): void {
      stopped = true;
      clearInterval(timer);
    },
  };
}
