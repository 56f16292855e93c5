// The chain watcher: follows new heads, fetches receipts in batches for tracked hashes only, runs the pure policy of
// tracker-watch-policy.ts on every affected transaction, and stores the resulting messages before handing them on.
import type { Logger } from '../../lib/log.js';
import type { TrackerPayload, TrackerReceipt } from '@txdesk/tracker/tracker-wire';
import { ChainWindow } from './tracker-chain-window.js';
import { createChainSync } from './tracker-chain-sync.js';
import type { NodeRpc, RpcOutcome } from './tracker-node-rpc.js';
import type { CreatedDeliveries, NewMessage, TrackerStore, WithdrawnDelivery } from './tracker-store.js';
import { formatReceipt, payloadJson, type RawReceipt } from './tracker-receipt-format.js';
import {
  decideTracking,
  nonceCheckBlock,
  pendingDueAt,
  unseenLookupDelayMs,
  type Observation,
  type TrackingState,
} from './tracker-watch-policy.js';

export interface TrackerEngineOptions {
  store: TrackerStore;
  rpc: NodeRpc;
  log: Logger;
  /** Receives every stored batch of deliveries (and withdrawn ones) to push to connected subscriptions. */
  onDeliveries(created: CreatedDeliveries[], withdrawn: WithdrawnDelivery[]): void;
  now?: () => number;
  /**
   * Block polling period without a head subscription; with one, polling is a slow safety net. With no open tracking
   * the head is not followed at all (nothing to watch costs the node nothing); a new tracking brings it up to date.
   */
  pollMs?: number;
  /** A tracked hash the node has never shown ends with an expired `pending` after this long (default 1 h). */
  unseenExpiryMs?: number;
  /** Backoff of sender lookups for hashes the node has not shown: first delay and cap (default 2 s .. 10 min). */
  unseenBackoffMs?: { base: number; max: number };
}

const TICK_MS = 100;
/** Safety net for missed blocks; rare, since it looks up every unmined hash. */
const SWEEP_MS = 60_000;
const DONE_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Messages for a client that never subscribes are kept this long: a week of absence, not an unbounded pile. */
export const ORPHAN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** A hash no node has shown within this time is given up (reported as an expired `pending`). */
export const UNSEEN_EXPIRY_MS = 60 * 60 * 1000;
export const UNSEEN_BACKOFF_MS = { base: 2_000, max: 10 * 60_000 } as const;
/** Sender lookups of not-yet-seen hashes per watcher round at most: a client with 100,000 of them costs the node no more. */
export const MAX_UNSEEN_LOOKUPS_PER_ROUND = 500;

export type TrackerEngine = ReturnType<typeof createTrackerEngine>;

export function createTrackerEngine(opts: TrackerEngineOptions) {
  const { store, rpc, log } = opts;
  const now = opts.now ?? Date.now;
  const pollMs = opts.pollMs ?? 250;
  const trace = process.env.TXDESK_TRACKER_TRACE === '1';
  const window = new ChainWindow();
  const chain = createChainSync(rpc, window);
  const unseenExpiryMs = opts.unseenExpiryMs ?? UNSEEN_EXPIRY_MS;
  const backoff = opts.unseenBackoffMs ?? UNSEEN_BACKOFF_MS;
  const trackings = new Map<string, TrackingState>();
  /** Hashes the node has not shown yet, by tracking key: lookups so far and when the next one is due (memory only). */
  const unseen = new Map<string, { attempts: number; nextAtMs: number }>();
  const byHash = new Map<string, Set<string>>();
  /**
   * Keys of the trackings that hold a receipt (mined, waiting for depth). Rounds that only look up new hashes visit
   * these and the hashes, not every tracking: a client adding hashes one by one to 100,000 open ones would otherwise
   * pay a scan of all of them per added hash.
   */
  const standing = new Set<string>();
  const openByClient = new Map<string, number>();
  /** Hashes whose receipt must be looked up in the next round. */
  const requested = new Set<string>();
  let headDirty = true;
  let subscribed = false;
  let lastPoll = 0;
  let lastSweep = 0;
  let lastNodeWarn = 0;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let ticker: NodeJS.Timeout | null = null;
  let stopHeads: (() => void) | null = null;

  const keyOf = (clientId: string, hash: string) => clientId + '\u0000' + hash;

  function remember(s: TrackingState): void {
    const key = keyOf(s.clientId, s.txHash);
    const had = trackings.has(key);
    if (s.doneAtMs !== null || s.from !== null) unseen.delete(key);
    // First sender lookup when `pending` falls due; backoff after that (learnSenders).
    else if (!unseen.has(key)) unseen.set(key, { attempts: 0, nextAtMs: s.trackedAtMs + s.timeoutMs });
    if (s.doneAtMs !== null || !s.receipt) standing.delete(key);
    else standing.add(key);
    if (s.doneAtMs !== null) {
      if (had) openByClient.set(s.clientId, (openByClient.get(s.clientId) ?? 1) - 1);
      trackings.delete(key);
      const set = byHash.get(s.txHash);
      set?.delete(key);
      if (set && set.size === 0) byHash.delete(s.txHash);
      return;
    }
    if (!had) openByClient.set(s.clientId, (openByClient.get(s.clientId) ?? 0) + 1);
    trackings.set(key, s);
    let set = byHash.get(s.txHash);
    if (!set) byHash.set(s.txHash, (set = new Set()));
    set.add(key);
  }

  function learn(states: readonly TrackingState[]): void {
    let any = false;
    for (const state of states) {
      if (state.doneAtMs !== null) continue;
      // A tracking already held keeps what the watcher knows (a newer state than the stored row may be in flight).
      const held = trackings.get(keyOf(state.clientId, state.txHash));
      remember(held ? { ...held, confirmation: state.confirmation, timeoutMs: state.timeoutMs } : state);
      requested.add(state.txHash);
      any = true;
    }
    if (!any) return;
    // The head was not followed while nothing was watched: the first round brings the window up to date.
    headDirty = true;
    kick();
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await round();
        } catch (e) {
          if (stopped) break;
          const t = now();
          if (t - lastNodeWarn > 10_000) {
            lastNodeWarn = t;
            log.warn(`chain watcher round failed (will retry): ${e instanceof Error ? e.message : String(e)}`);
          }
          headDirty = true;
          await new Promise((r) => setTimeout(r, 500));
        }
      } while (again && !stopped);
      running = null;
    })();
  }

  function tick(): void {
    const t = now();
    if (trackings.size > 0 && t - lastPoll >= (subscribed ? 1000 : pollMs)) {
      lastPoll = t;
      headDirty = true;
    }
    if (t - lastSweep >= SWEEP_MS) {
      lastSweep = t;
      // Unmined hashes, and receipts whose block the window cannot vouch for (older than this process).
      for (const s of trackings.values()) {
        // Hashes the node never showed are not swept: a block that mines one names it (and a gap looks all up), and
        // their sender lookups follow their own backoff.
        if (s.from === null && !s.receipt) continue;
        if (!s.receipt || window.isCanonical(s.receipt.blockNumber, s.receipt.blockHash) === undefined) requested.add(s.txHash);
      }
      void Promise.all([store.pruneDoneTrackings(t - DONE_RETENTION_MS), store.pruneOrphans(t - ORPHAN_RETENTION_MS)]).catch((e) =>
        log.warn(`could not prune old trackings and messages: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    let expiring = 0;
    for (const s of trackings.values()) {
      const due = pendingDueAt(s);
      if (due !== null && due <= t) requested.add(s.txHash);
      // Past the expiry and never shown: one last look (a bounded number per tick), then the round may end it.
      else if (
        s.from === null &&
        !s.receipt &&
        s.trackedAtMs + unseenExpiryMs <= t &&
        expiring < MAX_UNSEEN_LOOKUPS_PER_ROUND &&
        !requested.has(s.txHash)
      ) {
        if ((unseen.get(keyOf(s.clientId, s.txHash))?.nextAtMs ?? 0) <= t) {
          requested.add(s.txHash);
          expiring++;
        }
      }
    }
    if (headDirty || requested.size > 0) kick();
  }

  /** Set while a round holds the store's housekeeping off; called as the round ends. */
  let endHold: (() => void) | null = null;

  async function round(): Promise<void> {
    const toCheck = new Set(requested);
    requested.clear();
    try {
      await roundWith(toCheck);
    } catch (e) {
      for (const h of toCheck) requested.add(h);
      throw e;
    } finally {
      // Per round, not per run of rounds: a busy chain may keep rounds coming back to back, and the store's
      // housekeeping (SQLite's checkpoints) must still get its turn between them.
      const end = endHold;
      endHold = null;
      try {
        end?.();
      } catch (e) {
        log.warn(
          `could not checkpoint the tracker database after a watcher round (SQLite tries again later; is the disk ` +
            `full?): ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
  }

  async function roundWith(toCheck: Set<string>): Promise<void> {
    const t0 = now();
    const marks: string[] = [];
    const mark = (what: string) => trace && marks.push(`${what} +${now() - t0}`);
    let head = window.tip;
    let headMoved = false;
    if (headDirty) {
      headDirty = false;
      const sync = await chain.sync();
      if (sync) {
        headMoved = true;
        head = sync.head;
        if (sync.gap) for (const s of trackings.values()) toCheck.add(s.txHash);
        for (const b of sync.blocks) for (const h of b.txs) if (byHash.has(h)) toCheck.add(h);
        for (const s of standingStates()) if (sync.displaced.has(s.receipt!.blockHash)) toCheck.add(s.txHash);
      }
    }
    mark('sync');
    if (head === null) {
      // No head seen yet (node down at start): keep the lookups for the first round that has one.
      for (const h of toCheck) requested.add(h);
      return;
    }

    /** Hashes the node answered "none" for in this round's sender lookups. */
    const neverShown = new Set<string>();
    const nonceUsed = headMoved ? await checkNonces(head, toCheck, neverShown) : new Set<string>();
    // Transactions about to be reported pending are the ones an app may replace: learn their sender and nonce now.
    // So are the ones past the expiry: the node is asked once more before they are given up.
    const dueAt = now();
    await learnSenders(
      statesOf(toCheck)
        .filter((s) => s.from === null && (lookedUpDue(s, dueAt) || s.trackedAtMs + unseenExpiryMs <= dueAt))
        .map((s) => s.txHash),
      neverShown,
    );
    // Never shown and past the expiry: one receipt lookup more, then settle() may end them.
    for (const h of neverShown) {
      for (const key of byHash.get(h) ?? []) if (trackings.get(key)!.trackedAtMs + unseenExpiryMs <= dueAt) toCheck.add(h);
    }
    const hashes = [...toCheck].filter((h) => byHash.has(h));
    const lookedUp = new Set(hashes);
    const atHead = head;

    // Receipts first: each chunk is settled as it arrives, so the first receipts of a large block go out before its
    // last ones are fetched. Standing receipts that need no lookup (confirmation depth, reorg per the window) follow:
    // a confirmation is less urgent than news that a transaction was mined, and would queue ahead of it otherwise.
    // Chunks are stored one after the other (a store may be async): their messages keep the order they arrived in.
    let settling: Promise<void> = Promise.resolve();
    // Receipts to store: the store may put its housekeeping off until the round ends (TrackerStore.beginRound). Only
    // then, so rounds that store nothing (most of them while the indexer catches up) leave SQLite's checkpoints alone.
    if (hashes.length > 0) endHold ??= store.beginRound?.() ?? null;
    await rpc.batch(
      hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
      (offset, outcomes) => {
        mark('arrive');
        const receipts = new Map<string, TrackerReceipt | null>();
        outcomes.forEach((r, i) => {
          if (!r.ok) return;
          const raw = r.result as RawReceipt | null;
          // A receipt from a block the window does not know yet is used anyway: the block is canonical per the node.
          receipts.set(hashes[offset + i]!, raw?.blockHash ? formatReceipt(raw) : null);
        });
        const affected = statesOf(receipts.keys());
        settling = settling.then(() => settle(affected, receipts, atHead, nonceUsed, neverShown));
        mark(`chunk(${outcomes.length})`);
      },
    );
    await settling;
    await settle(
      standingStates().filter((s) => !lookedUp.has(s.txHash)),
      new Map(),
      atHead,
      nonceUsed,
      neverShown,
    );
    mark('standing');
    // A receipt from a block above our head (the node moved on, or the lookup raced a reorg) is looked up again
    // after the next sync, when the window can vouch for its block.
    for (const s of standingStates()) {
      if (s.receipt!.blockNumber > atHead) {
        requested.add(s.txHash);
        headDirty = true;
      }
    }
    if (trace && marks.length > 2) log.info(`round head ${head} from ${t0 % 100000}: ${marks.join(' ')}`);
  }

  /** The open trackings of these hashes. */
  function statesOf(hashes: Iterable<string>): TrackingState[] {
    const out: TrackingState[] = [];
    for (const h of hashes) for (const key of byHash.get(h) ?? []) out.push(trackings.get(key)!);
    return out;
  }

  /** The open trackings that hold a receipt, in the order they got it. */
  function standingStates(): TrackingState[] {
    return [...standing].map((key) => trackings.get(key)!);
  }

  /** Decides, stores and hands over one group of trackings; `receipts` holds the lookups made for them. */
  async function settle(
    list: readonly TrackingState[],
    receipts: Map<string, TrackerReceipt | null>,
    head: number,
    nonceUsed: Set<string>,
    neverShown: Set<string>,
  ): Promise<void> {
    const t = now();
    const changed: TrackingState[] = [];
    const withdrawals: { clientId: string; txHash: string }[] = [];
    const messages: NewMessage[] = [];
    for (const s of list) {
      const fetched = receipts.has(s.txHash);
      const obs: Observation = { nowMs: t, head };
      if (fetched) obs.receipt = receipts.get(s.txHash)!;
      if (s.receipt) {
        const canonical = window.isCanonical(s.receipt.blockNumber, s.receipt.blockHash);
        if (canonical !== undefined) obs.receiptCanonical = canonical;
      }
      if (fetched && nonceUsed.has(s.txHash)) obs.nonceUsedAtDepth = true;
      if (fetched && neverShown.has(s.txHash) && t >= s.trackedAtMs + unseenExpiryMs) obs.unseenExpired = true;
      const d = decideTracking(s, obs);
      if (!d.changed) continue;
      changed.push(d.state);
      if (d.withdrawReceipt) withdrawals.push({ clientId: s.clientId, txHash: s.txHash });
      for (const ev of d.events) messages.push(toMessage(s.clientId, s.txHash, ev));
    }
    if (changed.length === 0) return;
    const { created, withdrawn } = await store.commitRound(changed, withdrawals, messages, t);
    for (const s of changed) remember(s);
    if (created.length > 0 || withdrawn.length > 0) opts.onDeliveries(created, withdrawn);
  }

  /**
   * Looks up sender and nonce of transactions while the node still has them (a replaced one vanishes). Hashes the
   * node does not show are asked again only on their backoff schedule, and at most MAX_UNSEEN_LOOKUPS_PER_ROUND per
   * round, oldest due first. Adds the hashes the node answered "none" for to `none`.
   */
  async function learnSenders(hashes: readonly string[], none: Set<string>): Promise<void> {
    const t = now();
    const dueOf = (h: string) => {
      let due = 0;
      for (const key of byHash.get(h) ?? []) due = Math.max(due, unseen.get(key)?.nextAtMs ?? 0);
      return due;
    };
    const unknown = [...new Set(hashes)]
      .map((h) => ({ h, due: dueOf(h) }))
      .filter((x) => x.due <= t)
      .sort((a, b) => a.due - b.due)
      .slice(0, MAX_UNSEEN_LOOKUPS_PER_ROUND)
      .map((x) => x.h);
    if (unknown.length === 0) return;
    const res = await rpc.batch(unknown.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })));
    const learned: TrackingState[] = [];
    const answeredAt = now();
    res.forEach((r, i) => {
      const tx = r.ok ? (r.result as { from: string; nonce: string } | null) : null;
      if (r.ok && !tx) {
        none.add(unknown[i]!);
        for (const key of byHash.get(unknown[i]!) ?? []) {
          const attempts = (unseen.get(key)?.attempts ?? 0) + 1;
          unseen.set(key, { attempts, nextAtMs: answeredAt + unseenLookupDelayMs(attempts, backoff.base, backoff.max) });
        }
      }
      if (!tx) return;
      for (const key of byHash.get(unknown[i]!) ?? []) {
        const s = trackings.get(key)!;
        if (s.from !== null) continue;
        const next = { ...s, from: tx.from.toLowerCase(), nonce: Number.parseInt(tx.nonce, 16) };
        learned.push(next);
        remember(next);
      }
    });
    if (learned.length > 0) await store.commitRound(learned, [], [], now());
  }

  /**
   * For transactions already reported `pending`: is their sender's nonce used at `confirmation` depth? Learns
   * sender and nonce on the way. Returns hashes that may be unminable; their receipts are looked up to be sure.
   */
  async function checkNonces(head: number, toCheck: Set<string>, neverShown: Set<string>): Promise<Set<string>> {
    const out = new Set<string>();
    const candidates = [...trackings.values()].filter((s) => s.pendingSent && !s.receipt);
    if (candidates.length === 0) return out;
    await learnSenders(
      candidates.filter((s) => s.from === null).map((s) => s.txHash),
      neverShown,
    );
    const calls = new Map<string, { from: string; block: number }>();
    for (const s of trackings.values()) {
      if (!s.pendingSent) continue;
      const block = nonceCheckBlock(s, head);
      if (block === null) continue;
      calls.set(s.from + '@' + block, { from: s.from!, block });
    }
    if (calls.size === 0) return out;
    const keys = [...calls.keys()];
    const res: RpcOutcome[] = await rpc.batch(
      keys.map((k) => {
        const c = calls.get(k)!;
        return { method: 'eth_getTransactionCount', params: [c.from, '0x' + c.block.toString(16)] };
      }),
    );
    const counts = new Map<string, number>();
    res.forEach((r, i) => {
      if (r.ok && typeof r.result === 'string') counts.set(keys[i]!, Number.parseInt(r.result, 16));
    });
    for (const s of trackings.values()) {
      const block = nonceCheckBlock(s, head);
      if (block === null || !s.pendingSent) continue;
      const count = counts.get(s.from + '@' + block);
      if (count !== undefined && count > s.nonce!) {
        out.add(s.txHash);
        toCheck.add(s.txHash);
      }
    }
    return out;
  }

  return {
    async start(): Promise<void> {
      for (const s of await store.loadOpenTrackings()) {
        remember(s);
        requested.add(s.txHash);
      }
      stopHeads = rpc.subscribeHeads(
        () => {
          if (trace) log.info(`newHead at ${Date.now() % 100000}`);
          if (trackings.size === 0) return;
          headDirty = true;
          kick();
        },
        (on) => {
          subscribed = on;
          if (trace) log.info(`newHeads subscription ${on ? 'on' : 'off'}`);
        },
      );
      ticker = setInterval(tick, TICK_MS);
      ticker.unref();
      kick();
      await running;
    },

    /** Starts (or re-options) tracking; the options are stored before this resolves. */
    async track(clientId: string, txHash: string, confirmation: number, timeoutMs: number): Promise<void> {
      const { state } = await store.track(clientId, txHash, confirmation, timeoutMs, now());
      if (stopped) return;
      learn([state]);
    },

    /** Trackings stored by another instance (or re-read after a lost notification): watched from now on. */
    learn,

    /** Hashes waiting for the node to show them (memory bookkeeping, bounded by the open trackings). */
    unseenCount(): number {
      return unseen.size;
    },

    /** Open trackings of one client, or of all clients. */
    openCount(clientId?: string): number {
      return clientId === undefined ? trackings.size : (openByClient.get(clientId) ?? 0);
    },

    /** True while a watcher round runs. */
    busy(): boolean {
      return running !== null;
    },

    /** Resolves when no watcher round is running (at once when none is). */
    whenIdle(): Promise<void> {
      return running ? running.then(() => undefined) : Promise.resolve();
    },

    isTracked(clientId: string, txHash: string): boolean {
      return trackings.has(keyOf(clientId, txHash));
    },

    async stop(): Promise<void> {
      stopped = true;
      if (ticker) clearInterval(ticker);
      stopHeads?.();
      rpc.close();
      await running?.catch(() => {});
    },
  };
}

function lookedUpDue(s: TrackingState, nowMs: number): boolean {
  const due = pendingDueAt(s);
  return due !== null && due <= nowMs;
}

function toMessage(clientId: string, txHash: string, payload: TrackerPayload): NewMessage {
  return { clientId, txHash, type: payload.type, payload: payloadJson(payload) };
}
