// Token-browser bookkeeping: pagination URLs to pages, query building, metadata still to fetch, known collections.
import { describe, expect, it } from 'vitest';
import {
  mergeContracts,
  missingUris,
  pageFromUrl,
  pageNav,
  toTokenQuery,
  defaultControls,
} from '../../src/renderer/src/store/token-logic.js';
import { tokenQueryString } from '../../src/shared/listing.js';
import type { Token } from '../../src/shared/listing.js';

const c1 = { address: '0x' + '1'.repeat(40), name: 'Harbor', symbol: 'HBR', totalSupply: 3 };
const c2 = { address: '0x' + '2'.repeat(40), name: 'Birds', symbol: 'BRD', totalSupply: 3 };
const token = (id: string, contract = c1, uri = `http://m/${id}`): Token => ({ id, owner: '0x' + 'f'.repeat(40), uri, contract });

describe('pagination', () => {
  it.each([
    ['', null],
    ['http://127.0.0.1:3000/nft/v1/accounts/0xab/tokens?page=3&size=6', 3],
    ['http://x/tokens?size=6', null],
    ['http://x/tokens?page=-1', null],
    ['not a url', null],
  ])('pageFromUrl(%s) = %s', (url, page) => expect(pageFromUrl(url)).toBe(page));

  it('prev/next follow the URLs and the page count follows the total', () => {
    const controls = { ...defaultControls, page: 1, size: 6 };
    const nav = pageNav(
      { data: [], pagination: { totalCount: 13, prevUrl: 'http://x/t?page=0&size=6', nextUrl: 'http://x/t?page=2&size=6' } },
      controls,
    );
    expect(nav).toEqual({ prev: 0, next: 2, pageCount: 3 });
    expect(pageNav({ data: [], pagination: { totalCount: 0, prevUrl: '', nextUrl: '' } }, controls)).toEqual({
      prev: null,
      next: null,
      pageCount: 1,
    });
  });
});

describe('query', () => {
  it('omits an empty contract filter and joins a non-empty one', () => {
    expect(toTokenQuery(defaultControls)).toEqual({ page: 0, size: 12, order_by: 'transfer_block_number', order_direction: 'desc' });
    const q = toTokenQuery({ ...defaultControls, contracts: [c1.address, c2.address], orderBy: 'token_id', direction: 'asc', page: 2 });
    expect(tokenQueryString(q).toString()).toBe(
      `page=2&size=12&order_by=token_id&order_direction=asc&contractAddresses=${c1.address}%2C${c2.address}`,
    );
  });
});

describe('metadata and collections', () => {
  it('asks only for URIs neither known nor in flight, once each', () => {
    const tokens = [token('1'), token('2'), token('3', c1, ''), token('1', c2, 'http://m/1')];
    expect(missingUris(tokens, { 'http://m/2': null })).toEqual(['http://m/1']);
  });

  it('collects collections across pages without duplicates, sorted by name', () => {
    const a = mergeContracts([], [token('1', c1)]);
    const b = mergeContracts(a, [token('2', c2), token('3', c1)]);
    expect(b.map((c) => c.name)).toEqual(['Birds', 'Harbor']);
    expect(mergeContracts(b, [token('4', c2)])).toBe(b);
  });
});
