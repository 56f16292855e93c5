// The token-listing contract of docs/api.md, shared by the data service, the app's proxy and the renderer.

export const ORDER_BY = ['transfer_block_number', 'token_id', 'contract_address'] as const;
export type OrderBy = (typeof ORDER_BY)[number];
export type OrderDirection = 'asc' | 'desc';

export const STANDARDS = ['ERC721', 'ERC1155'] as const;
export type Standard = (typeof STANDARDS)[number];

export interface Contract {
  address: string;
  name: string;
  symbol: string;
  /** ERC-721: totalSupply() or mints minus burns; ERC-1155: the number of ids with a non-zero supply. */
  totalSupply: number;
  /** Added with ERC-1155 support; older services leave it out. */
  standard?: Standard;
}

export interface Token {
  /** Decimal token id. */
  id: string;
  owner: string;
  uri: string;
  /** Decimal amount the owner holds: "1" for ERC-721. Added with ERC-1155 support; older services leave it out. */
  balance?: string;
  contract: Contract;
}

export interface Pagination {
  totalCount: number;
  /** Absolute URL of the previous page, or "" on page 0. */
  prevUrl: string;
  /** Absolute URL of the next page, or "" on the last page. */
  nextUrl: string;
}

export interface TokenPage {
  data: Token[];
  pagination: Pagination;
}

export interface TokenQuery {
  page?: number;
  size?: number;
  order_by?: OrderBy;
  order_direction?: OrderDirection;
  /** Contract addresses to keep; empty or absent means all. */
  contractAddresses?: string[];
  /** Only tokens of this standard; absent means both. */
  standard?: Standard;
}

/** The listing API's query string for a TokenQuery: the one place it is built (the core's proxy, the browser client). */
export function tokenQueryString(query: TokenQuery): URLSearchParams {
  const qs = new URLSearchParams();
  if (query.page !== undefined) qs.set('page', String(query.page));
  if (query.size !== undefined) qs.set('size', String(query.size));
  if (query.order_by) qs.set('order_by', query.order_by);
  if (query.order_direction) qs.set('order_direction', query.order_direction);
  if (query.contractAddresses && query.contractAddresses.length > 0) qs.set('contractAddresses', query.contractAddresses.join(','));
  if (query.standard) qs.set('standard', query.standard);
  return qs;
}
