// Tracking while the tracker is down: registrations wait here (and the caller goes on) instead of holding a request
// open against a service that is not there; they all go out when the subscription is confirmed again.
import type { Logger } from '../../lib/log.js';
import type { TrackerFeed } from '../ports.js';

type TrackOptions = Parameters<TrackerFeed['track']>[1];

/** How long a registration that failed in a flush waits before the queue flushes again by itself. */
export const FLUSH_RETRY_MS = 5_000;

export function createTrackingQueue(o: { feed: () => TrackerFeed; isUp: () => boolean; log: Logger; retryMs?: number }) {
  const waiting = new Map<string, TrackOptions>();
  // The callers of queued registrations were answered long ago, so nobody above retries one that fails in a flush:
  // the queue flushes again by itself while the tracker is up (a reconnect flushes as well).
  let retry: NodeJS.Timeout | null = null;
  let stopped = false;
  const scheduleRetry = () => {
    if (retry || stopped) return;
    retry = setTimeout(() => {
      retry = null;
      if (o.isUp()) flush();
    }, o.retryMs ?? FLUSH_RETRY_MS);
    retry.unref();
  };
  function flush(): void {
    if (stopped) return;
    if (waiting.size) o.log.info(`tracker: registering ${waiting.size} transaction(s) queued while it was not connected`);
    for (const [hash, opts] of [...waiting]) {
      waiting.delete(hash);
      o.feed()
        .track(hash, opts)
        .catch(() => {
          waiting.set(hash, opts);
          scheduleRetry();
        });
    }
  }
  return {
    /** Up: tracks now (a failure reaches the caller, who retries). Down: queued, resolves at once. */
    async track(hash: string, opts: TrackOptions): Promise<void> {
      if (o.isUp()) return o.feed().track(hash, opts);
      waiting.set(hash, opts);
      o.log.debug?.(`tracking of ${hash} queued until the tracker is back (${waiting.size} waiting)`);
    },
    /** Sends every queued registration; one that fails waits for the next flush, made by itself after `retryMs`. */
    flush,
    size: () => waiting.size,
    stop(): void {
      stopped = true;
      if (retry) clearTimeout(retry);
      retry = null;
    },
  };
}
