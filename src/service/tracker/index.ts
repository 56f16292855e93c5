// The transaction tracker of the data service (SPEC 3): attaches the WebSocket endpoint to an HTTP server and runs
// the chain watcher and durable delivery behind it. `startService` calls `attachTracker`; stop() undoes everything.
import type { IncomingMessage, Server } from 'node:http';
import type { TxdeskError } from '../../shared/errors.js';
import type { Db } from '../../lib/sqlite.js';
import type { Logger } from '../../lib/log.js';
import { MIN_ACK_TIMEOUT_MS } from '../../sdk/tracker-wire.js';
import { createDeliveryHub } from './tracker-delivery-hub.js';
import { createTrackerEngine } from './tracker-engine.js';
import { createNodeRpc } from './tracker-node-rpc.js';
import { createTrackerStore } from './tracker-store.js';
import { startTrackerWs } from './tracker-ws-server.js';

export interface AttachTrackerOptions {
  db: Db;
  /** JSON-RPC URL of the node (http(s) or ws(s)); new heads come over its WebSocket when it has one. */
  nodeUrl: string;
  platform: string;
  network: string;
  isClientId(id: string): boolean | Promise<boolean>;
  /** The service's Host allow-list, applied to upgrades too; none unless set. */
  checkHost?: (req: IncomingMessage) => TxdeskError | null;
  /** Lowers the 10000 ms minimum `ackTimeout`, for tests that wait for a redelivery. */
  minAckTimeoutMs?: number;
  log: Logger;
  /** Block polling period when the node offers no head subscription (default 250 ms). */
  pollMs?: number;
  maxOpenTrackingsPerClient?: number;
  maxSubscriptionsPerClient?: number;
}

export interface AttachedTracker {
  stop(): Promise<void>;
}

export async function attachTracker(server: Server, opts: AttachTrackerOptions): Promise<AttachedTracker> {
  const log = opts.log.child('tracker');
  const minAckTimeoutMs = Math.max(1, Math.min(opts.minAckTimeoutMs ?? MIN_ACK_TIMEOUT_MS, MIN_ACK_TIMEOUT_MS));
  const store = createTrackerStore(opts.db);
  // The engine hands deliveries to the hub and the hub asks the engine when it is idle: one of them is bound late.
  let watcherIdle = (): Promise<void> => Promise.resolve();
  const hub = createDeliveryHub(store, log, { whenWatcherIdle: () => watcherIdle() });
  const engine = createTrackerEngine({
    store,
    rpc: createNodeRpc(opts.nodeUrl, log),
    log,
    onDeliveries: (created, withdrawn) => hub.deliver(created, withdrawn),
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
  });
  watcherIdle = () => engine.whenIdle();
  await engine.start();
  const ws = startTrackerWs({
    server,
    platform: opts.platform,
    network: opts.network,
    isClientId: opts.isClientId,
    ...(opts.checkHost ? { checkHost: opts.checkHost } : {}),
    minAckTimeoutMs,
    store,
    engine,
    hub,
    log,
    ...(opts.maxOpenTrackingsPerClient !== undefined ? { maxOpenTrackingsPerClient: opts.maxOpenTrackingsPerClient } : {}),
    ...(opts.maxSubscriptionsPerClient !== undefined ? { maxSubscriptionsPerClient: opts.maxSubscriptionsPerClient } : {}),
  });
  log.info(`tracker ready at /tracker/${opts.platform}/${opts.network}`);
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= (async () => {
        await ws.stop();
        await engine.stop();
        hub.stop();
      })();
      return stopped;
    },
  };
}
