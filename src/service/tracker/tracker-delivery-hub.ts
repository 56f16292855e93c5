// Connects stored deliveries to live sockets: one outbox per subscription that is bound to a connection right now,
// redelivery sweeps, and acks (memory at once, the store in batches once the watcher is idle). Unbound subscriptions
// live only in the store. A backlog is read in pages as acks make room, so memory stays flat however much waited; a
// subscription nobody has bound for a week is deleted with its messages. Deliveries stored by another instance (a
// shared database) arrive through `storedElsewhere`, which reads them from the store like a backlog.
import type { Logger } from '../../lib/log.js';
import { DeliveryOutbox, type OutboxEntry } from './tracker-delivery-outbox.js';
import type { CreatedDeliveries, TrackerStore, WithdrawnDelivery } from './tracker-store.js';

/** What the hub needs from a connection. */
export interface DeliveryTarget {
  send(frame: string): void;
  /** Writes what `send` buffered. Without it, frames pushed from a microtask wait for every later microtask to run. */
  flush?(): void;
}

interface ActiveSub {
  clientId: string;
  subscriptionId: string;
  /** JSON of the subscriptionId, spliced into every push frame. */
  idJson: string;
  target: DeliveryTarget;
  outbox: DeliveryOutbox;
  /** Highest seq held in the outbox (or acked from it); stored deliveries above it are read page by page. */
  cursor: number;
  /** True when every stored delivery is in memory, so new ones go straight to the outbox. */
  complete: boolean;
  /** A page read is in flight (the store is async). */
  reading: boolean;
  /** Deliveries were stored while a page read was in flight: that read may have missed them, so read again. */
  readAgain: boolean;
}

const SWEEP_MS = 50;
/** A page read that failed (the database is away) is tried again after this long. */
const READ_RETRY_MS = 1_000;
/** Deliveries read from the store at a time; the next page is read once the outbox holds fewer than half of this. */
export const OUTBOX_PAGE = 2_000;
/** A subscription not bound to any connection for this long is deleted with its messages. */
export const SUBSCRIPTION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
const IDLE_CHECK_MS = 60_000;
/** Longest an ack waits for the watcher to go idle before it is stored anyway. */
const ACK_DEFER_MAX_MS = 250;

export interface DeliveryHubOptions {
  now?: () => number;
  /**
   * Resolves when the chain watcher has no round running. Acks are stored after it: a block's receipts reach their
   * clients first, and the acks that stream in meanwhile are written in one transaction afterwards.
   */
  whenWatcherIdle?: () => Promise<void>;
  /** Deliveries per page of a backlog (default OUTBOX_PAGE). */
  pageSize?: number;
  /** How long an unbound subscription is kept (default SUBSCRIPTION_IDLE_MS). */
  subscriptionIdleMs?: number;
}

export type DeliveryHub = ReturnType<typeof createDeliveryHub>;

export function createDeliveryHub(store: TrackerStore, log: Logger, opts: DeliveryHubOptions = {}) {
  const now = opts.now ?? Date.now;
  const active = new Map<string, ActiveSub>();
  const byClient = new Map<string, Set<string>>();
  let pendingAcks: { clientId: string; ackId: string }[] = [];
  let waiters: (() => void)[] = [];
  let flushScheduled = false;
  /** Messages acked by their subscriber (once each): what /metrics counts as delivered. */
  let acked = 0;

  const pageSize = opts.pageSize ?? OUTBOX_PAGE;
  const idleMs = opts.subscriptionIdleMs ?? SUBSCRIPTION_IDLE_MS;
  const keyOf = (clientId: string, subscriptionId: string) => clientId + '\u0000' + subscriptionId;

  /** Reads the next page of stored deliveries into the outbox when it runs low; pumps again when it arrives. */
  function refill(sub: ActiveSub): void {
    if (sub.complete || sub.reading || sub.outbox.size >= pageSize / 2) return;
    sub.reading = true;
    sub.readAgain = false;
    const key = keyOf(sub.clientId, sub.subscriptionId);
    store.loadDeliveriesPage(sub.clientId, sub.subscriptionId, sub.cursor, pageSize).then(
      (page) => {
        sub.reading = false;
        if (active.get(key) !== sub) return;
        const fresh = page.filter((e) => e.seq > sub.cursor);
        if (fresh.length > 0) sub.cursor = fresh[fresh.length - 1]!.seq;
        if (page.length < pageSize && !sub.readAgain) sub.complete = true;
        sub.outbox.add(fresh);
        pump(sub);
      },
      (e: unknown) => {
        sub.reading = false;
        log.warn(`could not read stored deliveries (retrying in ${READ_RETRY_MS} ms): ${e instanceof Error ? e.message : String(e)}`);
        setTimeout(() => active.get(key) === sub && pump(sub), READ_RETRY_MS).unref();
      },
    );
  }

  /** New deliveries are in the store but not in memory: read them in store order. */
  function markBehind(sub: ActiveSub): void {
    sub.complete = false;
    if (sub.reading) sub.readAgain = true;
  }

  function pump(sub: ActiveSub): void {
    refill(sub);
    const sending = sub.outbox.take(now());
    for (const { entry } of sending) sub.target.send(pushFrame(sub.idJson, entry));
    if (sending.length > 0) sub.target.flush?.();
  }

  /** Takes withdrawn deliveries out of their bound subscriptions' outboxes; returns the subscriptions that lost one. */
  function withdraw(withdrawn: readonly WithdrawnDelivery[]): Set<ActiveSub> {
    const touched = new Set<ActiveSub>();
    for (const w of withdrawn) {
      const sub = active.get(keyOf(w.clientId, w.subscriptionId));
      if (sub?.outbox.remove(w.ackId)) touched.add(sub);
    }
    return touched;
  }

  function unbind(key: string): void {
    const sub = active.get(key);
    if (!sub) return;
    active.delete(key);
    touch([sub]);
    const set = byClient.get(sub.clientId);
    set?.delete(key);
    if (set && set.size === 0) byClient.delete(sub.clientId);
  }

  function scheduleAckFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    const idle = opts.whenWatcherIdle;
    if (!idle) {
      setImmediate(() => void flushAcks());
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, ACK_DEFER_MAX_MS)));
    void Promise.race([idle(), cap]).then(() => {
      clearTimeout(timer);
      setImmediate(() => void flushAcks());
    });
  }

  async function flushAcks(): Promise<void> {
    if (!flushScheduled) return;
    flushScheduled = false;
    const batch = pendingAcks;
    const done = waiters;
    pendingAcks = [];
    waiters = [];
    try {
      if (batch.length > 0) await store.ackMany(batch);
    } catch (e) {
      // Not fatal: the messages stay stored and are delivered again, which at-least-once allows.
      log.warn(`could not store ${batch.length} acks: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      for (const w of done) w();
    }
  }

  function touch(subs: readonly ActiveSub[]): Promise<void> {
    return store.touchSubscriptions(subs, now()).catch((e: unknown) => {
      log.warn(`could not mark subscriptions as used: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  /** Deletes subscriptions unbound for `idleMs`, with their deliveries and the messages no one else waits for. */
  async function pruneIdle(): Promise<number> {
    await touch([...active.values()]);
    let deleted = 0;
    try {
      for (const s of await store.idleSubscriptions(now() - idleMs)) {
        if (active.has(keyOf(s.clientId, s.subscriptionId))) continue;
        await store.unsubscribe(s.clientId, s.subscriptionId);
        deleted++;
      }
    } catch (e) {
      log.warn(`could not delete unused subscriptions: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (deleted > 0) log.info(`deleted ${deleted} subscription(s) unused for ${Math.round(idleMs / 86_400_000)} days, with their messages`);
    return deleted;
  }
  const idleTimer = setInterval(() => void pruneIdle(), IDLE_CHECK_MS);
  idleTimer.unref();

  const sweeper = setInterval(() => {
    const t = now();
    for (const sub of active.values()) {
      const wake = sub.outbox.nextWakeMs(t);
      if (wake !== null && wake <= t) pump(sub);
    }
  }, SWEEP_MS);
  sweeper.unref();

  return {
    /**
     * Binds a stored subscription to a connection and sends everything un-acked (a resume sends it all again).
     * A subscription bound elsewhere moves here: the newest connection wins.
     */
    bind(clientId: string, subscriptionId: string, ackTimeoutMs: number, target: DeliveryTarget): void {
      const key = keyOf(clientId, subscriptionId);
      const existing = active.get(key);
      if (existing) {
        existing.target = target;
        existing.outbox.resendAll(ackTimeoutMs);
        pump(existing);
        return;
      }
      const outbox = new DeliveryOutbox(ackTimeoutMs);
      const sub: ActiveSub = {
        clientId,
        subscriptionId,
        idJson: JSON.stringify(subscriptionId),
        target,
        outbox,
        cursor: 0,
        complete: false,
        reading: false,
        readAgain: false,
      };
      active.set(key, sub);
      let set = byClient.get(clientId);
      if (!set) byClient.set(clientId, (set = new Set()));
      set.add(key);
      pump(sub);
    },

    /** Drops the live binding (the subscription stays stored); `target` guards against unbinding a newer connection. */
    unbind(clientId: string, subscriptionId: string, target?: DeliveryTarget): void {
      const key = keyOf(clientId, subscriptionId);
      const sub = active.get(key);
      if (sub && (target === undefined || sub.target === target)) unbind(key);
    },

    /** New stored messages and withdrawn stale receipts, from the watcher. */
    deliver(created: readonly CreatedDeliveries[], withdrawn: readonly WithdrawnDelivery[]): void {
      const touched = withdraw(withdrawn);
      for (const c of created) {
        const sub = active.get(keyOf(c.clientId, c.subscriptionId));
        if (!sub) continue;
        touched.add(sub);
        // Behind a backlog the new ones wait in the store for their page, in order; a slow reader stops taking more.
        if (!sub.complete || sub.outbox.size >= pageSize * 2) {
          markBehind(sub);
          continue;
        }
        sub.outbox.add(c.entries);
        sub.cursor = Math.max(sub.cursor, c.entries[c.entries.length - 1]?.seq ?? 0);
      }
      for (const sub of touched) pump(sub);
    },

    /**
     * Deliveries stored by another instance for these clients (`'all'`: unknown which), and withdrawn ones: bound
     * subscriptions read what they are missing from the store, in order.
     */
    storedElsewhere(clients: readonly string[] | 'all', withdrawn: readonly WithdrawnDelivery[] = []): void {
      const touched = withdraw(withdrawn);
      const keys = clients === 'all' ? [...active.keys()] : clients.flatMap((c) => [...(byClient.get(c) ?? [])]);
      for (const key of keys) {
        const sub = active.get(key);
        if (!sub) continue;
        markBehind(sub);
        touched.add(sub);
      }
      for (const sub of touched) pump(sub);
    },

    /** Acks one message of `clientId`; resolves once stored. Unknown ackIds and other clients' ackIds change nothing. */
    ack(clientId: string, ackId: string): Promise<void> {
      for (const key of byClient.get(clientId) ?? []) {
        const sub = active.get(key)!;
        if (sub.outbox.remove(ackId)) {
          acked++;
          pump(sub);
          break;
        }
      }
      pendingAcks.push({ clientId, ackId });
      scheduleAckFlush();
      return new Promise((resolve) => waiters.push(resolve));
    },

    /** Runs the unused-subscription cleanup now (it also runs every minute); returns how many were deleted. */
    pruneIdle,

    /** Messages their subscribers acked since start. */
    delivered: () => acked,

    stats(): { bound: number; inFlight: number; queued: number } {
      let inFlight = 0;
      let queued = 0;
      for (const s of active.values()) {
        inFlight += s.outbox.inFlightCount;
        queued += s.outbox.size;
      }
      return { bound: active.size, inFlight, queued };
    },

    async stop(): Promise<void> {
      clearInterval(sweeper);
      clearInterval(idleTimer);
      await flushAcks();
      active.clear();
      byClient.clear();
    },
  };
}

function pushFrame(idJson: string, e: OutboxEntry): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":{"ackId":${JSON.stringify(e.ackId)},"messageId":${JSON.stringify(e.messageId)},"payload":${e.payload}}}`;
}
