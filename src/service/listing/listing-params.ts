// Validation of the listing query strings of docs/api.md. zod is the validator of record; each parameter's transform
// produces one sentence naming the parameter and its allowed values, and the schemas are built once at load.
import { z } from 'zod';
import { ORDER_BY, STANDARDS, type OrderBy, type OrderDirection, type Standard } from '../../shared/listing.js';
import { isAddress } from '../../shared/address.js';
import { TxdeskError } from '../../shared/errors.js';
import { describeIssues } from '../../lib/zod-issues.js';

export const DEFAULT_PAGE = 0;
export const DEFAULT_SIZE = 15;
export const MAX_SIZE = 200;
export const MAX_PAGE = 1_000_000_000;
export const MAX_CONTRACT_ADDRESSES = 50;
export const DEFAULT_ORDER_BY: OrderBy = 'transfer_block_number';
export const DEFAULT_DIRECTION: OrderDirection = 'desc';

export interface ListingParams {
  page: number;
  size: number;
  orderBy: OrderBy;
  direction: OrderDirection;
  /** Lowercase, de-duplicated; undefined means every contract. */
  contracts: string[] | undefined;
  /** undefined means both standards. */
  standard?: Standard | undefined;
}

/** A query string as name -> value, or every value when the name repeats (which validation then refuses). */
export type RawQuery = Record<string, string | string[]>;

export function readQuery(search: string): RawQuery {
  const out: RawQuery = {};
  if (search.length <= 1) return out;
  for (const [k, v] of new URLSearchParams(search)) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[k] = [prev, v];
  }
  return out;
}

function shown(v: string): string {
  return JSON.stringify(v.length > 48 ? `${v.slice(0, 45)}...` : v);
}

/** What the OpenAPI document says of a parameter (zod cannot describe a transform's input by itself). */
type ParamDoc = Record<string, unknown> & { description: string };

/** A single-valued parameter: refuses repeats, then hands the string to `check`; `doc` describes it in /openapi.json. */
function param<T>(name: string, fallback: T, doc: ParamDoc, check: (v: string, fail: (sentence: string) => never) => T) {
  const schema = z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v, ctx): T => {
      if (v === undefined) return fallback;
      // Returns zod's NEVER marker after recording the issue; typed `never` so checks read as `return fail(...)`.
      const fail = (message: string): never => {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      };
      if (Array.isArray(v)) return fail(`The query parameter '${name}' was given ${v.length} times; give it at most once.`);
      return check(v, fail);
    });
  return schema.meta({ type: 'string', ...doc });
}

function integer(name: string, min: number, max: number, fallback: number, description: string) {
  return param(name, fallback, { type: 'integer', minimum: min, maximum: max, default: fallback, description }, (v, fail) => {
    const n = /^\d{1,12}$/.test(v) ? Number(v) : NaN;
    if (!(n >= min && n <= max))
      return fail(`The query parameter '${name}' must be a whole number from ${min} to ${max}; got ${shown(v)}.`);
    return n;
  });
}

const orderBy = param<OrderBy>(
  'order_by',
  DEFAULT_ORDER_BY,
  {
    enum: [...ORDER_BY],
    default: DEFAULT_ORDER_BY,
    description:
      '`transfer_block_number` orders by the transfer that gave the owner the token (block, log index, then the position ' +
      'inside a ConsecutiveTransfer or TransferBatch log); for ERC-1155 the newest transfer that gave the owner some of the id.',
  },
  (v, fail) =>
    (ORDER_BY as readonly string[]).includes(v)
      ? (v as OrderBy)
      : fail(`The query parameter 'order_by' must be one of ${ORDER_BY.join(', ')}; got ${shown(v)}.`),
);

const directionDoc = { enum: ['asc', 'desc'], default: DEFAULT_DIRECTION, description: 'Case-insensitive.' };
const direction = param<OrderDirection>('order_direction', DEFAULT_DIRECTION, directionDoc, (v, fail) => {
  const d = v.toLowerCase();
  return d === 'asc' || d === 'desc' ? d : fail(`The query parameter 'order_direction' must be asc or desc (any case); got ${shown(v)}.`);
});

const contractAddresses = param<string[] | undefined>(
  'contractAddresses',
  undefined,
  { description: `Comma-separated contract addresses to keep, at most ${MAX_CONTRACT_ADDRESSES}; empty or absent means all.` },
  (v, fail) => {
    // An empty value means no filter, the same as leaving the parameter out.
    if (v.trim() === '') return undefined;
    const entries = v.split(',').map((s) => s.trim());
    if (entries.length > MAX_CONTRACT_ADDRESSES) {
      return fail(
        `The query parameter 'contractAddresses' lists ${entries.length} addresses; give at most ${MAX_CONTRACT_ADDRESSES}, separated by commas.`,
      );
    }
    const bad = entries.find((e) => !isAddress(e));
    if (bad !== undefined) {
      return fail(
        `The query parameter 'contractAddresses' must be comma-separated addresses (0x followed by 40 hex ` +
          `digits); ${bad === '' ? 'it has an empty entry' : `${shown(bad)} is not one`}.`,
      );
    }
    return [...new Set(entries.map((e) => e.toLowerCase()))];
  },
);

const standard = param<Standard | undefined>(
  'standard',
  undefined,
  { enum: [...STANDARDS], description: 'Only tokens of contracts of this standard (case-insensitive); absent means both.' },
  (v, fail) => {
    const s = STANDARDS.find((x) => x === v.toUpperCase());
    return s ?? fail(`The query parameter 'standard' must be ${STANDARDS.join(' or ')} (any case); got ${shown(v)}.`);
  },
);

const common = {
  // clientId is checked (401) before the schema runs; it only has to be a known key here.
  clientId: z.unknown().optional(),
  page: integer('page', 0, MAX_PAGE, DEFAULT_PAGE, 'Zero-based page number.'),
  size: integer('size', 1, MAX_SIZE, DEFAULT_SIZE, 'Tokens per page.'),
  order_by: orderBy,
  order_direction: direction,
  standard,
};

const accountTokensQuery = z.object({ ...common, contractAddresses }).strict();
const contractTokensQuery = z.object(common).strict();

/** The listing queries as /openapi.json shows them: the validators themselves, with clientId shown as required. */
export const listingQueryDocs = {
  account: accountTokensQuery.extend({ clientId: clientIdParam() }),
  contract: contractTokensQuery.extend({ clientId: clientIdParam() }),
};

/**
 * The query's clientId, once and known to the service: 401 when missing or unknown, 400 when repeated. The listing's
 * routes and the webhook API's take their clientId the same way.
 */
export function knownClientId(query: RawQuery, isClientId: (id: string) => boolean): string {
  const id = query.clientId;
  if (Array.isArray(id))
    throw new TxdeskError('INVALID_PARAMETER', "The query parameter 'clientId' was given more than once; give it once.");
  if (id === undefined || id === '') {
    throw new TxdeskError(
      'UNAUTHORIZED',
      "The query parameter 'clientId' is required; get one with `txdesk signup` or `txdesk account:describe`.",
    );
  }
  if (!isClientId(id))
    throw new TxdeskError('UNAUTHORIZED', 'The clientId is not known to this service; check it with `txdesk account:describe`.');
  return id;
}

/** 400 for any query parameter but clientId (routes that take nothing else). */
export function onlyClientId(query: RawQuery): void {
  const unknown = Object.keys(query).filter((k) => k !== 'clientId');
  if (unknown.length > 0)
    throw new TxdeskError('INVALID_PARAMETER', `Unknown query parameter '${unknown[0]}'; this endpoint accepts only clientId.`);
}

/** The clientId query parameter of every listing route, for the document (the handler checks it first, for the 401). */
export function clientIdParam() {
  return z.string().meta({ description: 'Your client ID (`txdesk account:describe`).' });
}

export type ListingKind = 'account' | 'contract';

function allowedNames(kind: ListingKind): string {
  return kind === 'account'
    ? 'clientId, page, size, order_by, order_direction, contractAddresses, standard'
    : 'clientId, page, size, order_by, order_direction, standard';
}

/** Validates a listing query; throws a 400 whose message has one sentence per bad parameter. */
export function parseListingParams(query: RawQuery, kind: ListingKind): ListingParams {
  const schema = kind === 'account' ? accountTokensQuery : contractTokensQuery;
  const parsed = schema.safeParse(query, { reportInput: true });
  if (!parsed.success) {
    const issues = parsed.error.issues;
    let message = describeIssues(issues, 'query parameter');
    if (issues.some((i) => i.code === 'unrecognized_keys')) message += ` This endpoint accepts ${allowedNames(kind)}.`;
    throw new TxdeskError('INVALID_PARAMETER', message);
  }
  const q = parsed.data;
  return {
    page: q.page,
    size: q.size,
    orderBy: q.order_by,
    direction: q.order_direction,
    contracts: 'contractAddresses' in q ? (q.contractAddresses as string[] | undefined) : undefined,
    ...(q.standard ? { standard: q.standard } : {}),
  };
}
