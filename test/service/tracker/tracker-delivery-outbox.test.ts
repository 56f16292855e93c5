// Delivery bookkeeping without sockets or clocks: in order per transaction, several in flight, redelivery, acks.
import { describe, expect, it } from 'vitest';
import { DeliveryOutbox, type OutboxEntry } from '../../../src/service/tracker/tracker-delivery-outbox.js';

let seq = 0;
const entry = (tx: string, type: string): OutboxEntry => ({
  ackId: `${tx}-${type}-a`,
  messageId: `${tx}-${type}-m`,
  seq: ++seq,
  txKey: tx,
  payload: `"${type}"`,
});
const ids = (xs: { entry: OutboxEntry }[]) => xs.map((x) => x.entry.messageId);

describe('DeliveryOutbox', () => {
  it('sends the first message of every transaction at once and holds later ones until the earlier is acked', () => {
    const o = new DeliveryOutbox(1000);
    o.add([entry('t1', 'pending'), entry('t1', 'receipt'), entry('t2', 'receipt'), entry('t1', 'confirmation')]);
    expect(ids(o.take(0))).toEqual(['t1-pending-m', 't2-receipt-m']);
    expect(o.take(10)).toEqual([]);
    expect(o.remove('t1-pending-a')).toBe(true);
    expect(ids(o.take(20))).toEqual(['t1-receipt-m']);
    o.remove('t1-receipt-a');
    expect(ids(o.take(30))).toEqual(['t1-confirmation-m']);
    expect(o.size).toBe(2);
  });

  it('redelivers after ackTimeout with the same ids, counting attempts, and never after the ack', () => {
    const o = new DeliveryOutbox(1000);
    o.add([entry('t3', 'receipt')]);
    expect(o.take(0)[0]!.attempt).toBe(1);
    expect(o.nextWakeMs(0)).toBe(1000);
    expect(o.take(999)).toEqual([]);
    const again = o.take(1000);
    expect(ids(again)).toEqual(['t3-receipt-m']);
    expect(again[0]!.attempt).toBe(2);
    expect(o.nextWakeMs(1000)).toBe(2000);
    o.remove('t3-receipt-a');
    expect(o.take(5000)).toEqual([]);
    expect(o.nextWakeMs(5000)).toBeNull();
  });

  it('redelivers in deadline order and keeps other slots untouched', () => {
    const o = new DeliveryOutbox(100);
    o.add([entry('a', 'r')]);
    o.take(0);
    o.add([entry('b', 'r')]);
    o.take(50);
    expect(ids(o.take(100))).toEqual(['a-r-m']);
    expect(ids(o.take(150))).toEqual(['b-r-m']);
  });

  it('caps messages in flight and fills freed slots', () => {
    const o = new DeliveryOutbox(1000, 2);
    o.add([entry('x1', 'r'), entry('x2', 'r'), entry('x3', 'r')]);
    expect(o.take(0)).toHaveLength(2);
    expect(o.inFlightCount).toBe(2);
    o.remove('x1-r-a');
    expect(ids(o.take(1))).toEqual(['x3-r-m']);
  });

  it('resendAll puts everything un-acked back on the wire at once (resume after reconnect)', () => {
    const o = new DeliveryOutbox(1000);
    o.add([entry('y1', 'r'), entry('y2', 'r')]);
    o.take(0);
    o.resendAll(5000);
    expect(ids(o.take(1))).toEqual(['y1-r-m', 'y2-r-m']);
    expect(o.nextWakeMs(1)).toBe(5001);
  });

  it('ignores duplicates and unknown ackIds; removing a queued (withdrawn) message keeps the head in flight', () => {
    const o = new DeliveryOutbox(1000);
    const p = entry('z', 'pending');
    const r = entry('z', 'receipt');
    const r2 = entry('z', 'receipt2');
    o.add([p, r, r2, p]);
    expect(o.size).toBe(3);
    expect(o.remove('nope')).toBe(false);
    o.take(0);
    o.remove(r.ackId);
    expect(o.take(1)).toEqual([]);
    o.remove(p.ackId);
    expect(ids(o.take(2))).toEqual([r2.messageId]);
  });
});
