// Properties of the engine's sentences (src/core/domain/describe.ts and the tracker's): every code a decision can
// return has a sentence, for any numbers; it is one sentence ending in a single period, with no placeholder left over
// (undefined, NaN, an unfilled template). Each table is typed by its code union, so a new code without a row fails tsc.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeNews,
  describeRefusal,
  describeReplacement,
  describeRequestRefusal,
  describeSkip,
  type RecordNews,
} from '../../../src/core/domain/describe.js';
import type { FeeFields } from '../../../src/core/domain/fees.js';
import type { Refusal } from '../../../src/core/domain/refusal.js';
import type { ReplaceDecision, SkipDecision, SkipReason } from '../../../src/core/domain/replacement.js';
import type { RequestRefusal } from '../../../src/core/domain/send-check.js';
import { describeTrackerError } from '../../../src/core/startup-refusals.js';
import { TrackerError, type TrackerErrorCode, type TrackerErrorFacts, type TrackerUnreachableReason } from '@txdesk/tracker';

const hex = (digits: number) =>
  fc.bigInt({ min: 0n, max: 16n ** BigInt(digits) - 1n }).map((n) => `0x${n.toString(16).padStart(digits, '0')}`);
const hash = hex(64);
const address = hex(40);
const wei = fc.bigInt({ min: 0n, max: 10n ** 24n });
const weiString = wei.map(String);
const nonce = fc.nat(100_000);
const kind = fc.constantFrom('cancel' as const, 'speed-up' as const);
const words = fc.stringMatching(/^[a-z][a-z ]{0,40}$/);

function expectOneSentence(s: string): void {
  expect(s).toMatch(/[^.]\.$/);
  expect(s).not.toMatch(/\$\{|undefined|NaN|\[object |\bnull\b/);
}

/** One arbitrary per code of a union: a code without a row is a type error. */
type Arbs<Code extends string, T> = { [C in Code]: fc.Arbitrary<T> };

const skips = {
  'not-stuck': fc.record({
    action: fc.constant('skip'),
    nonce,
    reason: fc.constant('not-stuck'),
    detail: fc.record({ status: fc.constantFrom('receipt' as const, 'confirmation' as const, 'replaced' as const) }),
  }),
  'nonce-mined': fc.record({
    action: fc.constant('skip'),
    nonce,
    reason: fc.constant('nonce-mined'),
    detail: fc.record({ minedBy: hash }),
  }),
  superseded: fc.record({ action: fc.constant('skip'), nonce, reason: fc.constant('superseded'), detail: fc.record({ newer: hash }) }),
  'max-replacements': fc.record({
    action: fc.constant('skip'),
    nonce,
    reason: fc.constant('max-replacements'),
    detail: fc.record({ attempt: fc.nat(50), maxReplacements: fc.nat(50) }),
  }),
  cap: fc.record({
    action: fc.constant('skip'),
    nonce,
    reason: fc.constant('cap'),
    detail: fc.record({ neededWei: weiString, capWei: weiString }),
  }),
  'no-key': fc.record({ action: fc.constant('skip'), nonce, reason: fc.constant('no-key'), detail: fc.record({ from: address }) }),
} satisfies Arbs<SkipReason, SkipDecision>;

const news = {
  signed: fc.record({ code: fc.constant('signed'), nonce, feeWei: wei, raisedFromWei: fc.option(wei, { nil: null }) }),
  'signed-replacement': fc.record({
    code: fc.constant('signed-replacement'),
    kind: fc.constantFrom('generate' as const, 'replace' as const, 'cancel' as const, 'speed-up' as const),
    attempt: fc.nat(50),
    replaces: hash,
    feeWei: wei,
  }),
  known: fc.constant({ code: 'known' as const }),
  'nonce-used': fc.constant({ code: 'nonce-used' as const }),
  sent: fc.record({ code: fc.constant('sent'), retried: fc.boolean() }),
  'sent-again': fc.record({ code: fc.constant('sent-again'), why: fc.option(words, { nil: undefined }) }),
  'tracker-timeout': fc.constant({ code: 'tracker-timeout' as const }),
  mined: fc.record({ code: fc.constant('mined'), block: nonce }),
  confirmed: fc.record({ code: fc.constant('confirmed'), block: nonce }),
  'mined-again': fc.record({ code: fc.constant('mined-again'), block: nonce }),
  lost: fc.record({ code: fc.constant('lost'), winner: hash, block: nonce }),
  withdrawn: fc.record({ code: fc.constant('withdrawn'), block: nonce, why: words }),
  'back-in-play': fc.record({ code: fc.constant('back-in-play'), winner: hash }),
  'nonce-used-elsewhere': fc.record({ code: fc.constant('nonce-used-elsewhere'), nonce }),
} satisfies Arbs<RecordNews['code'], RecordNews>;

const funds = {
  from: address,
  balanceWei: wei,
  valueWei: wei,
  gasLimit: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
  capWei: wei,
  missingWei: wei,
};
const refusals = {
  'unknown-tx': fc.record({ code: fc.constant('unknown-tx'), hash }),
  'no-key': fc.constant({ code: 'no-key' as const }),
  'key-not-loaded': fc.record({ code: fc.constant('key-not-loaded'), kind, from: address }),
  'nonce-mined': fc.record({ code: fc.constant('nonce-mined'), kind, nonce, minedBy: hash }),
  'nonce-used-elsewhere': fc.record({ code: fc.constant('nonce-used-elsewhere'), kind, nonce }),
  'price-above-cap': fc.record({ code: fc.constant('price-above-cap'), feeWei: wei, capWei: wei }),
  'initial-fee-above-cap': fc.record({ code: fc.constant('initial-fee-above-cap'), feeWei: wei, capWei: wei }),
  'given-fee-above-cap': fc.record({ code: fc.constant('given-fee-above-cap'), feeWei: wei, capWei: wei }),
  'bump-above-cap': fc.record({ code: fc.constant('bump-above-cap'), kind, nonce, feeWei: wei, capWei: wei }),
  funds: fc.record({ code: fc.constant('funds'), ...funds }),
} satisfies Arbs<RequestRefusal['code'], RequestRefusal>;

const fees: fc.Arbitrary<FeeFields> = fc.oneof(
  fc.record({ txType: fc.constant('legacy' as const), gasPrice: wei }),
  fc.record({ txType: fc.constant('eip1559' as const), maxFeePerGas: wei, maxPriorityFeePerGas: wei }),
);
const replaceDecision: fc.Arbitrary<ReplaceDecision> = fc.record({
  action: fc.constant('replace' as const),
  fees,
  attempt: fc.nat(50),
  prevFeeWei: wei,
  by: fc.constantFrom('policy' as const, 'beyond-limit' as const, 'cancel' as const, 'speed-up' as const),
  maxReplacements: fc.nat(50),
});

describe('every code has one sentence', () => {
  it.each(Object.keys(skips) as SkipReason[])('skip %s: the event and the nonce problem', (reason) => {
    fc.assert(
      fc.property(skips[reason], (s) => {
        expect(s.reason).toBe(reason);
        expectOneSentence(describeSkip(s));
        expect(describeSkip(s)).toMatch(/^Not replaced/);
        expectOneSentence(describeSkip(s, 'problem'));
      }),
    );
  });

  it.each(Object.keys(news) as RecordNews['code'][])('news %s', (code) => {
    fc.assert(fc.property(news[code], (n) => n.code === code && expectOneSentence(describeNews(n)) === undefined));
  });

  it.each(Object.keys(refusals) as RequestRefusal['code'][])('request refusal %s', (code) => {
    fc.assert(fc.property(refusals[code], (r) => r.code === code && expectOneSentence(describeRequestRefusal(r)) === undefined));
  });

  it('a replacement, whoever asked: the fee, the new hash and why, and the limit only for the policy', () => {
    fc.assert(
      fc.property(replaceDecision, hash, words, (d, h, why) => {
        const s = describeReplacement(d, h, why);
        expectOneSentence(s);
        expect(s).toContain(`${h.slice(0, 10)}… (${why}).`);
        expect(s.includes(`attempt ${d.attempt} of ${d.maxReplacements}:`)).toBe(d.by === 'policy');
        expect(s.includes('(outside the replacement limit)')).toBe(d.by === 'beyond-limit');
      }),
    );
  });

  it('a node refusal, for every failure', () => {
    const failure = fc.constantFrom<Refusal>('underpriced', 'fee-too-low', 'funds', 'pool-full', 'refused', 'unreachable');
    fc.assert(
      fc.property(
        failure,
        words,
        nonce,
        address,
        wei,
        wei,
        fc.option(wei, { nil: null }),
        (f, message, n, from, costWei, feeWei, balanceWei) => {
          expectOneSentence(describeRefusal({ failure: f, message, nonce: n, from, kind: 'replace', costWei, feeWei, balanceWei }));
        },
      ),
    );
  });

  const unreachable: Record<TrackerUnreachableReason, TrackerErrorFacts> = {
    CONNECT_FAILED: { detail: 'connect ECONNREFUSED 127.0.0.1:4000' },
    CONNECTION_DROPPED: {},
    HTTP_STATUS: { httpStatus: 502, detail: 'Bad gateway' },
    NOT_SENT: {},
  };
  it.each<[TrackerErrorCode, TrackerErrorFacts]>([
    ['UNKNOWN_CLIENT_ID', {}],
    ['NOT_FOUND', {}],
    ['UNREACHABLE', {}],
    ...Object.entries(unreachable).map(
      ([reason, facts]) =>
        ['UNREACHABLE', { reason: reason as TrackerUnreachableReason, ...facts }] as [TrackerErrorCode, TrackerErrorFacts],
    ),
  ])("the tracker's %s %o, while running and at start-up (with nothing to restart)", (code, facts) => {
    const net = {
      serviceUrl: 'http://svc:4000',
      origin: { nodeUrl: 'env', serviceUrl: 'env', clientId: 'env', platform: 'env', network: 'env' } as const,
      platform: 'ethereum',
      network: 'local',
    };
    const e = new TrackerError(code, 'x', false, undefined, facts);
    expectOneSentence(describeTrackerError(e, net));
    expectOneSentence(describeTrackerError(e, net, 'starting'));
    if (code !== 'UNREACHABLE') expect(describeTrackerError(e, net, 'starting')).not.toMatch(/restart/);
  });
});

describe('the words of a few sentences people misread', () => {
  const ETH = 10n ** 18n;
  const from = '0x' + 'a1'.repeat(20);
  /** The ETH figures of a funds refusal, in order: balance, cost, value, missing. */
  const figures = (s: string) => [...s.matchAll(/([\d.]+) ETH/g)].map((m) => Number(m[1]));

  it('a value equal to the balance reads equal to it, never larger, and the cost reads above it', () => {
    // What sending "the whole balance" looks like after some gas was spent: 18 significant digits.
    const balanceWei = 99n * ETH + 999_968_499_999_999_999n;
    const capWei = 500_000_000_000n;
    const s = describeRequestRefusal({
      code: 'funds',
      from,
      balanceWei,
      valueWei: balanceWei,
      gasLimit: 21_000n,
      capWei,
      missingWei: 21_000n * capWei,
    });
    const [balance, cost, value] = figures(s);
    expect(s).toContain(
      'The balance of 0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1, 99.999 ETH, does not cover the 100.011 ETH this transaction may cost (99.999 ETH value',
    );
    expect(value).toBe(balance);
    expect(cost).toBeGreaterThan(balance!);
  });

  it('for any amounts: the value never reads above a balance it does not exceed, the cost always above the balance', () => {
    fc.assert(
      fc.property(
        wei,
        wei,
        fc.bigInt({ min: 21_000n, max: 30_000_000n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (balanceWei, valueWei, gasLimit, capWei) => {
          const costWei = valueWei + gasLimit * capWei;
          fc.pre(costWei > balanceWei);
          const [balance, cost, value] = figures(
            describeRequestRefusal({ code: 'funds', from, balanceWei, valueWei, gasLimit, capWei, missingWei: costWei - balanceWei }),
          );
          expect(cost).toBeGreaterThan(balance!);
          if (valueWei <= balanceWei) expect(value).toBeLessThanOrEqual(balance!);
        },
      ),
    );
  });

  it('an attempt another one beat was replaced, not lost', () => {
    const winner = '0x' + 'b2'.repeat(32);
    expect(describeNews({ code: 'lost', winner, block: 12 })).toBe(
      'Another attempt of this nonce, 0xb2b2b2b2…, was mined instead in block 12.',
    );
    expect(describeNews({ code: 'back-in-play', winner })).not.toMatch(/lost/i);
  });
});
