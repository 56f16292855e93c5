// Token-browser bookkeeping: the query the controls describe, page numbers from the listing's pagination URLs,
// and which metadata URIs still need fetching. Pure functions.
import { isAddress } from '../../../shared/address.js';
import type { OrderBy, OrderDirection, Token, TokenPage, TokenQuery } from '../../../shared/listing.js';

export interface TokenControls {
  /** The account whose tokens are listed; '' means the app's own. */
  owner: string;
  /** Contract addresses to keep; empty means all. */
  contracts: string[];
  orderBy: OrderBy;
  direction: OrderDirection;
  size: number;
  page: number;
}

export const PAGE_SIZES = [6, 12, 24, 48] as const;

export const defaultControls: TokenControls = {
  owner: '',
  contracts: [],
  orderBy: 'transfer_block_number',
  direction: 'desc',
  size: 12,
  page: 0,
};

export function toTokenQuery(c: TokenControls): TokenQuery {
  const q: TokenQuery = { page: c.page, size: c.size, order_by: c.orderBy, order_direction: c.direction };
  if (c.contracts.length > 0) q.contractAddresses = c.contracts;
  return q;
}

/** The `page` a pagination URL points at, or null when there is no such page (""), or the URL has none. */
export function pageFromUrl(url: string): number | null {
  if (!url) return null;
  try {
    const page = new URL(url).searchParams.get('page');
    if (page === null) return null;
    const n = Number(page);
    return Number.isInteger(n) && n >= 0 ? n : null;
  } catch {
    return null;
  }
}

export interface PageNav {
  prev: number | null;
  next: number | null;
  pageCount: number;
}

/** Prev/next follow the server's pagination URLs; the page count is derived from the total for display. */
export function pageNav(result: TokenPage, current: TokenControls): PageNav {
  const prev = result.pagination.prevUrl ? (pageFromUrl(result.pagination.prevUrl) ?? Math.max(0, current.page - 1)) : null;
  const next = result.pagination.nextUrl ? (pageFromUrl(result.pagination.nextUrl) ?? current.page + 1) : null;
  return { prev, next, pageCount: Math.max(1, Math.ceil(result.pagination.totalCount / current.size)) };
}

/** Metadata URIs of a page that are neither known nor being fetched. */
export function missingUris(tokens: readonly Token[], known: Readonly<Record<string, unknown>>): string[] {
  const out = new Set<string>();
  for (const t of tokens) if (t.uri && !(t.uri in known)) out.add(t.uri);
  return [...out];
}

export interface KnownContract {
  address: string;
  name: string;
  symbol: string;
}

/** Collections seen in any listing so far, for the contract filter; a new page only adds. */
export function mergeContracts(known: readonly KnownContract[], tokens: readonly Token[]): KnownContract[] {
  const byAddress = new Map(known.map((c) => [c.address.toLowerCase(), c]));
  let changed = false;
  for (const t of tokens) {
    const a = t.contract.address.toLowerCase();
    if (!byAddress.has(a)) {
      byAddress.set(a, { address: a, name: t.contract.name, symbol: t.contract.symbol });
      changed = true;
    }
  }
  if (!changed) return known as KnownContract[];
  return [...byAddress.values()].sort((x, y) => (x.name || x.address).localeCompare(y.name || y.address));
}

/** An address as typed into a filter: surrounding spaces are forgiven. */
export const isAddressInput = (s: string) => isAddress(s.trim());
