// The engine's one tracker feed, stable for the core's life: registrations go through the tracking queue (they wait
// while the service is away), and a sign-in with another client ID swaps the SDK subscription behind it.
import type { Logger } from '../../lib/log.js';
import type { TrackerFeed } from '../ports.js';
import { createTrackingQueue } from './tracking-queue.js';

export interface ClientFeedOptions {
  /** A feed (an SDK subscription) for one client ID. */
  make(clientId: string): TrackerFeed;
  clientId: string;
  /** Whether the tracker link is up now (registrations are flushed then). */
  isUp(): boolean;
  log: Logger;
}

export function createClientFeed(o: ClientFeedOptions) {
  let current = o.make(o.clientId);
  const queue = createTrackingQueue({ feed: () => current, isUp: o.isUp, log: o.log });
  const feed: TrackerFeed = {
    track: (hash, options) => queue.track(hash, options),
    start: (onMessage, onError) => current.start(onMessage, onError),
    stop: () => current.stop(),
  };
  return {
    feed,
    queue,
    /** Stops the current subscription and starts one for `clientId` with the same handlers. */
    async switchTo(
      clientId: string,
      onMessage: Parameters<TrackerFeed['start']>[0],
      onError: Parameters<TrackerFeed['start']>[1],
    ): Promise<void> {
      const old = current;
      current = o.make(clientId);
      await old.stop();
      await current.start(onMessage, onError);
    },
  };
}
