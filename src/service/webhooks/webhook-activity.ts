// Address activity for webhooks: follows the network's index (so only blocks past the indexer's lag) and turns each
// ERC-721 / ERC-1155 move into or out of a watched address into a delivery of the webhook, with the transaction hash
// read from the node. A webhook's cursor keeps the index's hash of the block it stopped at, so a rollback of the index
// below it shows at the next scan however quickly the index went on; then the moves delivered from dropped blocks are
// withdrawn (`removed: true`) and the new chain is read from where both agree (the rules: webhook-activity-reorg.ts).
// The cursor moves only with the deliveries it produced (one transaction, compare-and-set on its block and hash), so
// any instance may scan and nothing is stored twice.
import type { Logger } from '../../lib/log.js';
import { CHECKPOINT_KEEP_BLOCKS, type IndexStore } from '../indexer/indexer-store.js';
import { createNodeRpc } from '../tracker/tracker-node-rpc.js';
import {
  cursorState,
  keepMarks,
  newestHeld,
  planRollback,
  type ActivityMark,
  type DeliveredMove,
  type IndexView,
} from './webhook-activity-reorg.js';
import type { ActivitySpan, IndexedMove, NewActivityMessage, WebhookRow, WebhookStore } from './webhook-store.js';

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
  /**
   * Only on a withdrawal: the chain dropped the block of this move, delivered before with the same fields. Sent after
   * that delivery (same transaction hash: in order per transaction).
   */
  removed?: true;
}

const ZERO = '0x0000000000000000000000000000000000000000';

interface LogRef {
  logIndex: string;
  transactionHash: string;
  blockHash: string;
}

/** A kept activity message as the rollback rules read it, with what its withdrawal repeats. */
interface Delivered extends DeliveredMove {
  txHash: string;
  result: ActivityResult;
}

function delivered(k: { txHash: string; payload: string }): Delivered {
  const { result } = JSON.parse(k.payload) as { result: ActivityResult };
  return {
    block: result.blockNumber,
    hash: result.blockHash,
    key: `${result.logIndex}/${result.contract}/${result.tokenId}`,
    removed: result.removed === true,
    txHash: k.txHash,
    result,
  };
}

const cursorOf = (w: WebhookRow) => ({ block: w.activityBlock, hash: w.activityHash });

export function startActivityScanner(o: ActivityScannerOptions) {
  const now = o.now ?? Date.now;
  const log = o.log.child('webhook-activity');
  let running = false;
  let stopped = false;

  /**
   * Transaction and block hash of each move, by the block's logs of the moves' contracts; null when the node's logs
   * carry another block hash than the index had for them (the chain moved under the index: try again).
   */
  async function locate(moves: readonly IndexedMove[]): Promise<Map<string, LogRef> | null> {
    const byBlock = new Map<number, { hash: string | null; contracts: Set<string> }>();
    for (const m of moves) {
      let b = byBlock.get(m.block);
      if (!b) byBlock.set(m.block, (b = { hash: m.blockHash, contracts: new Set() }));
      b.contracts.add(m.contract);
    }
    const rpc = createNodeRpc(o.nodeUrl(), log);
    try {
      const found = new Map<string, LogRef>();
      for (const [block, { hash, contracts }] of byBlock) {
        const hex = '0x' + block.toString(16);
        const logs = await rpc.call<LogRef[]>('eth_getLogs', [{ fromBlock: hex, toBlock: hex, address: [...contracts] }]);
        for (const l of logs) {
          if (hash !== null && l.blockHash.toLowerCase() !== hash.toLowerCase()) return null;
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
        blockHash: ref.blockHash.toLowerCase(),
        logIndex: m.logIndex,
        transactionHash: ref.transactionHash.toLowerCase(),
        addresses: [...new Set(hits)],
      };
      out.push({
        webhookId: w.id,
        clientId: w.clientId,
        txHash: result.transactionHash,
        payload: JSON.stringify({ type: 'activity', result }),
      });
    }
    return out;
  }

  /** The index at `tip` for the rules, with the stored hashes of `blocks` (read one by one: a rollback looks at few). */
  async function viewOf(tip: number, blocks: Iterable<number>): Promise<IndexView> {
    const hashes = new Map<number, string | null>();
    for (const b of new Set(blocks)) hashes.set(b, b > tip ? null : await o.index.storedHash(b));
    return { tip, hashAt: (b) => hashes.get(b) ?? null, keepBlocks: CHECKPOINT_KEEP_BLOCKS };
  }

  /**
   * The index no longer holds the block `w`'s cursor stopped at: withdraws the moves delivered from dropped blocks and
   * sets the cursor back to where the webhook's chain and the index's still agree, in one commit.
   */
  async function rollBack(w: WebhookRow, tip: number): Promise<void> {
    const cursor: ActivityMark = { block: w.activityBlock!, hash: w.activityHash! };
    const marks = w.activityMarks;
    // Nothing at or below the newest mark the index still holds can have been dropped.
    const floor =
      newestHeld(
        marks,
        await viewOf(
          tip,
          marks.map((m) => m.block),
        ),
      )?.block ?? -1;
    const kept = (await o.store.activityAbove(w.id, w.clientId, floor)).map(delivered);
    const view = await viewOf(tip, [cursor.block, ...marks.map((m) => m.block), ...kept.map((d) => d.block)]);
    const plan = planRollback(cursor, marks, kept, view);
    const messages = plan.withdraw.map((d) => ({
      webhookId: w.id,
      clientId: w.clientId,
      txHash: d.txHash,
      payload: JSON.stringify({ type: 'activity', result: { ...d.result, removed: true } }),
    }));
    if (!(await o.store.commitActivity(w.id, cursorOf(w), { ...plan.resume, marks: plan.marks }, messages, now()))) return;
    log.warn(
      `webhook ${w.id}: the index no longer holds block ${cursor.block} as the webhook saw it (a reorganisation deeper than the lag); ` +
        `${messages.length} delivered move(s) withdrawn, address activity goes on after block ${plan.resume.block}`,
    );
    if (messages.length > 0) o.onStored();
  }

  async function scan(): Promise<void> {
    const watching = (await o.store.all()).filter((w) => w.addresses.length > 0);
    // Webhooks at the same cursor share one read of the index.
    const groups = new Map<string, WebhookRow[]>();
    for (const w of watching) {
      const key = `${w.activityBlock ?? -1}/${w.activityHash ?? ''}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(w);
    }
    for (const group of groups.values()) {
      if (stopped) return;
      const { activityHash } = group[0]!;
      const from = group[0]!.activityBlock ?? -1;
      const span: ActivitySpan = await o.store.readActivity([...new Set(group.flatMap((w) => w.addresses))], from, STEP_BLOCKS);
      if (span.tip === null) return;
      const tip = span.tip;
      const state = cursorState(
        { block: from, hash: activityHash },
        { tip, hashAt: (b) => (b === from ? span.fromHash : null), keepBlocks: CHECKPOINT_KEEP_BLOCKS },
      );
      if (state === 'wait') continue; // made while the index catches up: it has not reached the cursor yet
      if (state === 'rollBack') {
        for (const w of group) await rollBack(w, tip);
        again = true;
        continue;
      }
      // A cursor with no hash yet (a new webhook's, or one from before hashes were kept) takes the index's.
      const fromHash = activityHash ?? span.fromHash;
      if (span.to === from) {
        if (activityHash === null && fromHash !== null) {
          for (const w of group)
            await o.store.commitActivity(w.id, cursorOf(w), { block: from, hash: fromHash, marks: w.activityMarks }, [], now());
        }
        continue;
      }
      const refs = span.moves.length > 0 ? await locate(span.moves) : new Map<string, LogRef>();
      if (!refs) {
        log.warn(`blocks ${from + 1}-${span.to}: the node's logs differ from the index (a reorganisation under way); trying again`);
        continue;
      }
      let stored = false;
      for (const w of group) {
        const messages = messagesOf(w, span.moves, refs);
        if (!messages) continue;
        const marks = keepMarks(
          span.to,
          fromHash === null ? w.activityMarks : [{ block: from, hash: fromHash }, ...w.activityMarks],
          CHECKPOINT_KEEP_BLOCKS,
        );
        const to = { block: span.to, hash: span.toHash, marks };
        if ((await o.store.commitActivity(w.id, cursorOf(w), to, messages, now())) && messages.length > 0) stored = true;
      }
      if (stored) o.onStored();
      if (span.to < tip) again = true;
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
