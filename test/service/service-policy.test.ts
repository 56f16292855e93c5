// Table tests of the data service's pure parts: listing parameters, prev/next links, the rate limiter, session tokens, hashes.
import { describe, expect, it } from 'vitest';
import { parseListingParams, readQuery } from '../../src/service/listing/listing-params.js';
import { pageLinks } from '../../src/service/listing/listing-urls.js';
import { createRateLimiter } from '../../src/lib/http-rate-limit.js';
import { issueToken, verifyToken } from '../../src/service/accounts/accounts-token.js';
import { hashPassword, verifyPassword } from '../../src/service/accounts/accounts-password.js';
import { isTxdeskError } from '../../src/shared/errors.js';

const A = '0x' + 'ab'.repeat(20);
const B = '0x' + 'CD'.repeat(20);

function parse(search: string, kind: 'account' | 'contract' = 'account') {
  return parseListingParams(readQuery(search), kind);
}

function failure(search: string, kind: 'account' | 'contract' = 'account'): string {
  try {
    parse(search, kind);
  } catch (e) {
    if (isTxdeskError(e, 'INVALID_PARAMETER')) return e.message;
    throw e;
  }
  throw new Error(`expected ${search} to be refused`);
}

describe('listing parameters', () => {
  it('applies the defaults of SPEC 2', () => {
    expect(parse('?clientId=x')).toEqual({ page: 0, size: 15, orderBy: 'transfer_block_number', direction: 'desc', contracts: undefined });
  });

  it.each([
    [
      '?page=3&size=200&order_by=token_id&order_direction=ASC',
      { page: 3, size: 200, orderBy: 'token_id', direction: 'asc', contracts: undefined },
    ],
    [
      '?size=1&order_by=contract_address&order_direction=Desc',
      { page: 0, size: 1, orderBy: 'contract_address', direction: 'desc', contracts: undefined },
    ],
    [
      `?contractAddresses=${A},${B}`,
      { page: 0, size: 15, orderBy: 'transfer_block_number', direction: 'desc', contracts: [A, B.toLowerCase()] },
    ],
    [
      `?contractAddresses=${A},%20${A.toUpperCase().replace('0X', '0x')}`,
      { page: 0, size: 15, orderBy: 'transfer_block_number', direction: 'desc', contracts: [A] },
    ],
    ['?contractAddresses=', { page: 0, size: 15, orderBy: 'transfer_block_number', direction: 'desc', contracts: undefined }],
    ['?page=1000000000', { page: 1_000_000_000, size: 15, orderBy: 'transfer_block_number', direction: 'desc', contracts: undefined }],
  ])('accepts %s', (search, expected) => {
    expect(parse(search)).toEqual(expected);
  });

  it.each([
    ['?page=-1', /'page' must be a whole number from 0 to 1000000000/],
    ['?page=abc', /'page'.*got "abc"/],
    ['?page=1.5', /'page'/],
    ['?page=', /'page'/],
    ['?page=99999999999999999999', /'page'/],
    ['?page=1000000001', /'page'/],
    ['?size=0', /'size' must be a whole number from 1 to 200/],
    ['?size=201', /'size' must be a whole number from 1 to 200/],
    ['?order_by=price', /'order_by' must be one of transfer_block_number, token_id, contract_address/],
    ['?order_by=TOKEN_ID', /'order_by'/],
    ['?order_direction=up', /'order_direction' must be asc or desc/],
    ['?contractAddresses=0x12', /'contractAddresses'.*"0x12" is not one/],
    [`?contractAddresses=${A},,${A}`, /'contractAddresses'.*empty entry/],
    [`?contractAddresses=${Array.from({ length: 51 }, () => A).join(',')}`, /lists 51 addresses; give at most 50/],
    ['?page=1&page=2', /'page' was given 2 times/],
    ['?size=1&size=1', /'size' was given 2 times/],
    ['?order_by=token_id&order_by=token_id', /'order_by' was given/],
    ['?orderBy=token_id', /Unknown query parameter 'orderBy'.*accepts clientId, page, size/],
  ])('refuses %s', (search, message) => {
    expect(failure(search)).toMatch(message);
  });

  it('names every bad parameter, one sentence each', () => {
    const message = failure('?page=-1&size=0');
    expect(message).toMatch(/'page'.*\. .*'size'/);
  });

  it('refuses contractAddresses on a contract listing', () => {
    expect(failure(`?contractAddresses=${A}`, 'contract')).toMatch(/Unknown query parameter 'contractAddresses'/);
  });
});

describe('prev/next links', () => {
  const base = 'http://127.0.0.1:4000';
  const path = `/nft/v1/accounts/${A}/tokens`;
  const p = (page: number, size: number, contracts?: string[]) => ({
    page,
    size,
    orderBy: 'token_id' as const,
    direction: 'asc' as const,
    contracts,
  });

  it.each([
    // page, size, total, prev page, next page (null = "")
    [0, 10, 0, null, null],
    [0, 10, 10, null, null],
    [0, 10, 11, null, 1],
    [1, 10, 11, 0, null],
    [1, 10, 30, 0, 2],
    [2, 10, 30, 1, null],
    [5, 10, 30, null, null],
    [3, 10, 30, 2, null],
  ])('page %i size %i of %i: prev %s, next %s', (page, size, total, prev, next) => {
    const links = pageLinks(base, path, p(page, size), total);
    const url = (n: number) => `${base}${path}?page=${n}&size=${size}&order_by=token_id&order_direction=asc`;
    expect(links).toEqual({ prevUrl: prev === null ? '' : url(prev), nextUrl: next === null ? '' : url(next) });
  });

  it('carries contractAddresses when given and never clientId', () => {
    const links = pageLinks(base, path, p(0, 1, [A, B.toLowerCase()]), 5);
    expect(links.nextUrl).toBe(
      `${base}${path}?page=1&size=1&order_by=token_id&order_direction=asc&contractAddresses=${A},${B.toLowerCase()}`,
    );
    expect(links.nextUrl).not.toMatch(/clientId/);
  });
});

describe('rate limiter', () => {
  it('allows a minute of burst, then 429 with Retry-After, then refills', () => {
    const limiter = createRateLimiter(60);
    for (let i = 0; i < 60; i++) limiter.take('a', 0);
    let error: unknown;
    try {
      limiter.take('a', 0);
    } catch (e) {
      error = e;
    }
    expect(isTxdeskError(error, 'RATE_LIMITED')).toBe(true);
    expect((error as { retryAfterSeconds: number }).retryAfterSeconds).toBe(1);
    limiter.take('b', 0); // another clientId has its own bucket
    limiter.take('a', 1000); // one token per second comes back
    expect(() => limiter.take('a', 1000)).toThrow();
  });

  it('is off for 0 and Infinity', () => {
    for (const limit of [0, Infinity]) {
      const limiter = createRateLimiter(limit);
      for (let i = 0; i < 1000; i++) limiter.take('a', 0);
    }
  });
});

describe('session tokens', () => {
  const secret = Buffer.alloc(32, 7);
  it('verifies its own tokens until they expire', () => {
    const token = issueToken(secret, '5', 2, 1000, 60);
    expect(verifyToken(secret, token, 1059)).toEqual({ ok: true, claims: { sub: '5', gen: 2, iat: 1000, exp: 1060 } });
    expect(verifyToken(secret, token, 1060)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['another secret', (t: string) => t, Buffer.alloc(32, 8), 'bad-signature'],
    [
      'a changed payload',
      (t: string) => t.replace(/\.[^.]+\./, `.${Buffer.from('{"sub":"1","gen":0,"iat":0,"exp":9999999999}').toString('base64url')}.`),
      secret,
      'bad-signature',
    ],
    ['alg none', (t: string) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${t.split('.')[1]}.`, secret, 'malformed'],
    ['garbage', () => 'abc', secret, 'malformed'],
  ])('refuses %s', (_what, mangle, key, reason) => {
    const token = mangle(issueToken(secret, '5', 0, 1000, 60));
    expect(verifyToken(key as Buffer, token, 1001)).toEqual({ ok: false, reason });
  });
});

describe('password hashes', () => {
  it('are salted scrypt hashes that verify only the right password', async () => {
    const [h1, h2] = [await hashPassword('correct horse'), await hashPassword('correct horse')];
    expect(h1).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(h1).not.toBe(h2);
    expect(await verifyPassword('correct horse', h1)).toBe(true);
    expect(await verifyPassword('correct hors', h1)).toBe(false);
  });
});
