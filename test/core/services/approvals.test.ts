// The approval queue on plain data and a fake clock's worth of real timers: a request waits until answered, a no or a
// time-out declines it (DECLINED, the 4001 of /rpc), a standing rule lets transactions through up to its daily
// most-cost and asks again past it, the dev chain never asks, and stopping declines whatever waits.
import { describe, expect, it } from 'vitest';
import type { StoredRule } from '../../../src/core/domain/approval-rules.js';
import { ruleAllows, spentWithin, withSpend, calledFunction } from '../../../src/core/domain/approval-rules.js';
import { createApprovals } from '../../../src/core/services/approvals.js';
import { defaultPolicy } from '../../../src/core/config.js';
import { silentLogger } from '../../../src/lib/log.js';
import type { ApprovalRequest, Requester } from '../../../src/shared/approvals.js';
import { isTxdeskError } from '../../../src/shared/errors.js';

const tool: Requester = { kind: 'token', fingerprint: '1a2b3c4d', label: 'a tool with the API token …1a2b3c4d' };
const other: Requester = { kind: 'token', fingerprint: 'ffffffff', label: 'another token' };
const payload = (value: string) => ({ to: '0x' + '2'.repeat(40), value, input: '0x', gasLimit: '21000' });
const policy = { ...defaultPolicy, maxFeeWei: '1000000000' }; // 1 gwei cap: 21,000 gas cost 0.000021 ETH at most

function world(required = true, timeoutMs = 60_000) {
  let rules: StoredRule[] = [];
  let now = Date.parse('2026-11-28T00:00:00Z');
  const seen: ApprovalRequest[][] = [];
  const approvals = createApprovals({
    required,
    clock: { now: () => now },
    timeoutMs: () => timeoutMs,
    policy: () => policy,
    rules: { load: () => rules, save: (r) => void (rules = r) },
    changed: (w) => seen.push(w),
    log: silentLogger,
  });
  return { approvals, seen, rules: () => rules, advance: (ms: number) => void (now += ms) };
}

const declinedWith = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(isTxdeskError(e, 'DECLINED')).toBe(true);
  return (e as Error).message;
};

describe('approvals', () => {
  it('a transaction waits for a yes, shows what it does and what it may cost', async () => {
    const w = world();
    const gate = w.approvals.gateTransaction({ ...payload('5'), input: '0xa9059cbb' + '0'.repeat(128) }, tool);
    const [waiting] = w.approvals.list();
    expect(waiting!.transaction).toMatchObject({
      value: '5',
      selector: '0xa9059cbb',
      functionName: 'transfer(address,uint256)',
      feeCapWei: '1000000000',
      maxCostWei: String(5n + 21_000n * 10n ** 9n),
    });
    expect(waiting!.requester).toEqual(tool);
    w.approvals.decide(waiting!.id, { approve: true });
    await gate;
    expect(w.approvals.list()).toEqual([]);
    expect(w.seen.map((l) => l.length)).toEqual([1, 0]);
  });

  it('a no and a time-out decline; an answer to nothing waiting is a 404', async () => {
    const w = world(true, 50);
    const no = w.approvals.gateMessage(new TextEncoder().encode('hello'), tool);
    const [m] = w.approvals.list();
    expect(m!.message).toEqual({ text: 'hello', hex: '0x68656c6c6f' });
    w.approvals.decide(m!.id, { approve: false });
    expect(await declinedWith(no)).toMatch(/declined in the txdesk app/);
    expect(() => w.approvals.decide(m!.id, { approve: true })).toThrow(/No request/);
    const late = w.approvals.gateTypedData({ domain: { name: 'x' }, types: {}, primaryType: 'Mail', message: { a: 1 } }, tool);
    expect(await declinedWith(late)).toMatch(/within 0 s|within \d+ s/);
  });

  it('binary messages are shown as hex only', async () => {
    const w = world();
    const p = w.approvals.gateMessage(Uint8Array.from([0xff, 0xfe]), tool);
    expect(w.approvals.list()[0]!.message).toEqual({ text: null, hex: '0xfffe' });
    w.approvals.stop();
    expect(await declinedWith(p)).toMatch(/stopped/);
  });

  it('a standing rule lets small transactions through per requester until its daily limit, then asks again', async () => {
    const w = world();
    const cost = 21_000n * 10n ** 9n; // value 0 at the 1 gwei cap
    const first = w.approvals.gateTransaction(payload('0'), tool);
    w.approvals.decide(w.approvals.list()[0]!.id, { approve: true, allowPerDayWei: String(3n * cost) });
    await first;
    expect(w.approvals.rules()).toMatchObject([{ requester: tool, maxPerDayWei: String(3n * cost), spentWei: String(cost) }]);
    await w.approvals.gateTransaction(payload('0'), tool); // within: no question
    await w.approvals.gateTransaction(payload('0'), tool);
    expect(w.approvals.list()).toEqual([]);
    const past = w.approvals.gateTransaction(payload('0'), tool); // a fourth would exceed the day
    expect(w.approvals.list()).toHaveLength(1);
    const another = w.approvals.gateTransaction(payload('0'), other); // another token has no rule
    expect(w.approvals.list()).toHaveLength(2);
    w.approvals.stop();
    await declinedWith(past);
    await declinedWith(another);
    w.advance(24 * 3600 * 1000 + 120_000); // a day (and the minute they were counted in) later the spends have left the window
    await w.approvals.gateTransaction(payload('0'), tool);
    expect(w.approvals.rules()[0]!.spentWei).toBe(String(cost));
    w.approvals.revoke(w.approvals.rules()[0]!.id);
    expect(w.approvals.rules()).toEqual([]);
    const asks = w.approvals.gateTransaction(payload('0'), tool);
    expect(w.approvals.list()).toHaveLength(1);
    w.approvals.stop();
    await declinedWith(asks);
  });

  it('a rule comes only with the approval of a transaction', async () => {
    const w = world();
    const p = w.approvals.gateMessage(new Uint8Array([1]), tool);
    expect(() => w.approvals.decide(w.approvals.list()[0]!.id, { approve: true, allowPerDayWei: '1' })).toThrow(
      /only with the approval of a transaction/,
    );
    w.approvals.stop();
    await declinedWith(p);
  });

  it('on the dev chain nothing waits', async () => {
    const w = world(false);
    await w.approvals.gateTransaction(payload('1'), tool);
    await w.approvals.gateMessage(new Uint8Array([1]), tool);
    expect(w.seen).toEqual([]);
  });
});

describe('approval rules (pure)', () => {
  const rule: StoredRule = { id: 'r', requester: tool, maxPerDayWei: '100', createdAt: '2026-01-01T00:00:00.000Z', spends: [] };
  it('counts spends inside the 24 h window only', () => {
    const t0 = Date.parse('2026-01-02T00:00:00Z');
    const day = 24 * 3600 * 1000;
    const sameMinute = withSpend(withSpend(rule, 60n, t0), 30n, t0 + 1000);
    expect(sameMinute.spends).toHaveLength(1); // kept per minute
    const r = withSpend(sameMinute, 5n, t0 + 61_000);
    expect(spentWithin(r, t0 + 62_000)).toBe(95n);
    expect(ruleAllows(r, 5n, t0 + 62_000)).toBe(true);
    expect(ruleAllows(r, 6n, t0 + 62_000)).toBe(false);
    // Never early: a spend counts for at least a full day, and leaves within a minute after that.
    expect(spentWithin(r, t0 + day + 1000)).toBe(95n);
    expect(spentWithin(r, t0 + day + 60_000)).toBe(5n);
    expect(spentWithin(r, t0 + day + 121_000)).toBe(0n);
  });
  it('names well-known functions and leaves the rest to their selector', () => {
    expect(calledFunction('0x' + '1'.repeat(40), '0x42842e0e' + '0'.repeat(192))).toEqual({
      selector: '0x42842e0e',
      functionName: 'safeTransferFrom(address,address,uint256)',
    });
    expect(calledFunction('0x' + '1'.repeat(40), '0xdeadbeef')).toEqual({ selector: '0xdeadbeef', functionName: null });
    expect(calledFunction(null, '0x6080')).toEqual({ selector: null, functionName: null });
    expect(calledFunction('0x' + '1'.repeat(40), '0x')).toEqual({ selector: null, functionName: null });
  });
});
