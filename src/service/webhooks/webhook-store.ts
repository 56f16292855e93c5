// What webhooks store, whatever the backend (SQLite in sqlite/, PostgreSQL in postgres/): the webhooks of one network
// (the webhook table, this module's own) and their deliveries, which live in the tracker's outbox under a subscription
// id no WebSocket client can name (offered through tracker-outbox-store.ts); address activity is read from the index
// through indexer-moves.ts. Thin on purpose: when to send and retry is webhook-deliverer.ts.
import type { MovesSpan } from '../indexer/indexer-moves.js';
import type { ClaimTerms, HeldDelivery, KeptMessage } from '../tracker/tracker-outbox-store.js';
import type { ActivityMark } from './webhook-activity-reorg.js';

export type { IndexedMove } from '../indexer/indexer-moves.js';
export type { ClaimTerms } from '../tracker/tracker-outbox-store.js';
/** One step of the address-activity scan as read of the index (MovesSpan). */
export type ActivitySpan = MovesSpan;
/** One delivery waiting to be sent (or in flight), with what it carries. */
export type PendingDelivery = HeldDelivery;
/** One activity message of a webhook still kept (a sent one for 7 days), as stored. */
export type KeptActivity = KeptMessage;

/** A webhook's subscription id in the tracker's outbox: '/' is outside the WebSocket's subscription-id alphabet. */
export const webhookSubscriptionId = (webhookId: string): string => `webhook/${webhookId}`;
export const isWebhookSubscription = (subscriptionId: string): boolean => subscriptionId.startsWith('webhook/');

export type WebhookState = 'active' | 'failing' | 'paused';

export interface WebhookRow {
  id: string;
  clientId: string;
  url: string;
  /** The tracker's messages of the client's transactions. */
  trackerMessages: boolean;
  /** Lowercase addresses whose ERC-721 / ERC-1155 moves are delivered (empty: none). */
  addresses: string[];
  secret: string;
  /** The secret before the last rotation, still signed with until `previousSecretUntilMs`. */
  previousSecret: string | null;
  previousSecretUntilMs: number | null;
  state: WebhookState;
  /** First failed attempt since the last success (null while the receiver answers). */
  failingSinceMs: number | null;
  /** Failed attempts in a row (the webhook's own backoff grows with them). */
  failures: number;
  /** No attempt before this (the webhook's backoff after a failure). */
  retryAtMs: number | null;
  lastError: string | null;
  lastAttemptMs: number | null;
  lastSuccessMs: number | null;
  /** The indexed block up to which address activity was turned into deliveries (null: not started yet). */
  activityBlock: number | null;
  /**
   * The index's hash of that block when the cursor stopped there: a rollback below it shows as the index holding
   * another hash there, or none. Null: not known yet (a new cursor, or one from before hashes were kept); the next scan
   * takes the index's.
   */
  activityHash: string | null;
  /** Earlier positions of the cursor, newest first, thinned (webhook-activity-reorg.ts): where a rollback resumes. */
  activityMarks: ActivityMark[];
  createdAtMs: number;
}

export interface SentDelivery {
  webhookId: string;
  clientId: string;
  deliveryId: string;
}

/** Where the activity cursor stands, as compared and set by commitActivity. */
export interface ActivityCursor {
  block: number | null;
  hash: string | null;
}

export interface NewActivityMessage {
  webhookId: string;
  clientId: string;
  txHash: string;
  payload: string;
}

export type WebhookPatch = Partial<
  Pick<
    WebhookRow,
    'url' | 'trackerMessages' | 'addresses' | 'state' | 'secret' | 'previousSecret' | 'previousSecretUntilMs' | 'activityBlock'
  >
>;

/** One contract, two backends; test/service/webhooks/webhook-store.test.ts runs on both. */
export interface WebhookStore {
  create(row: WebhookRow): Promise<void>;
  get(id: string): Promise<WebhookRow | null>;
  listOfClient(clientId: string): Promise<WebhookRow[]>;
  countOfClient(clientId: string): Promise<number>;
  /** Every webhook of the network (the deliverer's and the activity scanner's view). */
  all(): Promise<WebhookRow[]>;
  /**
   * Applies a change the owner asked for; a change of state to 'active' clears the failure streak; a new
   * `activityBlock` starts the cursor afresh there (its hash unknown, no marks).
   */
  update(id: string, patch: WebhookPatch): Promise<WebhookRow | null>;
  /** Deletes the webhook with its deliveries (and the messages no one else waits for). */
  remove(id: string): Promise<boolean>;
  /** Un-sent deliveries of a webhook above `afterSeq` in store order, at most `limit`. */
  pending(webhookId: string, clientId: string, afterSeq: number, limit: number): Promise<PendingDelivery[]>;
  countPending(webhookId: string, clientId: string): Promise<number>;
  /**
   * Claims the webhook's deliveries until `terms.untilMs` unless sent or claimed by someone else meanwhile, as many as
   * keep its unexpired claims (every instance's) within `terms.maxHeld`; returns those claimed. Claims of one webhook
   * are serialised (PostgreSQL: a lock on its row), so a fleet never holds more than `maxHeld` at once.
   */
  claim(webhookId: string, clientId: string, deliveryIds: readonly string[], terms: ClaimTerms): Promise<Set<string>>;
  /** Releases every claim (a single instance starting: claims left by a killed run need not wait out their lease). */
  releaseLeases(): Promise<void>;
  /** 2xx answers, in one transaction: each delivery is kept as sent (for replay) and its webhook's failure streak ends. */
  markSent(sent: readonly SentDelivery[], nowMs: number): Promise<void>;
  /** Anything else: the delivery waits until `nextAtMs`, the webhook records the failure (and maybe turns failing). */
  markFailed(
    webhookId: string,
    clientId: string,
    deliveryId: string,
    f: { nowMs: number; nextAtMs: number; error: string; retryAtMs: number; failing: boolean },
  ): Promise<void>;
  /** Sends sent deliveries again: those of messages stored in [fromMs, toMs], or from the message `fromMessageId` on. */
  replay(webhookId: string, clientId: string, range: { fromMs: number; toMs: number } | { fromMessageId: string }): Promise<number | null>;
  /** Deletes sent deliveries older than `beforeMs` (kept for replay until then) and the messages they held. */
  pruneSent(beforeMs: number): Promise<number>;
  /**
   * One step of the scan from `fromBlock`, at most `stepBlocks` blocks and MOVES_PER_STEP moves on (see MovesSpan), read
   * by owner in one snapshot of the index.
   */
  readActivity(addresses: readonly string[], fromBlock: number, stepBlocks: number): Promise<ActivitySpan>;
  /** The webhook's kept activity messages (moves and withdrawals) of blocks above `block`, in the order they were stored. */
  activityAbove(webhookId: string, clientId: string, block: number): Promise<KeptActivity[]>;
  /**
   * Stores activity messages with one delivery each and moves the webhook's cursor to `to` with its marks, if it still
   * stands at `from`, block and hash (another instance may have moved it): false, storing nothing, when it did not.
   */
  commitActivity(
    webhookId: string,
    from: ActivityCursor,
    to: ActivityCursor & { marks: readonly ActivityMark[] },
    messages: readonly NewActivityMessage[],
    nowMs: number,
  ): Promise<boolean>;
}
