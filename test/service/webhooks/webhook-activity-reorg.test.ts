// The rules of address activity under reorganisations, over plain data: when a cursor's block is still held, which
// earlier positions are remembered (fast-check: how near they stay to any depth, how few they are), and after a rollback
// where scanning resumes and what is withdrawn (fast-check over a chain that forks under a webhook that delivered moves).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cursorState,
  holds,
  keepMarks,
  liveMoves,
  newestHeld,
  planRollback,
  type ActivityMark,
  type DeliveredMove,
  type IndexView,
} from '../../../src/service/webhooks/webhook-activity-reorg.js';

/** An index at `tip` storing the hashes given (block -> hash), keeping every hash of the last `keepBlocks` blocks. */
const index = (tip: number, hashes: Record<number, string>, keepBlocks = 1_000): IndexView => ({
  tip,
  keepBlocks,
  hashAt: (b) => (b <= tip ? (hashes[b] ?? null) : null),
});
const mark = (block: number, hash: string): ActivityMark => ({ block, hash });
const move = (block: number, hash: string, key = 'k', removed = false): DeliveredMove => ({ block, hash, key, removed });

describe('whether the index still holds a block as the webhook saw it', () => {
  it.each([
    ['the same hash', mark(10, '0xAB'), index(20, { 10: '0xab' }), true],
    ['another hash there', mark(10, '0xab'), index(20, { 10: '0xcd' }), false],
    ['above the tip (rolled back, not re-indexed yet)', mark(10, '0xab'), index(9, { 10: '0xab' }), false],
    ['no hash inside the checkpoint window (the new block there carries none)', mark(10, '0xab'), index(20, {}), false],
    ['no hash at the window edge', mark(980, '0xab'), index(1_980, {}), false],
    ['no hash below the window (pruned, not replaced)', mark(979, '0xab'), index(1_980, {}), true],
    ['another hash below the window', mark(979, '0xab'), index(1_980, { 979: '0xcd' }), false],
  ])('%s', (_why, at, view, held) => expect(holds(at, view)).toBe(held));
});

describe('where a cursor stands against the index', () => {
  it.each([
    ['its block held: scan on', { block: 10, hash: '0xab' }, index(20, { 10: '0xab' }), 'follow'],
    ['at the tip, held', { block: 20, hash: '0xab' }, index(20, { 20: '0xab' }), 'follow'],
    ['its block replaced, re-indexed past it within one scan', { block: 10, hash: '0xab' }, index(30, { 10: '0xcd' }), 'rollBack'],
    ['its block has no hash now (the new block there carries no checkpoint)', { block: 10, hash: '0xab' }, index(30, {}), 'rollBack'],
    ['the index went below it', { block: 10, hash: '0xab' }, index(8, {}), 'rollBack'],
    ['no hash yet, above the tip: a webhook made while the index catches up', { block: 10, hash: null }, index(8, {}), 'wait'],
    [
      'no hash yet (a new cursor, or one stored before hashes were): takes the index as it is',
      { block: 10, hash: null },
      index(30, {}),
      'follow',
    ],
    ['never started', { block: -1, hash: null }, index(30, {}), 'follow'],
  ] as const)('%s', (_why, cursor, view, state) => expect(cursorState(cursor, view)).toBe(state));
});

describe('the earlier positions a cursor remembers', () => {
  it('keeps the newest below the cursor and thins older ones by depth (a table)', () => {
    const at = (...blocks: number[]) => blocks.map((b) => mark(b, `h${b}`));
    // Depths 1, 2, 4, 8 and the oldest: each mark but the ends more than twice as deep as the one two before it.
    expect(keepMarks(10, at(9, 8, 7, 6, 5, 4, 3, 2, 1), 1_000).map((m) => m.block)).toEqual([9, 8, 6, 2, 1]);
    expect(keepMarks(10, at(12, 10, 9, 9), 1_000)).toEqual(at(9)); // not at or above the cursor, once per block
    expect(keepMarks(100, at(1, 50, 99), 1_000).map((m) => m.block)).toEqual([99, 50, 1]);
    // Below `deepest` only the newest is kept.
    expect(keepMarks(100, at(99, 40, 30, 20), 50).map((m) => m.block)).toEqual([99, 40]);
    expect(keepMarks(100, [], 50)).toEqual([]);
  });

  const candidates = fc.uniqueArray(fc.record({ block: fc.integer({ min: 0, max: 5_000 }), hash: fc.constantFrom('a', 'b') }), {
    selector: (m) => m.block,
    maxLength: 60,
  });

  it('are candidates below the cursor, newest first, the newest always among them, at most one past `deepest`', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5_001 }), candidates, fc.integer({ min: 1, max: 6_000 }), (top, cands, deepest) => {
        const kept = keepMarks(top, cands, deepest);
        const below = cands.filter((c) => c.block < top);
        for (const m of kept) expect(below).toContainEqual(m);
        for (let i = 1; i < kept.length; i++) expect(kept[i]!.block).toBeLessThan(kept[i - 1]!.block);
        if (below.length > 0) expect(kept[0]!.block).toBe(Math.max(...below.map((c) => c.block)));
        const tooDeep = kept.filter((m) => top - m.block > deepest);
        expect(tooDeep.length).toBe(below.some((c) => top - c.block > deepest) ? 1 : 0);
      }),
    );
  });

  it('stay near any depth and few as the cursor moves on: a mark between d and 2d + the largest step down', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 64, max: 20_000 }),
        (steps, deepest) => {
          let top = 0;
          let marks: ActivityMark[] = [];
          const maxStep = Math.max(...steps);
          for (const step of steps) {
            marks = keepMarks(top + step, [mark(top, `h${top}`), ...marks], deepest);
            top += step;
            // Two per doubling of the depth, about: each mark but the ends is more than twice as deep as the one two before.
            expect(marks.length).toBeLessThanOrEqual(2 * Math.log2(deepest) + 4);
            const reach = Math.min(deepest, top); // position 0 is the oldest
            for (let d = 1; d <= reach; d = Math.ceil(d * 1.5)) {
              const first = marks.find((m) => top - m.block >= d);
              expect(first, `depth ${d} at ${top}`).toBeDefined();
              expect(top - first!.block).toBeLessThanOrEqual(2 * d + maxStep);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('after a rollback: where scanning resumes, what is withdrawn', () => {
  it('a withdrawal cancels one earlier delivery of the same move and hash; a move delivered again after it is live', () => {
    const d = [
      move(5, 'x', 'a'),
      move(6, 'y', 'b'),
      move(6, 'y', 'b', true),
      move(6, 'y', 'b'),
      move(7, 'z', 'c'),
      move(7, 'z', 'c', true),
    ];
    expect(liveMoves(d)).toEqual([move(5, 'x', 'a'), move(6, 'y', 'b')]);
    expect(liveMoves(d)[1]).toBe(d[3]);
  });

  it('resumes at the highest known position still held and withdraws every live move above it (a table)', () => {
    // The chain forked above block 12: the index now holds new hashes from 13 on, up to 30.
    const view = index(30, { 4: 'h4', 8: 'h8', 12: 'h12', 14: 'n14', 20: 'n20', 30: 'n30' });
    const marks = [mark(18, 'o18'), mark(10, 'h10'), mark(4, 'h4')];
    const delivered = [
      move(8, 'h8', 'a'),
      move(12, 'h12', 'b'),
      move(14, 'o14', 'c'),
      move(20, 'o20', 'd'),
      move(20, 'o20', 'd', true),
      move(21, 'o21', 'e'),
    ];
    const plan = planRollback(mark(25, 'o25'), marks, delivered, view);
    // Block 10's mark: the new index has no hash there, so it is not known to hold; block 12's delivered move is.
    expect(plan.resume).toEqual({ block: 12, hash: 'h12' });
    expect(plan.withdraw).toEqual([move(14, 'o14', 'c'), move(21, 'o21', 'e')]);
    expect(plan.marks).toEqual([mark(10, 'h10'), mark(4, 'h4')]);
    expect(newestHeld(marks, view)).toEqual(mark(4, 'h4'));
  });

  it('when the index is still below the dropped blocks, resumes below its tip', () => {
    const view = index(11, { 4: 'h4', 11: 'n11' });
    const plan = planRollback(mark(25, 'o25'), [mark(18, 'o18'), mark(4, 'h4')], [move(12, 'o12'), move(18, 'o18')], view);
    expect(plan).toEqual({ resume: { block: 4, hash: 'h4' }, marks: [], withdraw: [move(12, 'o12'), move(18, 'o18')] });
  });

  it('with nothing it remembers still held, resumes just below the lowest of it with an unknown hash', () => {
    const view = index(40, { 30: 'n30', 40: 'n40' });
    expect(planRollback(mark(35, 'o35'), [mark(30, 'o30')], [move(32, 'o32')], view)).toEqual({
      resume: { block: 29, hash: null },
      marks: [],
      withdraw: [move(32, 'o32')],
    });
    expect(planRollback(mark(35, 'o35'), [], [], view)).toEqual({ resume: { block: 34, hash: null }, marks: [], withdraw: [] });
    expect(planRollback(mark(35, 'o35'), [], [], index(20, {}))).toEqual({ resume: { block: 20, hash: null }, marks: [], withdraw: [] });
  });

  it('a mark below the checkpoint window counts as held: the floor of a rollback', () => {
    const view = index(3_000, { 2_500: 'n2500' }, 1_000);
    const plan = planRollback(mark(2_600, 'o2600'), [mark(2_400, 'o2400'), mark(1_500, 'h1500')], [move(2_450, 'o2450')], view);
    expect(plan.resume).toEqual({ block: 1_500, hash: 'h1500' });
    expect(plan.withdraw).toEqual([move(2_450, 'o2450')]);
  });

  /**
   * A model: a webhook follows a chain whose blocks up to `fork` stay and above it are replaced. It delivered the
   * moves at `moveBlocks` up to its cursor and remembered its positions as the scanner does. The new index stores a hash
   * for every block with a move and for its tip, the old rows at or below the index's rollback point stay.
   */
  it('withdraws exactly the moves of dropped blocks, resumes at or below the fork, and re-reads no delivered move', () => {
    const arb = fc
      .record({
        steps: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 60 }),
        moveBlocks: fc.uniqueArray(fc.integer({ min: 1, max: 1_200 }), { maxLength: 40 }),
        forkBack: fc.integer({ min: 0, max: 1_200 }),
        newLength: fc.integer({ min: -50, max: 200 }),
        extraStored: fc.uniqueArray(fc.integer({ min: 0, max: 1_500 }), { maxLength: 30 }),
      })
      .map((r) => {
        const positions = [0];
        for (const s of r.steps) positions.push(positions.at(-1)! + s);
        const cursor = positions.at(-1)!;
        return { ...r, positions, cursor, fork: Math.max(0, cursor - 1 - (r.forkBack % Math.max(1, cursor))) };
      });
    fc.assert(
      fc.property(arb, ({ positions, cursor, fork, moveBlocks, newLength, extraStored }) => {
        const oldHash = (b: number) => (b <= fork ? `h${b}` : `o${b}`);
        const newHash = (b: number) => (b <= fork ? `h${b}` : `n${b}`);
        const deepest = 100_000;
        // The webhook's history: a step to each position, remembering the one before.
        let marks: ActivityMark[] = [];
        for (let i = 1; i < positions.length; i++)
          marks = keepMarks(positions[i]!, [mark(positions[i - 1]!, oldHash(positions[i - 1]!)), ...marks], deepest);
        const delivered = moveBlocks
          .filter((b) => b > 0 && b <= cursor)
          .sort((a, b) => a - b)
          .map((b) => move(b, oldHash(b), `m${b}`));
        // The new index: rolled back to its newest checkpoint at or below the fork, then re-indexed up to its tip.
        const oldStored = new Set([...positions, ...delivered.map((d) => d.block), ...extraStored.filter((b) => b <= cursor)]);
        const ancestor = Math.max(-1, ...[...oldStored].filter((b) => b <= fork));
        const tip = Math.max(ancestor, cursor + newLength);
        const hashes: Record<number, string> = {};
        for (const b of oldStored) if (b <= ancestor) hashes[b] = oldHash(b);
        for (const b of [...moveBlocks, ...extraStored, tip]) if (b > ancestor && b <= tip) hashes[b] = newHash(b);
        const view = index(tip, hashes, deepest);
        expect(cursorState(mark(cursor, oldHash(cursor)), view)).toBe('rollBack');

        const plan = planRollback(mark(cursor, oldHash(cursor)), marks, delivered, view);
        // What the index holds of the old chain now: up to the fork, or to its tip while it re-indexes below the fork
        // (moves above its tip are withdrawn now, and delivered again when the index reaches them).
        const agreed = Math.min(fork, tip);
        expect(plan.resume.block).toBeLessThanOrEqual(agreed);
        expect(plan.withdraw).toEqual(delivered.filter((d) => d.block > agreed));
        // Scanning on from the resume point delivers no move twice: none was delivered between it and there.
        expect(delivered.filter((d) => d.block > plan.resume.block && d.block <= agreed)).toEqual([]);
        if (plan.resume.hash !== null) expect(plan.resume.hash).toBe(newHash(plan.resume.block));
        // Not needlessly deep: there is a remembered position between that depth and twice it, plus a step.
        const maxStep = Math.max(...positions.slice(1).map((p, i) => p - positions[i]!));
        if (agreed >= 0) expect(plan.resume.block).toBeGreaterThanOrEqual(2 * agreed - cursor - maxStep);
        for (const m of plan.marks) expect(m.block).toBeLessThan(plan.resume.block);
      }),
      { numRuns: 300 },
    );
  });
});
