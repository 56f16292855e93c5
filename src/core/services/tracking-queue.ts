// Tracking while the tracker is down: registrations wait here (and the caller goes on) instead of holding a request
// open against a service that is not there; they all go out when the subscription is confirmed again.
import type { Logger } from '../../lib/log.js';
import type { TrackerFeed } from '../ports.js';

type TrackOptions = Parameters<TrackerFeed['track']>[1];

export function createTrackingQueue(o: { feed: () => TrackerFeed; isUp: () => boolean; log: Logger }) {
  const waiting = new Map<string, TrackOptions>();
  return {
    /** Up: tracks now (a failure reaches the caller, who retries). Down: queued, resolves at once. */
    async track(hash: string, opts: TrackOptions): Promise<void> {
      if (o.isUp()) return o.feed().track(hash, opts);
      waiting.set(hash, opts);
      o.log.debug?.(`tracking of ${hash} queued until the tracker is back (${waiting.size} waiting)`);
    },
    /** Sends every queued registration; one that fails waits for the next flush. */
    flush(): void {
      if (waiting.size) o.log.info(`tracker: registering ${waiting.size} transaction(s) queued while it was not connected`);
      for (const [hash, opts] of [...waiting]) {
        waiting.delete(hash);
        o.feed()
          .track(hash, opts)
          .catch(() => waiting.set(hash, opts));
      }
    },
    size: () => waiting.size,
  };
}
