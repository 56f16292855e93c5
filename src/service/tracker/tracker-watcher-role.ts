// Who watches receipts: alone (SQLite, one instance), or the one instance of a fleet holding the watcher lock
// (PostgreSQL). Either way the rest of the tracker sees one intake for track_transaction and one "watcher idle".
import type { Logger } from '../../lib/log.js';
import { startLeadership } from '../db/pg-leadership.js';
import type { SharedDatabase } from '../db/service-database.js';
import type { DeliveryHub } from './tracker-delivery-hub.js';
import type { TrackerEngine } from './tracker-engine.js';
import { unseenLookupDelayMs } from './tracker-watch-policy.js';
import { DELIVERY_CHANNEL, TRACK_CHANNEL, type TrackerStore, type TrackingKey, type WithdrawnDelivery } from './tracker-store.js';
import type { TrackerIntake } from './tracker-ws-server.js';

export interface WatcherRole {
  intake: TrackerIntake;
  whenIdle(): Promise<void>;
  /** True while this instance's watcher runs a round. */
  busy(): boolean;
  /** True while this instance runs the chain watcher. */
  isLeader(): boolean;
  /** Replaces a running engine with a new one from makeEngine (a node failover); it resumes from the store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** One instance, its own store: it always watches, and its limits are counted in memory. */
export async function startLocalWatcher(makeEngine: () => TrackerEngine): Promise<WatcherRole> {
  let engine = makeEngine();
  await engine.start();
  let restarting: Promise<void> = Promise.resolve();
  return {
    intake: {
      async track(clientId, txHash, confirmation, timeoutMs, maxOpen) {
        if (!engine.isTracked(clientId, txHash) && engine.openCount(clientId) >= maxOpen) return false;
        await engine.track(clientId, txHash, confirmation, timeoutMs);
        return true;
      },
    },
    whenIdle: () => engine.whenIdle(),
    busy: () => engine.busy(),
    isLeader: () => true,
    restart: () =>
      (restarting = restarting.then(async () => {
        await engine.stop();
        engine = makeEngine();
        await engine.start();
      })),
    stop: () => restarting.then(() => engine.stop()),
  };
}

/** Backoff of a failed read of trackings another instance stored: first delay and cap. */
const RELEARN_FIRST_DELAY_MS = 1_000;
const RELEARN_MAX_DELAY_MS = 30_000;

interface DeliveryNotice {
  i: string;
  c?: string[];
  w?: [string, string, string][];
  all?: boolean;
}

interface TrackNotice {
  i: string;
  k?: [string, string][];
  all?: boolean;
}

/**
 * Many instances, one database: the holder of the watcher lock runs the engine; every instance stores trackings
 * (the NOTIFY in the same transaction wakes the leader) and reads deliveries that another instance stored when its
 * notification arrives. Limits are counted in the database, so they hold across the fleet (see docs/deploy.md for
 * where they are approximate).
 */
export function startSharedWatcher(
  makeEngine: () => TrackerEngine,
  store: TrackerStore,
  db: SharedDatabase,
  hub: DeliveryHub,
  log: Logger,
): WatcherRole {
  let engine: TrackerEngine | null = null;

  const parse = <T>(payload: string): T | null => {
    try {
      return JSON.parse(payload) as T;
    } catch {
      return null;
    }
  };

  db.listener.on(db.channel(DELIVERY_CHANNEL), (payload) => {
    const n = parse<DeliveryNotice>(payload);
    if (!n || n.i === db.instance) return;
    const withdrawn: WithdrawnDelivery[] = (n.w ?? []).map(([clientId, subscriptionId, ackId]) => ({ clientId, subscriptionId, ackId }));
    hub.storedElsewhere(n.all ? 'all' : (n.c ?? []), withdrawn);
  });

  /**
   * Reads trackings another instance stored and hands them to this instance's engine. A failed read is tried again
   * with backoff (the engine's sweep only covers trackings it holds, so nothing else would find them) until it
   * succeeds or this instance stops leading: a new leader's engine loads every open tracking when it starts.
   */
  async function relearn(keys: readonly TrackingKey[] | 'all', attempt = 0): Promise<void> {
    const e = engine;
    if (!e) return;
    try {
      e.learn(keys === 'all' ? await store.loadOpenTrackings() : await store.loadTrackings(keys));
    } catch (err) {
      // The same capped doubling as the engine's lookups of hashes the node has not shown.
      const delayMs = unseenLookupDelayMs(attempt + 1, RELEARN_FIRST_DELAY_MS, RELEARN_MAX_DELAY_MS);
      log.warn(
        `could not read trackings stored by another instance (trying again in ${Math.round(delayMs / 1000)} ` +
          `s): ${err instanceof Error ? err.message : String(err)}`,
      );
      const timer = setTimeout(() => {
        if (engine === e) void relearn(keys, attempt + 1);
      }, delayMs);
      timer.unref();
    }
  }

  db.listener.on(db.channel(TRACK_CHANNEL), (payload) => {
    const n = parse<TrackNotice>(payload);
    if (!n || n.i === db.instance) return;
    void relearn(n.all ? 'all' : (n.k ?? []).map(([clientId, txHash]) => ({ clientId, txHash })));
  });

  db.listener.onReconnect(() => {
    hub.storedElsewhere('all');
    void relearn('all');
  });

  const leadership = startLeadership(
    db.url,
    'watcher',
    log,
    {
      async onAcquire() {
        const e = makeEngine();
        engine = e;
        // Resumes from the committed state: every open tracking with what was already reported about it.
        await e.start();
      },
      async onLose() {
        const e = engine;
        engine = null;
        await e?.stop();
      },
    },
    { lockClass: db.lockClass, ...(db.mayLead ? { mayLead: db.mayLead } : {}) },
  );

  return {
    intake: {
      async track(clientId, txHash, confirmation, timeoutMs, maxOpen) {
        // Counted in the database: the limit holds across instances (two instances admitting at the same moment can
        // each let one more through; see docs/deploy.md).
        if ((await store.countOpenTrackings(clientId)) >= maxOpen && (await store.loadTrackings([{ clientId, txHash }])).length === 0)
          return false;
        const e = engine;
        if (e) {
          await e.track(clientId, txHash, confirmation, timeoutMs);
          return true;
        }
        const { state } = await store.track(clientId, txHash, confirmation, timeoutMs, Date.now());
        // This instance may have become the leader while the row was being stored: its engine's first read of the
        // open trackings can have missed the row, and the notification the row sent is this instance's own (ignored
        // above). Once the row is stored, an engine that exists learns it here; one that does not exist yet will
        // read it when it starts.
        engine?.learn([state]);
        return true;
      },
    },
    whenIdle: () => engine?.whenIdle() ?? Promise.resolve(),
    busy: () => engine?.busy() ?? false,
    isLeader: () => leadership.isLeader(),
    async restart() {
      const e = engine;
      if (!e) return;
      await e.stop();
      if (engine !== e) return;
      const next = makeEngine();
      engine = next;
      await next.start();
    },
    stop: () => leadership.stop(),
  };
}
