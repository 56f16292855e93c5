// Connects stored deliveries to live sockets: one outbox per subscription that is bound to a connection right now,
// redelivery sweeps, and acks (memory at once, SQLite in batches once the watcher is idle). Unbound subscriptions live
// only in SQLite.
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
}

const SWEEP_MS = 50;
/** Longest an ack waits for the watcher to go idle before it is stored anyway. */
const ACK_DEFER_MAX_MS = 250;

export interface DeliveryHubOptions {
  now?: () => number;
  /**
   * Resolves when the chain watcher has no round running. Acks are stored after it: a block's receipts reach their
   * clients first, and the acks that stream in meanwhile are written in one transaction afterwards.
   */
  whenWatcherIdle?: () => Promise<void>;
}

export type DeliveryHub = ReturnType<typeof createDeliveryHub>;

export function createDeliveryHub(store: TrackerStore, log: Logger, opts: DeliveryHubOptions = {}) {
  const now = opts.now ?? Date.now;
  const active = new Map<string, ActiveSub>();
  const byClient = new Map<string, Set<string>>();
  let pendingAcks: { clientId: string; ackId: string }[] = [];
  let waiters: (() => void)[] = [];
  let flushScheduled = false;

  const keyOf = (clientId: string, subscriptionId: string) => clientId + '\u0000' + subscriptionId;

  function pump(sub: ActiveSub): void {
    const sending = sub.outbox.take(now());
    for (const { entry } of sending) sub.target.send(pushFrame(sub.idJson, entry));
    if (sending.length > 0) sub.target.flush?.();
  }

  function unbind(key: string): void {
    const sub = active.get(key);
    if (!sub) return;
    active.delete(key);
    const set = byClient.get(sub.clientId);
    set?.delete(key);
    if (set && set.size === 0) byClient.delete(sub.clientId);
  }

  function scheduleAckFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    const idle = opts.whenWatcherIdle;
    if (!idle) {
      setImmediate(flushAcks);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, ACK_DEFER_MAX_MS)));
    void Promise.race([idle(), cap]).then(() => {
      clearTimeout(timer);
      setImmediate(flushAcks);
    });
  }

  function flushAcks(): void {
    if (!flushScheduled) return;
    flushScheduled = false;
    const batch = pendingAcks;
    const done = waiters;
    pendingAcks = [];
    waiters = [];
    try {
      if (batch.length > 0) store.ackMany(batch);
    } catch (e) {
      // Not fatal: the messages stay stored and are delivered again, which at-least-once allows.
      log.warn(`could not store ${batch.length} acks: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      for (const w of done) w();
    }
  }

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
      outbox.add(store.loadDeliveries(clientId, subscriptionId));
      const sub: ActiveSub = { clientId, subscriptionId, idJson: JSON.stringify(subscriptionId), target, outbox };
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
      const touched = new Set<ActiveSub>();
      for (const w of withdrawn) {
        const sub = active.get(keyOf(w.clientId, w.subscriptionId));
        if (sub && sub.outbox.remove(w.ackId)) touched.add(sub);
      }
      for (const c of created) {
        const sub = active.get(keyOf(c.clientId, c.subscriptionId));
        if (!sub) continue;
        sub.outbox.add(c.entries);
        touched.add(sub);
      }
      for (const sub of touched) pump(sub);
    },

    /** Acks one message of `clientId`; resolves once stored. Unknown ackIds and other clients' ackIds change nothing. */
    ack(clientId: string, ackId: string): Promise<void> {
      for (const key of byClient.get(clientId) ?? []) {
        const sub = active.get(key)!;
        if (sub.outbox.remove(ackId)) {
          pump(sub);
          break;
        }
      }
      pendingAcks.push({ clientId, ackId });
      scheduleAckFlush();
      return new Promise((resolve) => waiters.push(resolve));
    },

    stats(): { bound: number; inFlight: number; queued: number } {
      let inFlight = 0;
      let queued = 0;
      for (const s of active.values()) {
        inFlight += s.outbox.inFlightCount;
        queued += s.outbox.size;
      }
      return { bound: active.size, inFlight, queued };
    },

    stop(): void {
      clearInterval(sweeper);
      flushAcks();
      active.clear();
      byClient.clear();
    },
  };
}

function pushFrame(idJson: string, e: OutboxEntry): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":{"ackId":${JSON.stringify(e.ackId)},"messageId":${JSON.stringify(e.messageId)},"payload":${e.payload}}}`;
}
