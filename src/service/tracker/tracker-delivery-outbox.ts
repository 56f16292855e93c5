// In-memory delivery bookkeeping of one connected subscription: which stored messages go out now, which are due for
// redelivery, and what an ack releases. No I/O and no clock: callers pass `nowMs`, so tests are plain tables.
//
// Ordering rule: per transaction only the oldest un-acked message is in flight (pending, receipt and confirmation
// arrive in order); messages of different transactions are in flight side by side, up to `maxInFlight`.

export interface OutboxEntry {
  ackId: string;
  messageId: string;
  /** Global store order; within one transaction it is the emission order. */
  seq: number;
  /** The transaction the message is about (clientId-scoped hash). */
  txKey: string;
  /** The serialized `payload`, kept ready to send. */
  payload: string;
}

export interface Sending {
  entry: OutboxEntry;
  /** 1 for the first send on this connection, 2+ for redeliveries. */
  attempt: number;
}

interface Slot {
  entry: OutboxEntry;
  deadlineMs: number;
  attempt: number;
}

export class DeliveryOutbox {
  private readonly queues = new Map<string, OutboxEntry[]>();
  private readonly byAck = new Map<string, OutboxEntry>();
  /** Heads of transaction queues waiting for a free slot, oldest first. */
  private readonly ready = new Map<string, OutboxEntry>();
  /** Sent, not acked; insertion order is deadline order because every deadline is send time + ackTimeoutMs. */
  private readonly inFlight = new Map<string, Slot>();

  constructor(
    public ackTimeoutMs: number,
    readonly maxInFlight = 10_000,
  ) {}

  get size(): number {
    return this.byAck.size;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  has(ackId: string): boolean {
    return this.byAck.has(ackId);
  }

  /** Adds stored messages; entries must come in seq order per transaction. Duplicates are ignored. */
  add(entries: Iterable<OutboxEntry>): void {
    for (const e of entries) {
      if (this.byAck.has(e.ackId)) continue;
      this.byAck.set(e.ackId, e);
      let q = this.queues.get(e.txKey);
      if (!q) {
        q = [];
        this.queues.set(e.txKey, q);
      }
      q.push(e);
      if (q.length === 1) this.ready.set(e.ackId, e);
    }
  }

  /** Removes a message (acked or withdrawn). Returns false when the ackId is not here. */
  remove(ackId: string): boolean {
    const e = this.byAck.get(ackId);
    if (!e) return false;
    this.byAck.delete(ackId);
    this.ready.delete(ackId);
    this.inFlight.delete(ackId);
    const q = this.queues.get(e.txKey)!;
    const wasHead = q[0] === e;
    const i = q.indexOf(e);
    q.splice(i, 1);
    if (q.length === 0) this.queues.delete(e.txKey);
    else if (wasHead) this.ready.set(q[0]!.ackId, q[0]!);
    return true;
  }

  /** After a reconnect every un-acked message goes out again at once, with the new ackTimeout. */
  resendAll(ackTimeoutMs: number): void {
    this.ackTimeoutMs = ackTimeoutMs;
    const slots = [...this.inFlight.values()];
    this.inFlight.clear();
    const ready = [...this.ready.values()];
    this.ready.clear();
    for (const s of slots) this.ready.set(s.entry.ackId, s.entry);
    for (const e of ready) this.ready.set(e.ackId, e);
  }

  /**
   * What to send at `nowMs`: redeliveries whose deadline passed, then heads waiting for a slot.
   * (A redelivered slot moves to the end of `inFlight`; its new deadline is later than now, so the loop stops there.)
   */
  take(nowMs: number): Sending[] {
    const out: Sending[] = [];
    for (const [ackId, slot] of this.inFlight) {
      if (slot.deadlineMs > nowMs) break;
      this.inFlight.delete(ackId);
      slot.deadlineMs = nowMs + this.ackTimeoutMs;
      slot.attempt += 1;
      this.inFlight.set(ackId, slot);
      out.push({ entry: slot.entry, attempt: slot.attempt });
    }
    for (const [ackId, entry] of this.ready) {
      if (this.inFlight.size >= this.maxInFlight) break;
      this.ready.delete(ackId);
      this.inFlight.set(ackId, { entry, deadlineMs: nowMs + this.ackTimeoutMs, attempt: 1 });
      out.push({ entry, attempt: 1 });
    }
    return out;
  }

  /** When `take` next has something to do: 0 = now, null = nothing pending. */
  nextWakeMs(nowMs: number): number | null {
    if (this.ready.size > 0 && this.inFlight.size < this.maxInFlight) return nowMs;
    const first = this.inFlight.values().next();
    return first.done ? null : first.value.deadlineMs;
  }

  /** The ackIds of un-acked messages about one transaction (for withdrawing a stale receipt). */
  entriesOf(txKey: string): readonly OutboxEntry[] {
    return this.queues.get(txKey) ?? [];
  }
}
