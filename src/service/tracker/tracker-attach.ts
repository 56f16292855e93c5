// The transaction tracker of one network (docs/tracker-protocol.md): its WebSocket endpoint (reached through
// tracker-ws-router.ts), the chain watcher and durable delivery behind it; on a shared database only the watcher leader
// watches (tracker-watcher-role.ts). The service starts one per network; stop() undoes everything.
import type { Logger } from '../../lib/log.js';
import { MIN_ACK_TIMEOUT_MS } from '@txdesk/tracker/tracker-wire';
import { createDeliveryHub } from './tracker-delivery-hub.js';
import { createTrackerEngine } from './tracker-engine.js';
import { createNodeRpc } from './tracker-node-rpc.js';
import type { SharedDatabase } from '../db/service-database.js';
import type { TrackerStore } from './tracker-store.js';
import { startLocalWatcher, startSharedWatcher, type WatcherRole } from './tracker-watcher-role.js';
import { startTrackerWs } from './tracker-ws-server.js';
import type { UpgradeHandler } from './tracker-ws-router.js';

export interface AttachTrackerOptions {
  /** Where trackings and deliveries live (backend.ts opens it: SQLite alone, PostgreSQL with `shared`). */
  store: TrackerStore;
  /** Instances sharing one PostgreSQL database: the watcher runs on the one holding the watcher lock. */
  shared?: SharedDatabase;
  /** JSON-RPC URL of the node in use (http(s) or ws(s)), read at each (re)start of the watcher; new heads come over its WebSocket when it has one. */
  nodeUrl: () => string;
  /** "platform/network", for logs. */
  label: string;
  isClientId(id: string): boolean | Promise<boolean>;
  /** Lowers the 10000 ms minimum `ackTimeout`, for tests that wait for a redelivery. */
  minAckTimeoutMs?: number;
  log: Logger;
  /** Block polling period when the node offers no head subscription (default 250 ms). */
  pollMs?: number;
  maxOpenTrackingsPerClient?: number;
  maxSubscriptionsPerClient?: number;
  /** Longest a socket frame waits for the watcher's round to end (default 250 ms; see tracker-ws-server.ts). */
  frameHoldMaxMs?: number;
  /** Told when this instance stored new deliveries (webhooks send theirs at once instead of at their next poll). */
  onStored?: () => void;
}

export interface AttachedTracker {
  /** True while this instance runs the chain watcher (always, without a shared database). */
  isWatcher(): boolean;
  store: TrackerStore;
  /** Where the router sends this network's upgrades. */
  upgrade: UpgradeHandler;
  /** Receipt messages handed to subscribers so far (for /metrics). */
  delivered(): number;
  /** Moves the watcher to the node `nodeUrl()` now names (failover); it resumes from the store. */
  restartWatcher(): Promise<void>;
  stop(): Promise<void>;
}

export async function attachTracker(opts: AttachTrackerOptions): Promise<AttachedTracker> {
  const log = opts.log.child('tracker');
  const minAckTimeoutMs = Math.max(1, Math.min(opts.minAckTimeoutMs ?? MIN_ACK_TIMEOUT_MS, MIN_ACK_TIMEOUT_MS));
  const { store } = opts;
  // The engine hands deliveries to the hub and the hub asks the watcher when it is idle: one of them is bound late.
  let watcher: WatcherRole | null = null;
  const hub = createDeliveryHub(store, log, { whenWatcherIdle: () => watcher?.whenIdle() ?? Promise.resolve() });
  const makeEngine = () =>
    createTrackerEngine({
      store,
      rpc: createNodeRpc(opts.nodeUrl(), log),
      log,
      onDeliveries: (created, withdrawn) => {
        hub.deliver(created, withdrawn);
        if (created.length > 0) opts.onStored?.();
      },
      ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
    });
  watcher = opts.shared
    ? startSharedWatcher(makeEngine, store, opts.shared, hub, log.child('watcher'))
    : await startLocalWatcher(makeEngine);
  const role = watcher;
  const ws = startTrackerWs({
    isClientId: opts.isClientId,
    minAckTimeoutMs,
    store,
    intake: role.intake,
    hub,
    log,
    watcherRound: () => (role.busy() ? role.whenIdle() : undefined),
    ...(opts.frameHoldMaxMs !== undefined ? { frameHoldMaxMs: opts.frameHoldMaxMs } : {}),
    ...(opts.maxOpenTrackingsPerClient !== undefined ? { maxOpenTrackingsPerClient: opts.maxOpenTrackingsPerClient } : {}),
    ...(opts.maxSubscriptionsPerClient !== undefined ? { maxSubscriptionsPerClient: opts.maxSubscriptionsPerClient } : {}),
  });
  log.info(`tracker ready at /tracker/${opts.label}`);
  let stopped: Promise<void> | null = null;
  return {
    isWatcher: () => role.isLeader(),
    store,
    upgrade: ws.upgrade,
    delivered: () => hub.delivered(),
    restartWatcher: () => role.restart(),
    stop() {
      stopped ??= (async () => {
        await ws.stop();
        await role.stop();
        await hub.stop();
      })();
      return stopped;
    },
  };
}
