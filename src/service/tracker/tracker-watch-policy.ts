// The watcher's decisions (docs/tracker-protocol.md §3-4) as a pure function over plain data: given one tracked transaction and what the
// chain shows now, which messages to emit and what to remember. The I/O around it lives in tracker-engine.ts.
import type { TrackerPayload, TrackerReceipt } from '@txdesk/tracker/tracker-wire';

export interface TrackingState {
  clientId: string;
  txHash: string;
  confirmation: number;
  timeoutMs: number;
  trackedAtMs: number;
  pendingSent: boolean;
  /** The receipt last reported to the client; null when none is standing (never mined, or reorganised away). */
  receipt: TrackerReceipt | null;
  /** Sender and nonce, once the node has shown the transaction; they detect a nonce used by another transaction. */
  from: string | null;
  nonce: number | null;
  doneAtMs: number | null;
}

export interface Observation {
  nowMs: number;
  /** Canonical head block number, null before the first head. */
  head: number | null;
  /** The node's receipt now: undefined = not looked up this round, null = looked up, none. */
  receipt?: TrackerReceipt | null;
  /** False when the block of the standing receipt is no longer on the canonical chain. */
  receiptCanonical?: boolean;
  /** True when `from`'s nonce is used by a transaction at least `confirmation` blocks deep. */
  nonceUsedAtDepth?: boolean;
  /** True when the node was asked this round and has never shown the transaction, past the service's expiry time. */
  unseenExpired?: boolean;
}

export interface Decision {
  state: TrackingState;
  events: TrackerPayload[];
  /** Un-delivered messages carrying the stale receipt should be withdrawn. */
  withdrawReceipt: boolean;
  changed: boolean;
}

export function decideTracking(state: TrackingState, obs: Observation): Decision {
  if (state.doneAtMs !== null) return { state, events: [], withdrawReceipt: false, changed: false };
  const s: TrackingState = { ...state };
  const events: TrackerPayload[] = [];
  let withdrawReceipt = false;

  let receipt = obs.receipt;
  if (receipt === undefined && s.receipt && obs.receiptCanonical === false) receipt = null;

  if (receipt === null) {
    if (s.receipt) {
      withdrawReceipt = true;
      s.receipt = null;
      // The client may have acted on the receipt (marked the others of its nonce lost): tell it the news is void.
      if (!obs.nonceUsedAtDepth) {
        s.pendingSent = true;
        events.push({
          type: 'pending',
          result: { transactionHash: s.txHash, confirmation: s.confirmation, timeout: s.timeoutMs, reorged: true },
        });
      }
    }
    if (obs.nonceUsedAtDepth) {
      s.doneAtMs = obs.nowMs;
    } else if (obs.unseenExpired && s.from === null) {
      // A hash no node ever showed costs lookups forever: the final `pending` says tracking ended, and why.
      s.pendingSent = true;
      s.doneAtMs = obs.nowMs;
      events.push({
        type: 'pending',
        result: { transactionHash: s.txHash, confirmation: s.confirmation, timeout: s.timeoutMs, expired: true },
      });
    } else if (!s.pendingSent && obs.nowMs >= s.trackedAtMs + s.timeoutMs) {
      // Also after a withdrawn receipt: the client's last news ("mined") no longer stands, and it may want to act.
      s.pendingSent = true;
      events.push({ type: 'pending', result: { transactionHash: s.txHash, confirmation: s.confirmation, timeout: s.timeoutMs } });
    }
  } else if (receipt) {
    if (!s.receipt || s.receipt.blockHash !== receipt.blockHash) {
      if (s.receipt) withdrawReceipt = true;
      s.receipt = receipt;
      events.push({ type: 'receipt', result: receipt });
    }
  }

  const canonical = receipt !== undefined ? receipt !== null : obs.receiptCanonical !== false;
  if (s.receipt && canonical && obs.head !== null && obs.head - s.receipt.blockNumber >= s.confirmation) {
    events.push({ type: 'confirmation', result: s.receipt });
    s.doneAtMs = obs.nowMs;
  }

  const changed =
    events.length > 0 ||
    withdrawReceipt ||
    s.doneAtMs !== state.doneAtMs ||
    s.pendingSent !== state.pendingSent ||
    s.receipt !== state.receipt;
  return { state: s, events, withdrawReceipt, changed };
}

/** When `pending` falls due, or null when it never will (already sent, mined, or done). */
export function pendingDueAt(s: TrackingState): number | null {
  if (s.doneAtMs !== null || s.pendingSent || s.receipt) return null;
  return s.trackedAtMs + s.timeoutMs;
}

/** The block number at which a nonce must already be used for the hash to be unminable at `confirmation` depth. */
export function nonceCheckBlock(s: TrackingState, head: number): number | null {
  if (s.doneAtMs !== null || s.receipt || s.from === null || s.nonce === null) return null;
  const at = head - s.confirmation;
  return at >= 0 ? at : null;
}

/** How long after the `attempts`-th lookup that found nothing the node is asked again for a transaction's sender. */
export function unseenLookupDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}
