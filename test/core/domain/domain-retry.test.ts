// Table tests of the retry policy for skipped replacements: every skip reason against every status of the newest
// attempt and of its siblings, the shapes a history can take, and when a repeated skip is worth recording.
import { describe, expect, it } from 'vitest';
import type { ReplacementDecision, SkipReason } from '../../../src/core/domain/replacement.js';
import { newestAttempt, skipIsNews, waitingForRetry } from '../../../src/core/domain/replacement-retry.js';
import type { TxEvent, TxEventKind, TxRecord, TxStatus } from '../../../src/shared/tx-record.js';
import { GWEI, hashOf, policy, rec } from '../../support/app/core-records.js';

const ev = (kind: TxEventKind, detail: Record<string, unknown> = {}): TxEvent => ({
  at: '2026-01-01T00:00:01.000Z',
  kind,
  summary: kind,
  detail,
});
const skip = (reason: string | undefined, extra: Record<string, unknown> = {}) =>
  ev('replacement-skipped', { ...(reason === undefined ? {} : { reason }), ...extra });
const histories = (entries: [TxRecord, TxEvent[]][]) => new Map(entries.map(([r, h]) => [r.transactionHash, h]));

const REASONS: (SkipReason | 'unknown' | undefined)[] = [
  'not-stuck',
  'nonce-mined',
  'superseded',
  'max-replacements',
  'cap',
  'no-key',
  'unknown',
  undefined,
];
const STATUSES: (TxStatus | undefined)[] = [undefined, 'pending', 'receipt', 'confirmation', 'replaced'];
const SIBLINGS: (TxStatus | undefined | 'none')[] = ['none', undefined, 'pending', 'receipt', 'confirmation', 'replaced'];

describe('waitingForRetry, every reason x newest status x sibling status x limit', () => {
  const rows = REASONS.flatMap((reason) =>
    STATUSES.flatMap((status) =>
      SIBLINGS.flatMap((sibling) =>
        [1, 2, 3].map((maxReplacements) => {
          // The newest is attempt 2; the limit is below, at, or above it.
          const retryable = reason === 'cap' || reason === 'no-key' || (reason === 'max-replacements' && 2 < maxReplacements);
          const open = (status === undefined || status === 'pending') && sibling !== 'receipt' && sibling !== 'confirmation';
          return { reason, status, sibling, maxReplacements, want: retryable && open };
        }),
      ),
    ),
  );

  it(`covers ${rows.length} combinations`, () => {
    for (const { reason, status, sibling, maxReplacements, want } of rows) {
      const newest = rec({ n: 3, nonce: 7, attempt: 2, replaces: hashOf(2), ...(status ? { status } : {}) });
      const older = rec({
        n: 2,
        nonce: 7,
        attempt: 1,
        replacedBy: newest.transactionHash,
        ...(sibling !== 'none' && sibling ? { status: sibling } : {}),
      });
      const records = sibling === 'none' ? [newest] : [older, newest];
      const h = histories([[newest, [ev('signed'), ev('broadcast'), ev('pending'), skip(reason)]]]);
      const got = waitingForRetry(records, h, policy({ maxReplacements }));
      const label = JSON.stringify({ reason, status, sibling, maxReplacements });
      expect(got !== null, label).toBe(want);
      if (got) {
        expect(got.record, label).toBe(newest);
        expect(got.others, label).toEqual(sibling === 'none' ? [] : [older]);
        expect(got.reason, label).toBe(reason);
        expect(got.lastSkip.detail.reason, label).toBe(reason);
      }
    }
  });
});

describe('waitingForRetry, history shapes', () => {
  const a = rec({ n: 1, nonce: 3, status: 'pending' });
  const p = policy({ maxReplacements: 5 });
  type Row = { name: string; records: TxRecord[]; history: [TxRecord, TxEvent[]][]; want: string | null };
  const b = rec({ n: 2, nonce: 3, attempt: 1, replaces: a.transactionHash });
  const aReplaced = { ...a, replacedBy: b.transactionHash };
  const rows: Row[] = [
    { name: 'no records', records: [], history: [], want: null },
    { name: 'no decision yet (fresh pending)', records: [a], history: [[a, [ev('signed'), ev('broadcast'), ev('pending')]]], want: null },
    { name: 'history missing from the map', records: [a], history: [], want: null },
    { name: 'skipped for the cap', records: [a], history: [[a, [ev('pending'), skip('cap')]]], want: 'cap' },
    {
      name: 'skipped, then sent again after a restart: still waiting',
      records: [a],
      history: [[a, [ev('pending'), skip('cap'), ev('rebroadcast'), ev('broadcast-failed')]]],
      want: 'cap',
    },
    {
      name: 'the newest skip counts, not an older one',
      records: [a],
      history: [[a, [ev('pending'), skip('cap'), skip('superseded')]]],
      want: null,
    },
    {
      name: 'a later retryable skip after a final one',
      records: [a],
      history: [[a, [ev('pending'), skip('superseded'), skip('cap')]]],
      want: 'cap',
    },
    { name: 'a missing key is waited for', records: [a], history: [[a, [ev('pending'), skip('cap'), skip('no-key')]]], want: 'no-key' },
    {
      name: 'skipped, then replaced: the decision was a replacement',
      records: [a],
      history: [[a, [ev('pending'), skip('cap'), ev('replacement-sent')]]],
      want: null,
    },
    {
      name: 'the skip is on an older attempt, the newest has none',
      records: [aReplaced, b],
      history: [
        [aReplaced, [ev('pending'), skip('cap'), ev('replacement-sent')]],
        [b, [ev('signed'), ev('broadcast')]],
      ],
      want: null,
    },
    {
      name: 'the newest attempt, refused as underpriced, had its re-bump skipped (no status)',
      records: [aReplaced, b],
      history: [[b, [ev('signed'), ev('broadcast-failed', { failure: 'underpriced' }), skip('cap')]]],
      want: 'cap',
    },
    {
      name: 'a newest attempt already replaced by a link (race) is not waiting',
      records: [{ ...a, replacedBy: hashOf(9) }],
      history: [[a, [skip('cap')]]],
      want: null,
    },
    {
      name: 'equal attempts (a refused first transaction, nonce reused): the later one is the newest',
      records: [{ ...a, createdAt: '2026-01-01T00:00:05.000Z' }, rec({ n: 5, nonce: 3 })],
      history: [
        [a, [ev('pending'), skip('max-replacements')]],
        [rec({ n: 5 }), [ev('broadcast-failed')]],
      ],
      want: 'max-replacements',
    },
  ];
  it.each(rows)('$name', ({ records, history, want }) => {
    const got = waitingForRetry(records, histories(history), p);
    expect(got?.reason ?? null).toBe(want);
  });

  it('max-replacements waits exactly until the limit exceeds the newest attempt', () => {
    const r = rec({ n: 1, attempt: 3, status: 'pending' });
    const h = histories([[r, [skip('max-replacements', { attempt: 3, maxReplacements: 3 })]]]);
    expect([0, 1, 2, 3, 4, 10].map((m) => waitingForRetry([r], h, policy({ maxReplacements: m })) !== null)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
  });

  it('cap is always worth asking, whatever the cap is now', () => {
    const h = histories([[a, [skip('cap', { neededWei: String(2n * GWEI), capWei: String(GWEI) })]]]);
    for (const maxFeeWei of ['1000000000', '1', String(1000n * GWEI)])
      expect(waitingForRetry([a], h, policy({ maxFeeWei }))?.reason).toBe('cap');
  });
});

describe('newestAttempt', () => {
  it.each([
    { name: 'highest attempt', records: [rec({ n: 1 }), rec({ n: 2, attempt: 2 }), rec({ n: 3, attempt: 1 })], want: 2 },
    { name: 'equal attempts: later created', records: [rec({ n: 1, createdAt: '2026-01-02T00:00:00.000Z' }), rec({ n: 2 })], want: 1 },
    { name: 'equal attempts and times: later in the list', records: [rec({ n: 1 }), rec({ n: 2 })], want: 2 },
  ])('$name', ({ records, want }) => {
    expect(newestAttempt(records)?.transactionHash).toBe(hashOf(want));
  });
  it('none of nothing', () => expect(newestAttempt([])).toBeNull());
});

describe('skipIsNews', () => {
  type Skip = Extract<ReplacementDecision, { action: 'skip' }>;
  const capSkip = (neededWei: bigint, capWei: bigint): Skip => ({
    action: 'skip',
    reason: 'cap',
    nonce: 1,
    detail: { neededWei: String(neededWei), capWei: String(capWei) },
  });
  const maxSkip = (attempt: number, maxReplacements: number): Skip => ({
    action: 'skip',
    reason: 'max-replacements',
    nonce: 1,
    detail: { attempt, maxReplacements },
  });
  const lastCap = skip('cap', { neededWei: String(2n * GWEI), capWei: String(GWEI) });
  const lastMax = skip('max-replacements', { attempt: 2, maxReplacements: 2 });
  it.each([
    { name: 'identical cap skip', last: lastCap, next: capSkip(2n * GWEI, GWEI), want: false },
    { name: 'needed fee up 1 wei', last: lastCap, next: capSkip(2n * GWEI + 1n, GWEI), want: false },
    { name: 'needed fee up 9.9%', last: lastCap, next: capSkip((2n * GWEI * 1099n) / 1000n, GWEI), want: false },
    { name: 'needed fee up 10%', last: lastCap, next: capSkip((2n * GWEI * 11n) / 10n, GWEI), want: true },
    { name: 'needed fee down 10%', last: lastCap, next: capSkip((2n * GWEI * 9n) / 10n, GWEI), want: true },
    { name: 'needed fee down 5%', last: lastCap, next: capSkip((2n * GWEI * 95n) / 100n, GWEI), want: false },
    { name: 'the cap changed (the user raised it, still too low)', last: lastCap, next: capSkip(2n * GWEI, GWEI + 1n), want: true },
    { name: 'cap -> max-replacements (the user lowered the limit)', last: lastCap, next: maxSkip(2, 1), want: true },
    { name: 'max-replacements -> cap (limit raised, fee too high)', last: lastMax, next: capSkip(2n * GWEI, GWEI), want: true },
    { name: 'identical max-replacements skip', last: lastMax, next: maxSkip(2, 2), want: false },
    { name: 'max-replacements with another limit', last: lastMax, next: maxSkip(2, 1), want: true },
    {
      name: 'a recorded cap skip without a readable fee',
      last: skip('cap', { capWei: String(GWEI) }),
      next: capSkip(2n * GWEI, GWEI),
      want: true,
    },
    {
      name: 'any other reason is news after a cap skip',
      last: lastCap,
      next: { action: 'skip', reason: 'nonce-mined', nonce: 1, detail: { minedBy: hashOf(1) } } as Skip,
      want: true,
    },
  ])('$name -> $want', ({ last, next, want }) => {
    expect(skipIsNews(last, next)).toBe(want);
  });
});
