// The tracker's rows as both backends read them (tracker_tracking, a delivery joined with its message), and how they
// become the watcher's and the outbox's values.
import type { OutboxEntry } from './tracker-delivery-outbox.js';
import { parseReceiptJson } from './tracker-receipt-format.js';
import type { TrackingState } from './tracker-watch-policy.js';

export interface TrackingRow {
  client_id: string;
  tx_hash: string;
  confirmation: number;
  timeout_ms: number;
  tracked_at_ms: number;
  pending_sent: number;
  receipt_json: string | null;
  tx_from: string | null;
  tx_nonce: number | null;
  done_at_ms: number | null;
}

export interface DeliveryRow {
  ack_id: string;
  message_id: string;
  seq: number;
  tx_hash: string;
  payload: string;
}

export const toEntry = (r: DeliveryRow): OutboxEntry => ({ ackId: r.ack_id, messageId: r.message_id, seq: r.seq, txKey: r.tx_hash, payload: r.payload });

export function rowToState(r: TrackingRow): TrackingState {
  return {
    clientId: r.client_id,
    txHash: r.tx_hash,
    confirmation: r.confirmation,
    timeoutMs: r.timeout_ms,
    trackedAtMs: r.tracked_at_ms,
    pendingSent: r.pending_sent === 1,
    receipt: r.receipt_json ? parseReceiptJson(r.receipt_json) : null,
    from: r.tx_from,
    nonce: r.tx_nonce,
    doneAtMs: r.done_at_ms,
  };
}
