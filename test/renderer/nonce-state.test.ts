// The one vocabulary of nonce states: every combination of records, kinds, problems and histories maps to exactly one
// word, "needs you" always carries a reason and its fix, and the rows of a nonce agree with its card.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptState,
  nonceState,
  problemFromHistory,
  stateLabel,
  stateWords,
  type NonceStateName,
} from '../../src/renderer/src/store/nonce-state.js';
import type { NonceProblem, TxEvent, TxKind, TxRecord, TxStatus } from '../../src/shared/tx-record.js';
import { rec } from '../support/app/core-records.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const problem = (reason: NonceProblem['reason'], summary = 'Something keeps it.'): NonceProblem => ({ reason, summary, since: at(30) });
const ev = (kind: TxEvent['kind'], detail: Record<string, unknown> = {}, summary = kind): TxEvent => ({
  at: at(20),
  kind,
  summary,
  detail,
});

describe('attemptState: a refused replacement leaves its predecessor live', () => {
  it('says Waiting for the attempt still in the pool, Replaced once the nonce moved on', () => {
    const original = rec({ n: 1, attempt: 0, kind: 'generate', status: 'pending', replacedBy: '0x' + '2'.repeat(64) });
    const refusedLead = rec({
      n: 2,
      attempt: 1,
      kind: 'replace',
      replaces: original.transactionHash,
      problem: { reason: 'funds', summary: 'Balance is below.', since: at(3) },
    });
    const s = nonceState([original, refusedLead]);
    expect([s.name, attemptState(original, s), attemptState(refusedLead, s)]).toEqual(['needs-you', 'waiting', 'needs-you']);
    const accepted = nonceState([original, { ...refusedLead, problem: null }]);
    expect(attemptState(original, accepted)).toBe('replaced');
  });
});

describe('nonceState: one word per situation', () => {
  const o = (p: Partial<TxRecord> = {}) => rec({ n: 1, attempt: 0, kind: 'generate', createdAt: at(0), ...p });
  /** A record from a core that did not set `problem` yet: its history is read instead. */
  const old = (p: Partial<TxRecord> = {}) => {
    const { problem: _none, ...r } = o(p);
    return r as TxRecord;
  };
  const r1 = (p: Partial<TxRecord> = {}) => rec({ n: 2, attempt: 1, kind: 'replace', createdAt: at(10), ...p });
  const rows: [string, TxRecord[], TxEvent[] | undefined, NonceStateName, string | null][] = [
    ['just sent, no tracker word', [o()], undefined, 'waiting', null],
    ['signed, history shows no broadcast yet', [old()], [ev('signed')], 'sending', null],
    ['signed and sent', [old()], [ev('signed'), ev('broadcast')], 'waiting', null],
    ['tracker says pending, no problem', [o({ status: 'pending' })], undefined, 'stuck-replacing', null],
    ['a replacement on its way', [o({ status: 'pending', replacedBy: '0x2' }), r1()], undefined, 'stuck-replacing', null],
    ['fee cap problem', [o({ status: 'pending', problem: problem('fee-cap') })], undefined, 'needs-you', 'fee cap'],
    ['replacement limit', [o({ status: 'pending', problem: problem('max-replacements') })], undefined, 'needs-you', 'replacement limit'],
    ['funds', [o({ problem: problem('funds') })], undefined, 'needs-you', 'funds'],
    ['node refusal', [o({ problem: problem('refused') })], undefined, 'needs-you', 'node refusal'],
    ['no key', [o({ status: 'pending', problem: problem('no-key') })], undefined, 'needs-you', 'no signing key'],
    ['node unreachable: the app retries', [o({ problem: problem('unreachable') })], undefined, 'stuck-replacing', null],
    ['underpriced: the app re-bumps', [o({ problem: problem('underpriced') })], undefined, 'stuck-replacing', null],
    [
      'problem cleared by the core wins over an old history',
      [o({ status: 'pending', problem: null })],
      [ev('replacement-skipped', { reason: 'cap' })],
      'stuck-replacing',
      null,
    ],
    [
      'cap skip read from history',
      [old({ status: 'pending' })],
      [ev('pending'), ev('replacement-skipped', { reason: 'cap', neededWei: '1800000001' })],
      'needs-you',
      'fee cap',
    ],
    [
      'limit skip read from history',
      [old({ status: 'pending' })],
      [ev('replacement-skipped', { reason: 'max-replacements' })],
      'needs-you',
      'replacement limit',
    ],
    [
      'superseded skip is not a problem',
      [old({ status: 'pending' })],
      [ev('replacement-skipped', { reason: 'superseded' })],
      'stuck-replacing',
      null,
    ],
    [
      'a later replacement-sent clears an earlier skip',
      [old({ status: 'pending' })],
      [ev('replacement-skipped', { reason: 'cap' }), ev('replacement-sent')],
      'stuck-replacing',
      null,
    ],
    [
      'refused broadcast for lack of funds',
      [old()],
      [ev('broadcast-failed', { failure: 'refused', message: 'insufficient funds for gas * price + value' })],
      'needs-you',
      'funds',
    ],
    [
      'refused broadcast',
      [old()],
      [ev('broadcast-failed', { failure: 'refused', message: 'tx type not supported' })],
      'needs-you',
      'node refusal',
    ],
    [
      'nonce used: the core reconciles',
      [old()],
      [ev('broadcast-failed', { failure: 'nonce-used', message: 'nonce too low' })],
      'waiting',
      null,
    ],
    ['mined', [o({ status: 'receipt' })], undefined, 'mined', null],
    ['confirmed', [o({ status: 'confirmation' })], undefined, 'confirmed', null],
    ['replacement confirmed', [o({ status: 'replaced' }), r1({ status: 'confirmation' })], undefined, 'confirmed', null],
    ['cancel mined', [o({ status: 'replaced' }), r1({ kind: 'cancel', status: 'receipt' })], undefined, 'cancelled', null],
    ['cancel confirmed', [o({ status: 'replaced' }), r1({ kind: 'cancel', status: 'confirmation' })], undefined, 'cancelled', null],
    ['cancel on its way', [o({ status: 'pending', replacedBy: '0x2' }), r1({ kind: 'cancel' })], undefined, 'waiting', null],
    ['taken by a transaction from elsewhere', [o({ status: 'replaced' })], undefined, 'replaced', null],
    [
      'a stale problem on a mined nonce is ignored',
      [o({ status: 'confirmation', problem: problem('fee-cap') })],
      undefined,
      'confirmed',
      null,
    ],
  ];
  it.each(rows)('%s', (_name, records, history, name, reason) => {
    const s = nonceState(records, history);
    expect(s.name).toBe(name);
    expect(s.reason ? stateLabel(s).split(': ')[1] : null).toBe(reason);
    expect(s.open).toBe(!['mined', 'confirmed', 'cancelled', 'replaced'].includes(name));
  });

  it('gives each needs-you reason its one fix', () => {
    const fixes = (['fee-cap', 'max-replacements', 'funds', 'refused', 'no-key'] as const).map(
      (r) => nonceState([o({ problem: problem(r) })]).fix?.kind,
    );
    expect(fixes).toEqual(['raise-cap', 'raise-limit', 'top-up', 'cancel', 'add-key']);
  });

  it("takes the fee a cap raise needs from the problem's facts, else from the skip, never from the sentence", () => {
    const fromDetail = nonceState(
      [old({ status: 'pending' })],
      [ev('replacement-skipped', { reason: 'cap', neededWei: '1800000001', capWei: '1200000000' })],
    );
    expect(fromDetail.fix).toEqual({ kind: 'raise-cap', neededWei: '1800000001' });
    const facts = { code: 'cap', neededWei: '1800000001', capWei: '1200000000' };
    const fromFacts = nonceState([
      o({ status: 'pending', problem: { ...problem('fee-cap', 'A fee the network accepts is 1.8 gwei.'), facts } }),
    ]);
    expect(fromFacts.fix).toEqual({ kind: 'raise-cap', neededWei: '1800000001' });
    // A sentence with a fee in it but no facts (a problem stored before facts) asks for a cap without a figure.
    const noFacts = nonceState([
      o({ status: 'pending', problem: problem('fee-cap', 'a fee the network accepts is 1.8 gwei, above the cap of 1.2 gwei') }),
    ]);
    expect(noFacts.fix).toEqual({ kind: 'raise-cap', neededWei: null });
  });

  it('reads problems only from the newest decision of the history', () => {
    expect(problemFromHistory([])).toBeNull();
    expect(problemFromHistory([ev('replacement-skipped', { reason: 'cap' }), ev('receipt')])).toBeNull();
    expect(problemFromHistory([ev('replacement-sent'), ev('replacement-skipped', { reason: 'no-key' })])?.reason).toBe('no-key');
  });
});

describe('nonceState: properties over any nonce', () => {
  const statuses: (TxStatus | undefined)[] = [undefined, 'pending', 'receipt', 'confirmation', 'replaced'];
  const kinds: (TxKind | undefined)[] = [undefined, 'generate', 'replace', 'cancel', 'speed-up'];
  const reasons: (NonceProblem['reason'] | null | undefined)[] = [
    undefined,
    null,
    'fee-cap',
    'max-replacements',
    'funds',
    'underpriced',
    'refused',
    'unreachable',
    'no-key',
  ];
  const attemptArb = fc.record({
    status: fc.constantFrom(...statuses),
    kind: fc.constantFrom(...kinds),
    reason: fc.constantFrom(...reasons),
  });
  const nonceArb = fc.array(attemptArb, { minLength: 1, maxLength: 6 }).map((list) =>
    list.map((a, i) =>
      rec({
        n: i + 1,
        attempt: i,
        createdAt: at(i),
        status: a.status,
        kind: a.kind,
        problem: a.reason === undefined ? undefined : a.reason === null ? null : problem(a.reason),
      }),
    ),
  );

  it('always names one state of the vocabulary, and its rows agree with it', () => {
    fc.assert(
      fc.property(nonceArb, (records) => {
        const s = nonceState(records);
        expect(Object.keys(stateWords)).toContain(s.name);
        // The lead is the mined attempt when there is one, so "Mined"/"Confirmed" is never said of a loser.
        const mined = records.filter((r) => r.status === 'receipt' || r.status === 'confirmation');
        if (mined.length > 0) expect(mined).toContain(s.lead);
        expect(s.open).toBe(mined.length === 0 && !records.every((r) => r.status === 'replaced'));
        // Needs you comes with a reason and a fix, and nothing else does.
        expect(s.name === 'needs-you').toBe(s.reason !== null);
        expect(s.name === 'needs-you').toBe(s.fix !== null);
        // Exactly one row speaks for the nonce; the others say Replaced, except the attempt a refused lead was meant
        // to replace, which is still in the pool and says Waiting.
        const words = records.map((r) => attemptState(r, s));
        expect(words.filter((w, i) => records[i] === s.lead && w === s.name)).toHaveLength(1);
        const refused = s.open && ['funds', 'underpriced', 'refused', 'unreachable'].includes(s.lead.problem?.reason ?? '');
        records.forEach((r, i) => {
          if (r === s.lead) return;
          const live = refused && s.lead.replaces === r.transactionHash && r.status !== 'replaced';
          expect(words[i]).toBe(live ? 'waiting' : 'replaced');
        });
        // Order of the records never matters.
        expect(nonceState([...records].reverse()).name).toBe(s.name);
      }),
    );
  });
});
