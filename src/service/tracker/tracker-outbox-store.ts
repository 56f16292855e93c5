// The tracker's outbox as offered to webhooks: subscriptions whose deliveries another module sends itself (over HTTP,
// not the tracker's WebSocket), with the sending state each such delivery keeps. The tracker owns these tables and
// their migrations; a webhook store calls these inside its own transaction and names none of them.

/** A delivery waiting to be sent (or in flight), with its message. */
export interface HeldDelivery {
  deliveryId: string;
  messageId: string;
  seq: number;
  /** The transaction it is about: deliveries of one transaction go out in seq order. */
  txHash: string;
  /** `{type, result}` as the WebSocket carries it. */
  payload: string;
  createdAtMs: number;
  attempts: number;
  nextAtMs: number | null;
  /** Claimed by a sender until then. */
  leaseUntilMs: number | null;
  replay: boolean;
}

/** A message the subscriber stores itself (webhooks: address activity), with one delivery to its subscription. */
export interface HeldMessage {
  clientId: string;
  txHash: string;
  type: string;
  payload: string;
}

/** A message still kept for a subscription (a sent one until pruned), as stored. */
export interface KeptMessage {
  txHash: string;
  payload: string;
}

export type ReplayRange = { fromMs: number; toMs: number } | { fromMessageId: string };

/** A claim's terms: held until `untilMs`, and never more than `maxHeld` of the subscription's deliveries held at once. */
export interface ClaimTerms {
  nowMs: number;
  untilMs: number;
  /** Unexpired claims of the subscription, by anyone, after this one (a fleet's limit of requests in flight). */
  maxHeld: number;
}

/**
 * Every call, in the form SQLite runs it (synchronously, inside the caller's transaction on the same database).
 * PostgreSQL's form (HeldOutboxPostgres) takes the caller's transaction client first and answers a promise.
 */
export interface HeldOutbox {
  /** A subscription never idle (its owner ends it); a client's first subscription takes the messages parked for it. */
  subscribe(clientId: string, subscriptionId: string, nowMs: number): void;
  /** Ends the subscription with every delivery it has (and the messages no one else waits for). */
  unsubscribe(clientId: string, subscriptionId: string): void;
  /** Ends the subscription; its un-sent deliveries go, but those of messages of `keptType` (stored by the subscriber). */
  unsubscribeKeeping(clientId: string, subscriptionId: string, keptType: string): void;
  /** Un-sent deliveries above `afterSeq` in store order, at most `limit`. */
  pending(clientId: string, subscriptionId: string, afterSeq: number, limit: number): HeldDelivery[];
  countPending(clientId: string, subscriptionId: string): number;
  /** Every un-sent delivery's backoff starts afresh (tried at once). */
  retryNow(clientId: string, subscriptionId: string): void;
  /**
   * Claims the subscription's deliveries (in store order) unless sent or claimed by someone else meanwhile, as many as
   * keep its unexpired claims within `terms.maxHeld`; returns those claimed. The caller serialises the claims of one
   * subscription (the webhook stores lock the webhook's row), so two callers never both count the same free room.
   */
  claim(clientId: string, subscriptionId: string, deliveryIds: readonly string[], terms: ClaimTerms): Set<string>;
  /** Releases every claim (a single instance starting: claims left by a killed run need not wait out their lease). */
  releaseLeases(): void;
  /** Sent: kept (for replay) until pruneSent. */
  markSent(sent: readonly { clientId: string; deliveryId: string }[], nowMs: number): void;
  /** Not sent: waits until `nextAtMs`. */
  markFailed(clientId: string, deliveryId: string, nextAtMs: number): void;
  /** Sent deliveries made un-sent again (a replay): how many, or null when `fromMessageId` is not kept. */
  replay(clientId: string, subscriptionId: string, range: ReplayRange): number | null;
  /** Deletes sent deliveries older than `beforeMs` and the messages they held; how many. */
  pruneSent(beforeMs: number): number;
  /** The subscription's kept messages of `type` whose `result.blockNumber` is above `block`, in store order. */
  keptAbove(clientId: string, subscriptionId: string, type: string, block: number): KeptMessage[];
  /** Stores messages, each with one delivery to the subscription, in the order given. */
  store(subscriptionId: string, messages: readonly HeldMessage[], nowMs: number): void;
}

/** PostgreSQL's form: the caller's client (a transaction's, or the pool) first, a promise back. */
export type HeldOutboxPostgres<Client> = {
  [K in keyof HeldOutbox]: (c: Client, ...args: Parameters<HeldOutbox[K]>) => Promise<ReturnType<HeldOutbox[K]>>;
};
