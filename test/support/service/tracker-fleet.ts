// In-process tracker instances sharing one PostgreSQL test database: each with its own HTTP server, connections and
// instance id, as separate service processes would have; for the fleet tests that need to reach into them.
import { createServer, type Server } from 'node:http';
import { silentLogger } from '../../../src/lib/log.js';
import { closeSharedDatabase, openSharedDatabase, type SharedDatabase } from '../../../src/service/db/service-database.js';
import type { AttachedTracker } from '../../../src/service/tracker/tracker-attach.js';
import { attachTrackerOn, type TrackerOnServerOptions } from './tracker-on-server.js';
import { openPostgresTrackerStore } from '../../../src/service/tracker/postgres/tracker-store-postgres.js';

export interface FleetInstance {
  server: Server;
  shared: SharedDatabase;
  tracker: AttachedTracker;
  /** ws:// URL of its tracker endpoint, without the clientId. */
  base: string;
}

export async function startTrackerFleet(
  count: number,
  databaseUrl: string,
  opts: Pick<TrackerOnServerOptions, 'nodeUrl' | 'isClientId'> & Partial<TrackerOnServerOptions>,
): Promise<FleetInstance[]> {
  const out: FleetInstance[] = [];
  for (let i = 0; i < count; i++) {
    const shared = await openSharedDatabase(databaseUrl, silentLogger);
    const server = createServer((_req, res) => res.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const tracker = await attachTrackerOn(server, {
      log: silentLogger,
      ...opts,
      store: await openPostgresTrackerStore(shared.pool, shared.instance),
      shared,
    });
    out.push({ server, shared, tracker, base: `ws://127.0.0.1:${(server.address() as { port: number }).port}/tracker/ethereum/local` });
  }
  return out;
}

export async function stopTrackerFleet(instances: FleetInstance[]): Promise<void> {
  for (const i of instances) {
    await i.tracker.stop();
    await new Promise((r) => i.server.close(r));
    await closeSharedDatabase(i.shared);
  }
}
