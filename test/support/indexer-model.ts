// Compares every listing (owner or contract x order x direction x contracts filter x page size) with a model.
import { expect } from 'vitest';
import type { Db } from '../../src/lib/sqlite.js';
import { queryTokens, type TokenQueryInput } from '../../src/service/listing/listing-store.js';
import { ORDER_BY, type OrderBy, type OrderDirection, type Token } from '../../src/shared/listing.js';

export interface ModelEntry {
  contract: string;
  id: bigint;
  owner: string;
  block: number;
  logIndex: number;
}

export function modelOrder(orderBy: OrderBy, direction: OrderDirection) {
  const cmp = (a: ModelEntry, b: ModelEntry): number => {
    const byId = a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    const byContract = a.contract < b.contract ? -1 : a.contract > b.contract ? 1 : 0;
    if (orderBy === 'transfer_block_number') return a.block - b.block || a.logIndex - b.logIndex;
    if (orderBy === 'token_id') return byId || byContract;
    return byContract || byId;
  };
  return direction === 'asc' ? cmp : (a: ModelEntry, b: ModelEntry) => -cmp(a, b);
}

export interface MatchOptions {
  owners: string[];
  contracts: string[];
  /** contracts filters to try (undefined = no filter). */
  filters: (string[] | undefined)[];
  sizes: number[];
  /** Extra per-token checks (uri, contract metadata). */
  check?: (t: Token) => void;
  /** Extra query fields, e.g. a forced filterPlan. */
  extra?: Partial<TokenQueryInput>;
}

/** Pages through every combination until an empty page; asserts exact coverage, order and totalCount. Returns the query count. */
export function expectListingsMatch(db: Db, model: readonly ModelEntry[], o: MatchOptions): number {
  let queries = 0;
  const scopes = [...o.owners.map((owner) => ({ owner })), ...o.contracts.map((contract) => ({ contract }))];
  for (const scope of scopes) {
    for (const filter of o.filters) {
      const inScope = model.filter(
        (m) => ('owner' in scope ? m.owner === scope.owner : m.contract === scope.contract) && (!filter || filter.includes(m.contract)),
      );
      for (const orderBy of ORDER_BY) {
        for (const direction of ['asc', 'desc'] as const) {
          const expected = [...inScope].sort(modelOrder(orderBy, direction)).map((m) => `${m.contract}:${m.id}:${m.owner}`);
          for (const size of o.sizes) {
            const got: string[] = [];
            for (let page = 0; ; page++) {
              const r = queryTokens(db, { ...o.extra, ...scope, ...(filter ? { contracts: filter } : {}), page, size, orderBy, direction });
              queries++;
              const label = JSON.stringify({ ...scope, filter, orderBy, direction, size, page });
              expect(r.totalCount, label).toBe(expected.length);
              expect(r.tokens.length, label).toBeLessThanOrEqual(size);
              for (const t of r.tokens) o.check?.(t);
              got.push(...r.tokens.map((t) => `${t.contract.address}:${t.id}:${t.owner}`));
              if (r.tokens.length < size) {
                expect(page, label).toBe(Math.floor(expected.length / size));
                break;
              }
            }
            expect(got, JSON.stringify({ ...scope, filter, orderBy, direction, size })).toEqual(expected);
          }
        }
      }
    }
  }
  return queries;
}
