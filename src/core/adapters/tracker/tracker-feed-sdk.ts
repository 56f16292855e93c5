// The TrackerFeed port on the txdesk/tracker SDK: one TransactionTracker, one subscription whose id is stable per
// signing address, so messages not yet acked when the app stopped are delivered again after a restart.
import { TransactionTracker, type TrackerError, type TrackerMessage } from '@txdesk/tracker';
import type { FeedMessage, TrackerFeed } from '../../ports.js';

export interface SdkFeedOptions {
  serviceUrl: string;
  clientId: string;
  platform: string;
  network: string;
  subscriptionId: string;
  /** ms before the service redelivers an un-acked message (10000..600000). */
  ackTimeout?: number;
  /** Only against a service started with a lower minAckTimeoutMs (tests). */
  minAckTimeout?: number;
  /** How long start() waits for the first subscribe answer (default 10000 ms). */
  readyTimeoutMs?: number;
  /** The link's real events: subscribed (again) after a (re)connect, or lost/refused with the SDK's error. */
  onLink?(state: 'connected' | 'unreachable', error?: TrackerError): void;
}

export function createSdkTrackerFeed(o: SdkFeedOptions): TrackerFeed {
  const tracker = new TransactionTracker(o.clientId, {
    platform: o.platform,
    network: o.network,
    url: o.serviceUrl,
    initialBackoffMs: 200,
    maxBackoffMs: 5_000,
    ...(o.minAckTimeout !== undefined ? { minAckTimeout: o.minAckTimeout } : {}),
  });
  tracker.on('error', () => {
    /* reported per subscription below */
  });
  return {
    track: (hash, opts) => tracker.trackTransaction(hash, opts),
    async start(onMessage, onError) {
      const sub = tracker.subscribe('transaction', { subscriptionId: o.subscriptionId, ackTimeout: o.ackTimeout ?? 15_000 });
      sub.on('subscribed', () => o.onLink?.('connected'));
      sub.on('error', (e) => {
        // Connection trouble is a link state (the SDK keeps retrying, or stopped on a refusal), not one error per retry.
        if (o.onLink && (e.code === 'UNREACHABLE' || e.code === 'UNKNOWN_CLIENT_ID' || e.code === 'NOT_FOUND')) o.onLink('unreachable', e);
        else onError(e);
      });
      sub.on('message', (m: TrackerMessage) => {
        const msg: FeedMessage = {
          id: m.id,
          type: m.data.type,
          result: m.data.result as unknown as Record<string, unknown>,
          ack: () => m.ack(),
        };
        onMessage(msg).catch(onError);
      });
      // Start-up does not wait for a service that is down: the SDK keeps re-subscribing in the background.
      const wait = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), o.readyTimeoutMs ?? 10_000).unref());
      const first = await Promise.race([sub.ready.then(() => 'ok' as const), wait]);
      if (first === 'timeout') onError(new Error('the tracker subscription is not confirmed yet; still trying'));
    },
    stop: () => tracker.close(),
  };
}
