// The token-listing endpoints of SPEC 2: clientId check, rate limit, validation, one index query, prev/next links.
import type { RequestContext, Router } from '../../lib/http-kit.js';
import type { Db } from '../../lib/sqlite.js';
import { TxdeskError } from '../../shared/errors.js';
import { sendJson } from '../../lib/http-kit.js';
import type { Contract, TokenPage } from '../../shared/listing.js';
import type { RateLimiter } from '../http/http-rate-limit.js';
import { findContract, queryTokens } from './listing-store.js';
import { isAddress } from '../../shared/address.js';
import { parseListingParams, readQuery, type RawQuery } from './listing-params.js';
import { pageLinks } from './listing-urls.js';

export interface ListingDeps {
  db: Db;
  isClientId(id: string): boolean;
  limiter: RateLimiter;
  /** The refresh endpoint's own limit (refreshes cost the node calls), per clientId. */
  refreshLimiter: RateLimiter;
  /** Re-reads a token's uri in the background; false when the index holds no such token. */
  refreshToken(contract: string, id: bigint): boolean;
  now?: () => number;
}

const TOKEN_ID = /^(0|[1-9]\d{0,77})$/;
const MAX_UINT256 = (1n << 256n) - 1n;

export function registerListingRoutes(router: Router, deps: ListingDeps): void {
  const now = deps.now ?? Date.now;

  /** 401 before anything else, then the rate limit, so unauthenticated floods never reach validation or the database. */
  function admit(query: RawQuery, limiter: RateLimiter = deps.limiter): void {
    const id = query.clientId;
    if (Array.isArray(id)) throw new TxdeskError('INVALID_PARAMETER', "The query parameter 'clientId' was given more than once; give it once.");
    if (id === undefined || id === '') {
      throw new TxdeskError('UNAUTHORIZED', "The query parameter 'clientId' is required; get one with `txdesk signup` or `txdesk account:describe`.");
    }
    if (!deps.isClientId(id)) throw new TxdeskError('UNAUTHORIZED', 'The clientId is not known to this service; check it with `txdesk account:describe`.');
    limiter.take(id, now());
  }

  function address(ctx: RequestContext, what: string): string {
    const a = ctx.params.address ?? '';
    if (!isAddress(a)) throw new TxdeskError('INVALID_PARAMETER', `The ${what} address in the path must be 0x followed by 40 hex digits; got ${JSON.stringify(a.slice(0, 60))}.`);
    return a.toLowerCase();
  }

  function contractOr404(addr: string): Contract {
    const c = findContract(deps.db, addr);
    if (!c) throw new TxdeskError('NOT_FOUND', `No ERC-721 or ERC-1155 contract is indexed at ${addr}; check the address and the network this service follows.`);
    return c;
  }

  router.get('/nft/v1/accounts/:address/tokens', (ctx): TokenPage => {
    const query = readQuery(ctx.url.search);
    admit(query);
    const owner = address(ctx, 'account');
    const p = parseListingParams(query, 'account');
    const { tokens, totalCount } = queryTokens(deps.db, {
      owner,
      ...(p.contracts ? { contracts: p.contracts } : {}),
      ...(p.standard ? { standard: p.standard } : {}),
      page: p.page,
      size: p.size,
      orderBy: p.orderBy,
      direction: p.direction,
    });
    return { data: tokens, pagination: { totalCount, ...pageLinks(ctx.url.origin, `/nft/v1/accounts/${owner}/tokens`, p, totalCount) } };
  });

  router.get('/nft/v1/contracts/:address', (ctx): Contract => {
    const query = readQuery(ctx.url.search);
    admit(query);
    const addr = address(ctx, 'contract');
    const unknown = Object.keys(query).filter((k) => k !== 'clientId');
    if (unknown.length > 0) {
      throw new TxdeskError('INVALID_PARAMETER', `Unknown query parameter '${unknown[0]}'; this endpoint accepts only clientId.`);
    }
    return contractOr404(addr);
  });

  router.get('/nft/v1/contracts/:address/tokens', (ctx): TokenPage => {
    const query = readQuery(ctx.url.search);
    admit(query);
    const addr = address(ctx, 'contract');
    const p = parseListingParams(query, 'contract');
    contractOr404(addr);
    const { tokens, totalCount } = queryTokens(deps.db, {
      contract: addr,
      page: p.page,
      size: p.size,
      orderBy: p.orderBy,
      direction: p.direction,
      ...(p.standard ? { standard: p.standard } : {}),
    });
    return { data: tokens, pagination: { totalCount, ...pageLinks(ctx.url.origin, `/nft/v1/contracts/${addr}/tokens`, p, totalCount) } };
  });

  // ERC-4906 on demand: answers 202 once the read is started; the new uri is in the listing when it completes.
  router.post('/nft/v1/contracts/:address/tokens/:id/refresh', (ctx) => {
    const query = readQuery(ctx.url.search);
    admit(query, deps.refreshLimiter);
    const addr = address(ctx, 'contract');
    const unknown = Object.keys(query).filter((k) => k !== 'clientId');
    if (unknown.length > 0) {
      throw new TxdeskError('INVALID_PARAMETER', `Unknown query parameter '${unknown[0]}'; this endpoint accepts only clientId.`);
    }
    const raw = ctx.params.id ?? '';
    if (!TOKEN_ID.test(raw) || BigInt(raw) > MAX_UINT256) {
      throw new TxdeskError('INVALID_PARAMETER', `The token id in the path must be a decimal number from 0 to 2^256-1; got ${JSON.stringify(raw.slice(0, 80))}.`);
    }
    contractOr404(addr);
    if (!deps.refreshToken(addr, BigInt(raw))) {
      throw new TxdeskError('NOT_FOUND', `Token ${raw} of ${addr} is not in the index; check the id, or wait until its mint is indexed.`);
    }
    sendJson(ctx.res, 202, { status: 'accepted', contract: addr, id: raw });
    return undefined;
  });
}
