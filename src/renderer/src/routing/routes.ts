// The view and its filters as a URL hash (`#/tokens?owner=0x…&size=6`), so a reload and the Back button keep them.
// Pure: parse and format; router.ts applies them.
import type { OrderBy, OrderDirection } from '../../../shared/listing.js';
import { PAGE_SIZES, defaultControls, isAddressInput, type TokenControls } from '../store/token-logic.js';

export type View = 'transactions' | 'tokens' | 'settings';

export interface Route {
  view: View;
  /** The transaction whose detail is open. */
  tx: string | null;
  tokens: TokenControls;
}

export const defaultRoute: Route = { view: 'transactions', tx: null, tokens: defaultControls };

const views: readonly View[] = ['transactions', 'tokens', 'settings'];
const orders: readonly OrderBy[] = ['transfer_block_number', 'token_id', 'contract_address'];

/** Anything a user may have typed or an old link may hold: unknown parts fall back to defaults, never fail. */
export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = text.split('?', 2);
  const view = views.find((v) => v === path) ?? 'transactions';
  const q = new URLSearchParams(query);
  const tx = q.get('tx');
  const tokens: TokenControls = { ...defaultControls };
  if (view === 'tokens') {
    const owner = q.get('owner') ?? '';
    if (isAddressInput(owner)) tokens.owner = owner.toLowerCase();
    const contracts = (q.get('contracts') ?? '')
      .split(',')
      .filter(isAddressInput)
      .map((c) => c.toLowerCase());
    tokens.contracts = [...new Set(contracts)].slice(0, 50);
    const order = q.get('order');
    if (order && (orders as readonly string[]).includes(order)) tokens.orderBy = order as OrderBy;
    const dir = q.get('dir');
    if (dir === 'asc' || dir === 'desc') tokens.direction = dir as OrderDirection;
    const size = Number(q.get('size'));
    if ((PAGE_SIZES as readonly number[]).includes(size)) tokens.size = size;
    const page = Number(q.get('page'));
    if (Number.isInteger(page) && page > 0 && page < 1_000_000) tokens.page = page - 1;
  }
  return { view, tx: view === 'transactions' && tx && /^0x[0-9a-fA-F]{64}$/.test(tx) ? tx.toLowerCase() : null, tokens };
}

/** The hash for a route; defaults are left out so links stay short. Pages count from 1 in the URL. */
export function formatRoute(route: Route): string {
  const q = new URLSearchParams();
  if (route.view === 'transactions' && route.tx) q.set('tx', route.tx);
  if (route.view === 'tokens') {
    const t = route.tokens;
    if (t.owner) q.set('owner', t.owner);
    if (t.contracts.length) q.set('contracts', t.contracts.join(','));
    if (t.orderBy !== defaultControls.orderBy) q.set('order', t.orderBy);
    if (t.direction !== defaultControls.direction) q.set('dir', t.direction);
    if (t.size !== defaultControls.size) q.set('size', String(t.size));
    if (t.page > 0) q.set('page', String(t.page + 1));
  }
  const qs = q.toString();
  return `#/${route.view}${qs ? `?${qs}` : ''}`;
}
