// The hash-to-request mapping of /rpc over replacement histories: every hash of a request follows whichever attempt
// the chain mined (one reprice, several, a speed-up), a request whose nonce went to a cancel is cancelled (and says
// whose), a nonce used by a stranger is said so, and a reorg of the mined attempt sends every answer back to waiting
// and then after the attempt the new chain mined.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { followRequest, type AttemptFacts, type CancelledBy, type NonceOnChain } from '../../../src/core/domain/request-follow.js';
import type { TxKind } from '../../../src/shared/tx-record.js';

const NONCE = 7;
const hashOf = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

/** A nonce's history: a first attempt, reprices and speed-ups, then maybe a cancel and the engine's bumps of it. */
const history: fc.Arbitrary<AttemptFacts[]> = fc
  .record({
    reprices: fc.array(fc.constantFrom<TxKind>('replace', 'speed-up'), { maxLength: 6 }),
    cancels: fc.nat({ max: 3 }),
    by: fc.constantFrom<CancelledBy>('person', 'txdesk'),
  })
  .map(({ reprices, cancels, by }) => {
    const kinds: TxKind[] = ['generate', ...reprices, ...Array.from({ length: cancels }, (): TxKind => 'cancel')];
    return kinds.map((kind, i) => ({ hash: hashOf(i + 1), kind, ...(kind === 'cancel' ? { cancelledBy: by } : {}) }));
  });

/** What the chain says: nothing mined yet, one attempt mined, or the nonce used by a transaction txdesk did not sign. */
type Outcome = { mined: 'none' } | { mined: 'attempt'; index: number } | { mined: 'stranger' };
const outcome = (n: number): fc.Arbitrary<Outcome> =>
  fc.oneof(
    fc.constant<Outcome>({ mined: 'none' }),
    fc.constant<Outcome>({ mined: 'stranger' }),
    fc.nat({ max: n - 1 }).map((index): Outcome => ({ mined: 'attempt', index })),
  );

function chainOf(attempts: readonly AttemptFacts[], o: Outcome): NonceOnChain {
  if (o.mined === 'none') return { latestCount: NONCE, mined: new Set() };
  if (o.mined === 'stranger') return { latestCount: NONCE + 1, mined: new Set() };
  return { latestCount: NONCE + 1, mined: new Set([attempts[o.index]!.hash]) };
}

const answerFor = (asked: AttemptFacts, attempts: readonly AttemptFacts[], o: Outcome) =>
  followRequest(asked, attempts, NONCE, chainOf(attempts, o));

describe('followRequest', () => {
  it('answers every hash of a request with what the chain did to the request as a whole', () => {
    fc.assert(
      fc.property(
        history.chain((attempts) => fc.tuple(fc.constant(attempts), outcome(attempts.length), fc.nat({ max: attempts.length - 1 }))),
        ([attempts, o, askedIndex]) => {
          const asked = attempts[askedIndex]!;
          const mined = o.mined === 'attempt' ? attempts[o.index]! : null;
          const expected =
            o.mined === 'none' || mined === asked
              ? { answer: 'as-is' }
              : o.mined === 'stranger'
                ? { answer: 'nonce-used-elsewhere' }
                : mined!.kind === 'cancel' && asked.kind !== 'cancel'
                  ? { answer: 'cancelled', cancel: mined!.hash, by: mined!.cancelledBy }
                  : { answer: 'attempt', hash: mined!.hash };
          expect(answerFor(asked, attempts, o)).toEqual(expected);
        },
      ),
    );
  });

  it('follows a reorg of the mined attempt: back to waiting, then to the attempt the new chain mined', () => {
    fc.assert(
      fc.property(
        history.chain((attempts) => fc.tuple(fc.constant(attempts), fc.array(outcome(attempts.length), { minLength: 1, maxLength: 6 }))),
        ([attempts, timeline]) => {
          // Each chain view stands alone: nothing of an earlier answer (a receipt since withdrawn) leaks into a later one.
          for (const o of timeline) {
            const first = answerFor(attempts[0]!, attempts, o);
            if (o.mined === 'attempt' && o.index > 0 && attempts[o.index]!.kind !== 'cancel')
              expect(first).toEqual({ answer: 'attempt', hash: attempts[o.index]!.hash });
            if (o.mined === 'none') expect(first).toEqual({ answer: 'as-is' });
          }
        },
      ),
    );
  });

  it('a reprice mined, withdrawn by a reorg, then another reprice mined', () => {
    const attempts: AttemptFacts[] = [
      { hash: hashOf(1), kind: 'generate' },
      { hash: hashOf(2), kind: 'replace' },
      { hash: hashOf(3), kind: 'replace' },
    ];
    const asked = attempts[0]!;
    expect(followRequest(asked, attempts, NONCE, { latestCount: NONCE + 1, mined: new Set([hashOf(2)]) })).toEqual({
      answer: 'attempt',
      hash: hashOf(2),
    });
    expect(followRequest(asked, attempts, NONCE, { latestCount: NONCE, mined: new Set() })).toEqual({ answer: 'as-is' });
    expect(followRequest(asked, attempts, NONCE, { latestCount: NONCE + 1, mined: new Set([hashOf(3)]) })).toEqual({
      answer: 'attempt',
      hash: hashOf(3),
    });
  });

  it("a cancel's own hashes follow the cancel; a cancel before the record said who asked counts as a person's", () => {
    const attempts: AttemptFacts[] = [
      { hash: hashOf(1), kind: 'generate' },
      { hash: hashOf(2), kind: 'cancel' },
      { hash: hashOf(3), kind: 'cancel' },
    ];
    const chain = { latestCount: NONCE + 1, mined: new Set([hashOf(3)]) };
    expect(followRequest(attempts[1]!, attempts, NONCE, chain)).toEqual({ answer: 'attempt', hash: hashOf(3) });
    expect(followRequest(attempts[0]!, attempts, NONCE, chain)).toEqual({ answer: 'cancelled', cancel: hashOf(3), by: 'person' });
  });

  it('a nonce the count says is used while the asked hash is mined is that hash, not a stranger', () => {
    const attempts: AttemptFacts[] = [{ hash: hashOf(1), kind: 'generate' }];
    expect(followRequest(attempts[0]!, attempts, NONCE, { latestCount: NONCE + 5, mined: new Set([hashOf(1)]) })).toEqual({
      answer: 'as-is',
    });
    expect(followRequest(attempts[0]!, attempts, NONCE, { latestCount: NONCE + 5, mined: new Set() })).toEqual({
      answer: 'nonce-used-elsewhere',
    });
  });
});
