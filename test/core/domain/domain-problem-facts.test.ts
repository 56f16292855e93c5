// A nonce problem's sentence is for people only: the engine's "is this news?" and the renderer's state and fix are
// decided on the facts beside it, so rewording every sentence the core writes changes nothing else.
import { describe, expect, it } from 'vitest';
import { describeRefusal, describeRequestRefusal, describeSkip } from '../../../src/core/domain/describe.js';
import {
  cancelRefusalFacts,
  problemChanges,
  refusalIsNews,
  refusalProblemFacts,
  sameFacts,
  skipProblemFacts,
} from '../../../src/core/domain/problem-facts.js';
import { REASON_OF_REFUSAL, type RefusalFacts } from '../../../src/core/domain/refusal.js';
import { PROBLEM_OF_SKIP, type SkipDecision } from '../../../src/core/domain/replacement.js';
import type { RequestRefusal } from '../../../src/core/domain/send-check.js';
import { nonceState } from '../../../src/renderer/src/store/nonce-state.js';
import type { NonceProblem, NonceProblemReason, TxEvent } from '../../../src/shared/tx-record.js';
import { GWEI, rec } from '../../support/app/core-records.js';

const from = '0x' + 'a1'.repeat(20);
const refusal = (over: Partial<RefusalFacts>): RefusalFacts => ({
  failure: 'funds',
  message: 'insufficient funds',
  nonce: 4,
  from,
  kind: 'replace',
  costWei: 21_000n * 2n * GWEI,
  feeWei: 2n * GWEI,
  balanceWei: GWEI,
  ...over,
});

/** Every problem the core sets, as the engine builds it: reason, sentence (from describe.ts) and facts. */
const problems: { name: string; reason: NonceProblemReason; summary: string; facts: NonceProblem['facts'] & object }[] = [
  ...(['funds', 'underpriced', 'fee-too-low', 'pool-full', 'unreachable', 'refused'] as const).map((failure) => {
    const f = refusal({ failure, message: `the node says no (${failure})` });
    return { name: `refusal ${failure}`, reason: REASON_OF_REFUSAL[failure], summary: describeRefusal(f), facts: refusalProblemFacts(f) };
  }),
  ...(
    [
      { action: 'skip', nonce: 4, reason: 'cap', detail: { neededWei: '1800000001', capWei: '1200000000' } },
      { action: 'skip', nonce: 4, reason: 'max-replacements', detail: { attempt: 3, maxReplacements: 3 } },
      { action: 'skip', nonce: 4, reason: 'no-key', detail: { from } },
    ] satisfies SkipDecision[]
  ).map((s) => ({
    name: `skip ${s.reason}`,
    reason: PROBLEM_OF_SKIP[s.reason]!,
    summary: describeSkip(s, 'problem'),
    facts: skipProblemFacts(s),
  })),
  ...(
    [
      { code: 'bump-above-cap', kind: 'cancel', nonce: 4, feeWei: 3n * GWEI, capWei: 2n * GWEI },
      { code: 'key-not-loaded', kind: 'cancel', from },
    ] satisfies RequestRefusal[]
  ).map((r) => ({
    name: `cancel ${r.code}`,
    reason: (r.code === 'bump-above-cap' ? 'fee-cap' : 'no-key') as NonceProblemReason,
    summary: describeRequestRefusal(r),
    facts: cancelRefusalFacts(r),
  })),
];

/** Other words for the same sentence: what a copy editor might do to the table of sentences. */
const reword = (sentence: string) => `Reworded (${sentence.length} letters): ${sentence.split(' ').reverse().join(' ')}`;

describe('nonce problems are decided on facts', () => {
  it.each(problems)('$name: a reworded sentence is not a new problem, other facts are', ({ reason, summary, facts }) => {
    const was: NonceProblem = { reason, summary, since: '2026-01-01T00:00:00.000Z', facts };
    expect(problemChanges(was, reason, { ...facts })).toBe(false);
    expect(problemChanges({ ...was, summary: reword(summary) }, reason, facts)).toBe(false);
    expect(problemChanges(was, reason, { ...facts, code: 'something-else' })).toBe(true);
    expect(problemChanges(null, reason, facts)).toBe(true);
  });

  it.each(problems)('$name: the renderer shows the same state and fix under any wording', ({ reason, summary, facts }) => {
    const withSentence = (s: string) =>
      nonceState([rec({ n: 1, status: 'pending', problem: { reason, summary: s, since: '2026-01-01T00:00:00.000Z', facts } })]);
    const [said, reworded] = [withSentence(summary), withSentence(reword(summary))];
    expect({ ...reworded, problem: null, lead: null }).toEqual({ ...said, problem: null, lead: null });
  });

  it('gives a cap raise the fee the core decided, from the skip or the refused cancel', () => {
    const fix = (p: (typeof problems)[number]) =>
      nonceState([
        rec({ n: 1, status: 'pending', problem: { reason: p.reason, summary: 'x', since: '2026-01-01T00:00:00.000Z', facts: p.facts } }),
      ]).fix;
    expect(fix(problems.find((p) => p.name === 'skip cap')!)).toEqual({ kind: 'raise-cap', neededWei: '1800000001' });
    expect(fix(problems.find((p) => p.name === 'cancel bump-above-cap')!)).toEqual({
      kind: 'raise-cap',
      neededWei: (3n * GWEI).toString(),
    });
  });
});

describe('a refusal is news on its facts', () => {
  const failed = (facts: object, summary: string): TxEvent => ({
    at: '2026-01-01T00:00:00.000Z',
    kind: 'broadcast-failed',
    summary,
    detail: { facts },
  });

  it('is not news when the node refuses the same bytes for the same reason, however the sentence reads', () => {
    const f = refusal({});
    const facts = refusalProblemFacts(f);
    expect(refusalIsNews(failed(facts, describeRefusal(f)), facts)).toBe(false);
    expect(refusalIsNews(failed(facts, reword(describeRefusal(f))), facts)).toBe(false);
  });

  it('is news after another event, for another balance, or other quoted words', () => {
    const facts = refusalProblemFacts(refusal({}));
    expect(refusalIsNews(undefined, facts)).toBe(true);
    expect(refusalIsNews({ at: '2026-01-01T00:00:00.000Z', kind: 'broadcast', summary: 'Sent.', detail: {} }, facts)).toBe(true);
    expect(refusalIsNews(failed(facts, 's'), refusalProblemFacts(refusal({ balanceWei: 2n * GWEI })))).toBe(true);
    const refused = refusalProblemFacts(refusal({ failure: 'refused', message: 'nope' }));
    expect(refusalIsNews(failed(refused, 's'), refusalProblemFacts(refusal({ failure: 'refused', message: 'not today' })))).toBe(true);
    // The funds sentence does not quote the node: its words changing is not news.
    expect(refusalIsNews(failed(facts, 's'), refusalProblemFacts(refusal({ message: 'insufficient funds: have 1 want 2' })))).toBe(false);
  });

  it('compares facts whatever order they were written in', () => {
    expect(sameFacts({ code: 'cap', neededWei: '1', capWei: '2' }, { capWei: '2', code: 'cap', neededWei: '1' })).toBe(true);
    expect(sameFacts({ code: 'cap' }, undefined)).toBe(false);
  });
});
