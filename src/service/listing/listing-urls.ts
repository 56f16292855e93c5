// prev/next URLs of a listing page (docs/api.md): absolute, from the request's own base URL, never carrying clientId.
import type { ListingParams } from './listing-params.js';

export interface PageLinks {
  prevUrl: string;
  nextUrl: string;
}

/**
 * `base` is scheme + host of the request (no trailing slash), `path` the canonical listing path.
 * Page 0 always exists (it may be empty); page p > 0 exists when it holds at least one of `totalCount` tokens.
 */
export function pageLinks(base: string, path: string, p: ListingParams, totalCount: number): PageLinks {
  const exists = (page: number) => page === 0 || (page > 0 && page * p.size < totalCount);
  const url = (page: number) => {
    let q = `?page=${page}&size=${p.size}&order_by=${p.orderBy}&order_direction=${p.direction}`;
    // Addresses are hex only, so the commas can stay readable instead of %2C.
    if (p.contracts) q += `&contractAddresses=${p.contracts.join(',')}`;
    if (p.standard) q += `&standard=${p.standard}`;
    return base + path + q;
  };
  return {
    prevUrl: p.page > 0 && exists(p.page - 1) ? url(p.page - 1) : '',
    nextUrl: exists(p.page + 1) ? url(p.page + 1) : '',
  };
}
