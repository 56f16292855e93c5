// Ends "being sent": on every change of the transactions or of the token page shown, the sends that are over are
// settled; a send whose transaction is in a block is checked against the owner's listing of that contract until the
// indexer shows the token moved (the page on screen may be another page, or filtered), then the page is read again.
import type { DesktopApi } from '../../../shared/desktop-api.js';
import type { AppState, AppStore } from './index.js';
import { effectiveOwner } from './slices/tokens-slice.js';
import { awaitingListing, pageCovers, tokenSendKey, type ListingView, type TokenSend } from './token-sends.js';

/** How often the listing is asked while the indexer has not caught up: soon at first, then calmly. */
const FIRST_CHECKS_MS = 2_000;
const LATER_CHECKS_MS = 10_000;
const FIRST_CHECKS = 30;

/** The token page on screen as a listing: whose it is and which contracts it shows whole. */
function shownListing(s: AppState): ListingView | null {
  if (!s.tokenPage) return null;
  const owner = effectiveOwner(s.tokenPageControls, s.info?.address);
  return owner ? { owner, tokens: s.tokenPage.data, covers: pageCovers(s.tokenPage.pagination, s.tokenPageControls.contracts) } : null;
}

export function watchTokenSends(
  store: AppStore,
  api: DesktopApi,
  opts: { firstChecksMs?: number; laterChecksMs?: number } = {},
): () => void {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const attempts = new Map<string, number>();

  const schedule = (send: TokenSend) => {
    const key = tokenSendKey(send.contract, send.tokenId);
    if (timers.has(key)) return;
    const n = attempts.get(key) ?? 0;
    const wait = n < FIRST_CHECKS ? (opts.firstChecksMs ?? FIRST_CHECKS_MS) : (opts.laterChecksMs ?? LATER_CHECKS_MS);
    timers.set(
      key,
      setTimeout(() => void check(key, send), wait),
    );
  };

  async function check(key: string, send: TokenSend) {
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
    try {
      const page = await api.listTokens(send.owner, {
        page: 0,
        size: 200,
        order_by: 'token_id',
        order_direction: 'asc',
        contractAddresses: [send.contract],
      });
      store.getState().settleTokenSends({ owner: send.owner, tokens: page.data, covers: pageCovers(page.pagination, [send.contract]) });
    } catch {
      // the listing is unreachable for now: the next check asks again
    }
    timers.delete(key);
    const s = store.getState();
    if (s.tokenSends[key]?.hash === send.hash) {
      schedule(send);
    } else {
      attempts.delete(key);
      // The card should go the moment the listing moved the token, not at the next reload.
      if (effectiveOwner(s.tokenControls, s.info?.address).toLowerCase() === send.owner) void s.loadTokens();
    }
  }

  const off = store.subscribe((s, prev) => {
    if (s.tokenSends === prev.tokenSends && s.txs === prev.txs && s.tokenPage === prev.tokenPage) return;
    if (Object.keys(s.tokenSends).length === 0) return;
    s.settleTokenSends(shownListing(s));
    const now = store.getState();
    for (const send of awaitingListing(now.tokenSends, now.txs)) schedule(send);
  });

  return () => {
    off();
    timers.forEach(clearTimeout);
    timers.clear();
  };
}
