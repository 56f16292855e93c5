// The tracker's rows as both backends read them (tracker_tracking, a delivery joined with its message), and how they
// become the watcher's and the outbox's values.
import type { OutboxEntry } from './tracker-delivery-outbox.js';
import { orderedId } from './tracker-ids.js';
import { parseReceiptJson } from './tracker-receipt-format.js';
import type { CreatedDeliveries, NewMessage } from './tracker-store.js';
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

export const toEntry = (r: DeliveryRow): OutboxEntry => ({
  ackId: r.ack_id,
  messageId: r.message_id,
  seq: r.seq,
  txKey: r.tx_hash,
  payload: r.payload,
});

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

/**
 * A round's messages, stored under `ids` as `seqs`, fanned out to the subscriptions of their client: the delivery rows
 * to insert, the same grouped per subscription for the outboxes, and the seq of each transaction's receipt message.
 */
export function fanOut(
  messages: readonly NewMessage[],
  ids: readonly string[],
  seqs: readonly number[],
  subsOf: ReadonlyMap<string, readonly string[]>,
) {
  const rows: { clientId: string; ackId: string; subscriptionId: string; seq: number }[] = [];
  const groups = new Map<string, CreatedDeliveries>();
  const receiptSeqs = new Map<string, number>();
  messages.forEach((m, i) => {
    const messageId = ids[i]!;
    const seq = seqs[i]!;
    if (m.type === 'receipt') receiptSeqs.set(m.clientId + '\u0000' + m.txHash, seq);
    for (const subscriptionId of subsOf.get(m.clientId) ?? []) {
      const ackId = orderedId();
      rows.push({ clientId: m.clientId, ackId, subscriptionId, seq });
      const key = m.clientId + '\u0000' + subscriptionId;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { clientId: m.clientId, subscriptionId, entries: [] }));
      group.entries.push({ ackId, messageId, seq, txKey: m.txHash, payload: m.payload });
    }
  });
  return { rows, created: [...groups.values()], receiptSeqs };
}
