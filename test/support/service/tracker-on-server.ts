// One network's tracker on a plain node:http server, as tests set it up: attachTracker plus the upgrade router for
// ethereum/local (or the platform and network given), with a fixed node URL.
import type { Server } from 'node:http';
import { attachTracker, type AttachTrackerOptions, type AttachedTracker } from '../../../src/service/tracker/tracker-attach.js';
import { routeTrackerUpgrades } from '../../../src/service/tracker/tracker-ws-router.js';

export type TrackerOnServerOptions = Omit<AttachTrackerOptions, 'nodeUrl' | 'label'> & {
  nodeUrl: string;
  platform?: string;
  network?: string;
};

export async function attachTrackerOn(server: Server, o: TrackerOnServerOptions): Promise<AttachedTracker> {
  const { nodeUrl, platform = 'ethereum', network = 'local', ...rest } = o;
  const tracker = await attachTracker({ ...rest, nodeUrl: () => nodeUrl, label: `${platform}/${network}` });
  const unroute = routeTrackerUpgrades(
    server,
    new Map([[`${platform}/${network}`, { handler: () => tracker.upgrade, waitingReason: () => '' }]]),
  );
  return {
    ...tracker,
    stop: async () => {
      unroute();
      await tracker.stop();
    },
  };
}
