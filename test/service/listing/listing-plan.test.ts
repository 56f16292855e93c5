// The listing's query plan (listing-plan.ts), decided once for both backends: which list a query reads, and how an
// owner's filtered holdings give a page. Pure; the backends' answers are compared in listing-store(-pg).test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planHoldings, planQuery, type Holdings } from '../../../src/service/listing/listing-plan.js';
import type { TokenQueryInput } from '../../../src/service/listing/listing-reads.js';

const A = '0x' + 'a'.repeat(40);
const B = '0x' + 'b'.repeat(40);
const base: TokenQueryInput = { page: 0, size: 10, orderBy: 'transfer_block_number', direction: 'asc' };

/** Contracts named by one byte of address; `n` is the owner's count in each. */
const holdings = (ns: number[], mine: number | null = null): Holdings<{ key: number; n: number }> => ({
  kept: ns.map((n, key) => ({ key, n })),
  mine,
  addr: (c) => Buffer.from([c.key]),
  count: (c) => c.n,
  tokenCount: ns.reduce((s, n) => s + n, 0) + 1000,
});

describe('planQuery', () => {
  it('reads a whole list when nothing filters it', () => {
    expect(planQuery({ ...base, contract: A.toUpperCase() })).toEqual({
      kind: 'contract',
      address: A,
      order: 'transfer',
      standard: undefined,
    });
    expect(planQuery({ ...base, owner: A, orderBy: 'contract_address' })).toEqual({ kind: 'owner', owner: A, order: 'contract_address' });
    expect(planQuery({ ...base, owner: A, contracts: [] })).toMatchObject({ kind: 'owner' });
  });

  it('is empty for a contract the filter leaves out, and reads the holdings for a filter or a standard', () => {
    expect(planQuery({ ...base, contract: A, contracts: [B] })).toEqual({ kind: 'empty' });
    expect(planQuery({ ...base, owner: A, contracts: [B, B.toUpperCase()] })).toEqual({
      kind: 'holdings',
      owner: A,
      filter: [B],
      standard: undefined,
    });
    expect(planQuery({ ...base, owner: A, standard: 'ERC1155' })).toEqual({
      kind: 'holdings',
      owner: A,
      filter: null,
      standard: 'ERC1155',
    });
    expect(() => planQuery(base)).toThrow(/owner or a contract/);
  });
});

describe('planHoldings', () => {
  it('keeps the whole list when a standard filters nothing out', () => {
    expect(planHoldings({ ...base, standard: 'ERC721' }, holdings([3, 4], 2), 'sqlite')).toEqual({ kind: 'owner', order: 'transfer' });
    expect(planHoldings(base, holdings([], null), 'sqlite')).toEqual({ kind: 'empty' });
    expect(planHoldings({ ...base, page: 1 }, holdings([3, 4]), 'postgres')).toEqual({ kind: 'past-end', total: 7 });
  });

  it('picks the pair list, the slices or a way to combine several', () => {
    expect(planHoldings(base, holdings([0, 5]), 'sqlite')).toMatchObject({ kind: 'pair', total: 5, held: { n: 5 } });
    expect(planHoldings({ ...base, orderBy: 'token_id' }, holdings([5]), 'sqlite')).toMatchObject({
      kind: 'slices',
      parts: [{ from: 0, take: 5 }],
    });
    expect(planHoldings({ ...base, orderBy: 'token_id' }, holdings([5, 5]), 'postgres')).toMatchObject({
      kind: 'several',
      byTransfer: false,
      combine: 'merge',
    });
    expect(planHoldings({ ...base, several: 'select' }, holdings([5, 5]), 'sqlite')).toMatchObject({ kind: 'several', combine: 'select' });
    expect(() => planHoldings({ ...base, several: 'select' }, holdings([5, 5]), 'postgres')).toThrow(/cannot select/);
    // Many contracts: PostgreSQL scans the owner's list instead of a subquery each.
    expect(planHoldings(base, holdings(Array.from({ length: 40 }, () => 3)), 'postgres')).toMatchObject({ combine: 'scan' });
  });

  it('slices cover exactly the page, in contract order for the direction', () => {
    const arb = fc.record({
      ns: fc.array(fc.nat(30), { maxLength: 8 }),
      page: fc.nat(20),
      size: fc.integer({ min: 1, max: 25 }),
      direction: fc.constantFrom('asc' as const, 'desc' as const),
    });
    fc.assert(
      fc.property(arb, ({ ns, page, size, direction }) => {
        const plan = planHoldings({ ...base, orderBy: 'contract_address', page, size, direction }, holdings(ns), 'sqlite');
        const total = ns.reduce((s, n) => s + n, 0);
        if (page * size >= total) {
          expect(plan).toEqual(ns.length === 0 ? { kind: 'empty' } : { kind: 'past-end', total });
          return;
        }
        if (plan.kind !== 'slices') throw new Error(`expected slices, got ${plan.kind}`);
        expect(plan.parts.reduce((s, p) => s + p.take, 0)).toBe(Math.min(size, total - page * size));
        const keys = plan.parts.map((p) => p.held.of.key);
        expect(keys).toEqual([...keys].sort((a, b) => (direction === 'asc' ? a - b : b - a)));
        for (const p of plan.parts) expect(p.from + p.take).toBeLessThanOrEqual(p.held.n);
      }),
    );
  });
});
