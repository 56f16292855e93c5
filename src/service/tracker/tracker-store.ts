// What the tracker stores (tracked transactions, subscriptions, stored messages and their per-subscription deliveries),
// whatever the backend: SQLite in sqlite/, PostgreSQL in postgres/. Thin on purpose: decisions live in
// tracker-watch-policy.ts and tracker-delivery-outbox.ts.
import type { TrackerEventType } from '@txdesk/tracker/tracker-wire';
import type { OutboxEntry } from './tracker-delivery-outbox.js';
import type { TrackingState } from './tracker-watch-policy.js';

/** In a fleet, a tracking was stored: payload {i: instance, k: [[clientId, txHash], ...]}. The watcher leader listens. */
export const TRACK_CHANNEL = 'txdesk_tracker_track';
/** In a fleet, deliveries were stored or withdrawn: payload {i: instance, c: [clientId, ...], w: [[clientId, subId, ackId], ...]}. */
export const DELIVERY_CHANNEL = 'txdesk_tracker_delivery';
/** How many idle subscriptions one idleSubscriptions() call returns at most. */
export const IDLE_SUBSCRIPTIONS_PER_CALL = 1000;

export interface NewMessage {
  clientId: string;
  txHash: string;
  type: TrackerEventType;
  /** Serialized `{type, result}`. */
  payload: string;
}

/** Deliveries created for one subscription, ready for its outbox. */
export interface CreatedDeliveries {
  clientId: string;
  subscriptionId: string;
  entries: OutboxEntry[];
}

export interface WithdrawnDelivery {
  clientId: string;
  subscriptionId: string;
  ackId: string;
}

export interface TrackingKey {
  clientId: string;
  txHash: string;
}

export interface RoundResult {
  created: CreatedDeliveries[];
  withdrawn: WithdrawnDelivery[];
}

/** One contract, two backends; test/tracker/tracker-store.test.ts runs on both. */
export interface TrackerStore {
  /** Registers a hash for a client; tracking again keeps the original start time and takes the new options. */
  track(
    clientId: string,
    txHash: string,
    confirmation: number,
    timeoutMs: number,
    nowMs: number,
  ): Promise<{ state: TrackingState; created: boolean }>;
  countOpenTrackings(clientId: string): Promise<number>;
  loadOpenTrackings(): Promise<TrackingState[]>;
  /** The open ones among `keys` (a leader learning what another instance tracked). */
  loadTrackings(keys: readonly TrackingKey[]): Promise<TrackingState[]>;
  /**
   * Persists one watcher round atomically: tracking changes, withdrawn receipts and new messages (fanned out to
   * every subscription of the client, or parked as orphans until the client subscribes).
   */
  commitRound(
    states: readonly TrackingState[],
    withdrawals: readonly TrackingKey[],
    messages: readonly NewMessage[],
    nowMs: number,
  ): Promise<RoundResult>;
  /**
   * Creates the subscription, or updates its ackTimeout when it exists (a resume). The first subscription of a
   * client receives the messages stored while it had none.
   */
  subscribe(clientId: string, subscriptionId: string, ackTimeoutMs: number, nowMs: number): Promise<{ created: boolean }>;
  countSubscriptions(clientId: string): Promise<number>;
  unsubscribe(clientId: string, subscriptionId: string): Promise<void>;
  loadDeliveries(clientId: string, subscriptionId: string): Promise<OutboxEntry[]>;
  /** At most `limit` un-acked deliveries of a subscription after `afterSeq`, in store order (one page of a backlog). */
  loadDeliveriesPage(clientId: string, subscriptionId: string, afterSeq: number, limit: number): Promise<OutboxEntry[]>;
  /** Marks subscriptions as in use now (bound ones, and ones just released). */
  touchSubscriptions(subs: readonly { clientId: string; subscriptionId: string }[], nowMs: number): Promise<void>;
  /** Up to IDLE_SUBSCRIPTIONS_PER_CALL subscriptions last used before `beforeMs`. */
  idleSubscriptions(beforeMs: number): Promise<{ clientId: string; subscriptionId: string }[]>;
  /** Deletes acked deliveries (only the caller's own: the key includes clientId) and prunes fully acked messages. */
  ackMany(acks: readonly { clientId: string; ackId: string }[]): Promise<void>;
  pruneDoneTrackings(beforeMs: number): Promise<number>;
  /** Deletes messages parked for clients without a subscription that were stored before `beforeMs`. */
  pruneOrphans(beforeMs: number): Promise<number>;
  /** Un-acked deliveries of every subscription: what /health reports as the outbox depth. */
  outboxDepth(): Promise<number>;
  /**
   * Called when a watcher round is about to look receipts up; the returned function as the round ends (it may throw).
   * SQLite puts its WAL checkpoints off until then, so the block's receipts never wait behind one; PostgreSQL has
   * nothing to put off.
   */
  beginRound?(): () => void;
}
