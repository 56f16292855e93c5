// The token-listing endpoints of docs/api.md: clientId check, rate limit, validation, one index query, prev/next links;
// each as a plain function (the listing's face) and as a documented route of the service's Hono app.
import { z } from 'zod';
import { errorReply, json, jsonReply, type DocumentedRoute } from '../../lib/hono-kit.js';
import { ADDRESS_PATTERN, isAddress } from '../../shared/address.js';
import { TxdeskError } from '../../shared/errors.js';
import type { Contract, TokenPage } from '../../shared/listing.js';
import type { RateLimiter } from '../../lib/http-rate-limit.js';
import {
  clientIdParam,
  knownClientId,
  listingQueryDocs,
  onlyClientId,
  parseListingParams,
  readQuery,
  type ListingParams,
  type RawQuery,
} from './listing-params.js';
import { contractReply, refreshReply, tokenPageReply } from './listing-replies.js';
import { andThen, type ListingReads, type Maybe, type TokenQueryResult } from './listing-reads.js';
import { pageLinks } from './listing-urls.js';

export interface ListingDeps {
  /** The index: SQLite in the process, or the fleet's PostgreSQL (listing-reads.ts). */
  reads: ListingReads;
  isClientId(id: string): boolean;
  limiter: RateLimiter;
  /** The refresh endpoint's own limit (refreshes cost the node calls), per clientId. */
  refreshLimiter: RateLimiter;
  /** Re-reads a token's uri in the background; false when the index holds no such token. */
  refreshToken(contract: string, id: bigint): boolean | Promise<boolean>;
  /** Where the network's listing lives, for page links: /nft/v1 (the default network) or /nft/v1/{platform}/{network}. */
  pathPrefix?: string;
  /** The 503 of a network that has nothing indexed and no node, or is stopped (asked after the clientId check); null while it answers. */
  unavailable?: () => TxdeskError | null;
  /** Headers every answer carries about the index it was read from (served-network.ts: state, indexed block, blocks behind). */
  indexHeaders?: () => Record<string, string>;
  now?: () => number;
}

/** The listing's endpoints as functions of the raw path parameters, the query string and the base of page links. */
export interface ListingEndpoints {
  accountTokens(address: string, search: string, origin: string): Maybe<TokenPage>;
  contract(address: string, search: string): Maybe<Contract>;
  contractTokens(address: string, search: string, origin: string): Maybe<TokenPage>;
  /** Starts a re-read of the token's uri; the answer is sent with 202. */
  refresh(address: string, id: string, search: string): Promise<z.infer<typeof refreshReply>>;
  /** The headers of an answer, taken before its read, so the index read holds at least the block they name. */
  headers(): Record<string, string>;
}

const TOKEN_ID = /^(0|[1-9]\d{0,77})$/;
const MAX_UINT256 = (1n << 256n) - 1n;

export function createListingEndpoints(deps: ListingDeps): ListingEndpoints {
  const now = deps.now ?? Date.now;
  const prefix = deps.pathPrefix ?? '/nft/v1';

  /** 401 before anything else, then the rate limit, so unauthenticated floods never reach validation or the database. */
  function admit(query: RawQuery, limiter: RateLimiter = deps.limiter): void {
    limiter.take(knownClientId(query, deps.isClientId), now());
    const down = deps.unavailable?.();
    if (down) throw down;
  }

  /** The query string, admitted, and the path's address, checked and lowercased. */
  function admitted(search: string, a: string, what: string, limiter?: RateLimiter): [RawQuery, string] {
    const query = readQuery(search);
    admit(query, limiter);
    if (!isAddress(a))
      throw new TxdeskError(
        'INVALID_PARAMETER',
        `The ${what} address in the path must be 0x followed by 40 hex digits; got ${JSON.stringify(a.slice(0, 60))}.`,
      );
    return [query, a.toLowerCase()];
  }

  /** One page of tokens, with the links to its neighbours under `path`. */
  const tokenPage = (read: Maybe<TokenQueryResult>, origin: string, path: string, p: ListingParams) =>
    andThen(read, ({ tokens, totalCount }) => ({ data: tokens, pagination: { totalCount, ...pageLinks(origin, path, p, totalCount) } }));

  function contractOr404(addr: string): Maybe<Contract> {
    return andThen(deps.reads.findContract(addr), (c) => {
      if (!c)
        throw new TxdeskError(
          'NOT_FOUND',
          `No ERC-721 or ERC-1155 contract is indexed at ${addr}; check the address and the network this service follows.`,
        );
      return c;
    });
  }

  return {
    accountTokens(address, search, origin) {
      const [query, owner] = admitted(search, address, 'account');
      const p = parseListingParams(query, 'account');
      const read = deps.reads.queryTokens({
        owner,
        ...(p.contracts ? { contracts: p.contracts } : {}),
        ...(p.standard ? { standard: p.standard } : {}),
        page: p.page,
        size: p.size,
        orderBy: p.orderBy,
        direction: p.direction,
      });
      return tokenPage(read, origin, `${prefix}/accounts/${owner}/tokens`, p);
    },

    contract(address, search) {
      const [query, addr] = admitted(search, address, 'contract');
      onlyClientId(query);
      return contractOr404(addr);
    },

    contractTokens(address, search, origin) {
      const [query, addr] = admitted(search, address, 'contract');
      const p = parseListingParams(query, 'contract');
      const q = {
        contract: addr,
        page: p.page,
        size: p.size,
        orderBy: p.orderBy,
        direction: p.direction,
        ...(p.standard ? { standard: p.standard } : {}),
      };
      // The contract first (404), then its page; both at once on SQLite.
      const known = contractOr404(addr);
      const read = known instanceof Promise ? known.then(() => deps.reads.queryTokens(q)) : deps.reads.queryTokens(q);
      return tokenPage(read, origin, `${prefix}/contracts/${addr}/tokens`, p);
    },

    // ERC-4906 on demand: answers once the read is started; the new uri is in the listing when it completes.
    async refresh(address, id, search) {
      const [query, addr] = admitted(search, address, 'contract', deps.refreshLimiter);
      onlyClientId(query);
      if (!TOKEN_ID.test(id) || BigInt(id) > MAX_UINT256) {
        throw new TxdeskError(
          'INVALID_PARAMETER',
          `The token id in the path must be a decimal number from 0 to 2^256-1; got ${JSON.stringify(id.slice(0, 80))}.`,
        );
      }
      await contractOr404(addr);
      if (!(await deps.refreshToken(addr, BigInt(id)))) {
        throw new TxdeskError('NOT_FOUND', `Token ${id} of ${addr} is not in the index; check the id, or wait until its mint is indexed.`);
      }
      return { status: 'accepted', contract: addr, id };
    },

    headers: () => deps.indexHeaders?.() ?? {},
  };
}

/** The query string of a request URL (with its `?`), or "". */
export const searchOf = (url: string) => {
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i);
};

const pathAddress = (what: string) =>
  z.object({
    address: z
      .string()
      .regex(ADDRESS_PATTERN)
      .meta({ description: `The ${what} address; compared case-insensitively.` }),
  });
/** The headers of every answer about the index, as documented in /openapi.json. */
const indexHeaderDocs = z.object({
  'Txdesk-Network-State': z.enum(['starting', 'serving', 'unreachable', 'wrong-chain']).meta({
    description: "The network's state: anything but serving means the answer comes from the index while no node can be used.",
  }),
  'Txdesk-Indexed-Block': z.int().optional().meta({ description: 'The last block of the index this answer was read from.' }),
  'Txdesk-Indexed-Behind': z.int().optional().meta({
    description: "Blocks between the newest head seen from the network's nodes and that block (a lower bound while no node answers).",
  }),
});
const withIndexHeaders = (reply: ReturnType<typeof jsonReply>) => ({ ...reply, headers: indexHeaderDocs });

const listingErrors = {
  400: errorReply('A parameter is invalid; the message names it and the allowed values.'),
  401: errorReply('Missing or unknown clientId.'),
  429: {
    ...errorReply('Too many requests for this clientId.'),
    headers: z.object({ 'Retry-After': z.int().meta({ description: 'Seconds to wait before retrying.' }) }),
  },
  502: errorReply('With a shared database: the database is not answering; retry in a few seconds.'),
};

/** The listing of one network: `null` asks for the default network (the seed's paths); an unknown one is a 404. */
export type PickListing = (network: { platform: string; network: string } | null) => ListingEndpoints;

const networkParams = {
  platform: z.string().meta({ description: 'The platform, e.g. ethereum (GET /nft/v1/networks lists those served).' }),
  network: z.string().meta({ description: 'The network, e.g. mainnet or local-2.' }),
};

/**
 * The listing's routes, each twice: at the seed's path for the default network, and under /nft/v1/{platform}/{network}
 * for any network served. `origin` is the base of page links (the public URL, else the listening address).
 */
export function listingRoutes(pick: PickListing, origin: () => string): DocumentedRoute[] {
  return [...routesAt(pick, origin, false), ...routesAt(pick, origin, true)];
}

function routesAt(pick: PickListing, origin: () => string, scoped: boolean): DocumentedRoute[] {
  type Ctx = Parameters<DocumentedRoute['handler']>[0];
  const listing = (c: Ctx) => pick(scoped ? { platform: c.req.param('platform') ?? '', network: c.req.param('network') ?? '' } : null);
  const path = (rest: string) => (scoped ? `/nft/v1/{platform}/{network}${rest}` : `/nft/v1${rest}`);
  const operationId = (name: string) => (scoped ? `network${name[0]!.toUpperCase()}${name.slice(1)}` : name);
  const where = scoped ? ' on the network in the path' : ' on the default network';
  const params = <T extends z.ZodRawShape>(o: z.ZodObject<T>) => (scoped ? o.extend(networkParams) : o);
  const unserved = scoped ? ' Also: the service does not serve the network in the path (the message lists those it does).' : '';
  const notFound = (what: string) => ({ 404: errorReply(what + unserved) });
  const errors = {
    ...listingErrors,
    ...(scoped ? notFound('The service does not serve the network in the path; the message lists those it does.') : {}),
    503: errorReply(
      'Nothing of the network is indexed yet and no node can be used (starting, unreachable, or on another chain), or the ' +
        'network is stopped because its stored state belongs to another chain; the message says which. Other networks are ' +
        'served as usual.',
    ),
  };
  return [
    {
      doc: {
        method: 'get',
        path: path('/accounts/{address}/tokens'),
        operationId: operationId('accountTokens'),
        summary: `Tokens owned by an account${where}`,
        request: { params: params(pathAddress('account')), query: listingQueryDocs.account },
        responses: { 200: withIndexHeaders(jsonReply('One page of tokens.', tokenPageReply)), ...errors },
      },
      handler: (c) => {
        const l = listing(c);
        const headers = l.headers();
        return andThen(l.accountTokens(c.req.param('address') ?? '', searchOf(c.req.url), origin()), (page) => json(c, 200, page, headers));
      },
    },
    {
      doc: {
        method: 'get',
        path: path('/contracts/{address}'),
        operationId: operationId('contract'),
        summary: `One indexed ERC-721 or ERC-1155 contract${where}`,
        request: { params: params(pathAddress('contract')), query: z.object({ clientId: clientIdParam() }) },
        responses: {
          200: withIndexHeaders(jsonReply('The contract.', contractReply)),
          ...errors,
          ...notFound('No contract is indexed at this address.'),
        },
      },
      handler: (c) => {
        const l = listing(c);
        const headers = l.headers();
        return andThen(l.contract(c.req.param('address') ?? '', searchOf(c.req.url)), (contract) => json(c, 200, contract, headers));
      },
    },
    {
      doc: {
        method: 'get',
        path: path('/contracts/{address}/tokens'),
        operationId: operationId('contractTokens'),
        summary: `Tokens of one contract${where}`,
        request: { params: params(pathAddress('contract')), query: listingQueryDocs.contract },
        responses: {
          200: withIndexHeaders(jsonReply('One page of tokens.', tokenPageReply)),
          ...errors,
          ...notFound('No contract is indexed at this address.'),
        },
      },
      handler: (c) => {
        const l = listing(c);
        const headers = l.headers();
        return andThen(l.contractTokens(c.req.param('address') ?? '', searchOf(c.req.url), origin()), (page) =>
          json(c, 200, page, headers),
        );
      },
    },
    {
      doc: {
        method: 'post',
        path: path('/contracts/{address}/tokens/{id}/refresh'),
        operationId: operationId('refreshToken'),
        summary: `Read a token's metadata URI again (ERC-4906 on demand)${where}`,
        description:
          'Starts a new read of tokenURI(id) (ERC-721) or uri(id) (ERC-1155, all holders) from the indexed block and answers ' +
          '202 at once; the listing shows the new uri when the read completes (usually within a second). Rate-limited per ' +
          'clientId separately from the listing (30 per minute by default).',
        request: {
          params: params(
            pathAddress('contract').extend({ id: z.string().meta({ description: 'Decimal token id.', pattern: '^[0-9]{1,78}$' }) }),
          ),
          query: z.object({ clientId: clientIdParam() }),
        },
        responses: {
          202: jsonReply('The read was started.', refreshReply),
          ...errors,
          ...notFound('The contract or the token is not in the index.'),
          502: errorReply(
            'With a shared database: the database is not answering, or this instance does not index; retry in a few seconds.',
          ),
        },
      },
      handler: async (c) =>
        json(c, 202, await listing(c).refresh(c.req.param('address') ?? '', c.req.param('id') ?? '', searchOf(c.req.url))),
    },
  ];
}
