// @txdesk/tracker (also importable as txdesk/tracker): the package's public surface. The client is
// transaction-tracker.ts; the wire format, errors and webhook signatures are their own files.
export {
  TransactionTracker,
  TrackerSubscription,
  type TransactionTrackerOptions,
  type TrackOptions,
  type SubscribeOptions,
  type TrackerMessageData,
  type TrackerMessage,
  type TrackerSubscriptionEvents,
} from './transaction-tracker.js';
export {
  TrackerError,
  isTrackerError,
  type TrackerErrorCode,
  type TrackerErrorFacts,
  type TrackerUnreachableReason,
} from './tracker-errors.js';
export { backoff, type SocketFactory, type WebSocketLike } from './tracker-connection.js';
// The client's TrackOptions (above) names its options; the wire's type of the same name stays inside the package.
export * from './tracker-wire.js';
export { signWebhook, verifyWebhook, WEBHOOK_SIGNATURE_HEADER, type WebhookVerification } from './webhook-signature.js';
