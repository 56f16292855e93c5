// Frame parsing and parameter rules of SPEC 3.1 as tables: both track_transaction forms, error codes, batches.
import { describe, expect, it } from 'vitest';
import { parseTrackParams } from '@txdesk/tracker/tracker-wire';
import { parseFrame } from '../../../src/service/tracker/tracker-rpc.js';

const H = '0x' + 'Cd'.repeat(32);
const h = H.toLowerCase();

describe('parseTrackParams', () => {
  const ok: [unknown[], number, number][] = [
    [[H, { confirmation: 6, timeout: 10000 }], 6, 10000],
    [[H, { timeout: 500 }], 6, 500],
    [[H, {}], 6, 10000],
    [[H], 6, 10000],
    [[H, 6, 10000], 6, 10000],
    [[H, 10000, 6], 6, 10000], // flattened {timeout, confirmation} of older clients
    [[H, 1000, 1001], 1000, 1001], // 1000 is a valid confirmation: read positionally
    [[H, 1001, 1000], 1000, 1001],
    [[H, 12000], 6, 12000], // a lone large value is a timeout
    [[H, 3], 3, 10000],
    [[H, 0, 0], 0, 0],
  ];
  for (const [params, confirmation, timeout] of ok) {
    it(`reads ${JSON.stringify(params.slice(1))}`, () => {
      expect(parseTrackParams(params)).toEqual({ ok: true, value: { hash: h, confirmation, timeout } });
    });
  }
  const bad: [unknown[], RegExp][] = [
    [[], /params must be/],
    [['0x12'], /params\[0\] \(txHash\)/],
    [[H, 2000, 3000], /params\[1\] \(confirmation\)/],
    [[H, 1, -1], /params\[2\] \(timeout\)/],
    [[H, 1.5, 100], /confirmation/],
    [[H, { confirmation: 'six' }], /params\[1\]\.confirmation/],
    [[H, { confirmations: 6 }], /params\[1\]\.confirmations is not an option/],
    [[H, 1, 2, 3], /params must be/],
    [[H, 1, 100_000_000], /params\[2\] \(timeout\) must be an integer from 0 to 86400000/],
  ];
  for (const [params, msg] of bad) {
    it(`rejects ${JSON.stringify(params).slice(0, 60)}`, () => {
      const r = parseTrackParams(params);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(msg);
    });
  }
});

describe('parseFrame', () => {
  const one = (text: string, min = 10_000) => {
    const f = parseFrame(text, min);
    expect(f.items).toHaveLength(1);
    return f.items[0]!;
  };
  const rows: [frame: string, code: number | null][] = [
    ['nope', -32700],
    ['"str"', -32600],
    ['{"jsonrpc":"2.0","id":1}', -32600],
    ['{"jsonrpc":"2.0","id":{"a":1},"method":"HEARTBEAT"}', -32600],
    ['{"jsonrpc":"2.0","id":1.5,"method":"HEARTBEAT"}', -32600],
    ['{"jsonrpc":"2.0","id":1,"method":"HEARTBEAT","params":{}}', -32600],
    ['{"jsonrpc":"2.0","id":1,"method":"HEARTBEAT","params":[]}', null],
    ['{"jsonrpc":"2.0","id":1,"method":"HEARTBEAT"}', null],
    ['{"jsonrpc":"2.0","id":1,"method":"heartbeat"}', -32601],
    ['{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["sub-1","transaction",null]}', null],
    ['{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["sub-1"]}', null],
    ['{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["1e3","transaction",null]}', -32602],
    ['{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["a b","transaction",null]}', -32602],
    ['{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["s","transaction",9999]}', -32602],
    ['{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["s","transaction",600001]}', -32602],
    ['{"jsonrpc":"2.0","id":1,"method":"tracker_unsubscribe","params":[]}', -32602],
    ['{"jsonrpc":"2.0","id":1,"method":"ack","params":["abc"]}', null],
    ['{"jsonrpc":"2.0","id":1,"method":"ack","params":[]}', -32602],
  ];
  for (const [frame, code] of rows) {
    it(`${frame.slice(0, 70)} -> ${code ?? 'ok'}`, () => {
      const item = one(frame);
      if (code === null) expect(item.ok).toBe(true);
      else expect(item).toMatchObject({ ok: false, code });
    });
  }

  it('keeps the request id on errors and uses null when there is none', () => {
    expect(one('{"jsonrpc":"2.0","id":7,"method":"nope"}')).toMatchObject({ id: 7, code: -32601 });
    expect(one('{"jsonrpc":"1.0","id":8,"method":"ack"}')).toMatchObject({ id: 8, code: -32600 });
    expect(one('{bad')).toMatchObject({ id: null, code: -32700 });
  });

  it('defaults ackTimeout to 10000 and honours a lowered minimum', () => {
    expect(one('{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["s","transaction",null]}')).toMatchObject({
      command: { ackTimeout: 10000 },
    });
    expect(one('{"jsonrpc":"2.0","id":1,"method":"tracker_subscribe","params":["s","transaction",300]}', 300)).toMatchObject({
      ok: true,
      command: { ackTimeout: 300 },
    });
  });

  it('marks notifications and splits batches', () => {
    expect(one('{"jsonrpc":"2.0","method":"HEARTBEAT","params":[]}')).toMatchObject({ ok: true, notify: true });
    const f = parseFrame('[{"jsonrpc":"2.0","id":1,"method":"HEARTBEAT"},{"jsonrpc":"2.0","id":2,"method":"x"},5]', 10_000);
    expect(f.batch).toBe(true);
    expect(f.items.map((i) => i.ok)).toEqual([true, false, false]);
    expect(one('[]')).toMatchObject({ code: -32600 });
    expect(one(JSON.stringify(Array.from({ length: 1001 }, () => ({}))))).toMatchObject({ code: -32600 });
  });
});
