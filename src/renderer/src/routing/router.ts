// Keeps the URL hash and the store in step: the view, the open transaction and the token controls are written to the
// hash (a new history entry per change, so Back works) and read back on load and on Back/Forward.
import { defaultRoute, formatRoute, parseRoute, type Route } from './routes.js';
import type { AppState, AppStore } from '../store/index.js';

const routeOf = (s: AppState): Route => ({ view: s.view, tx: s.selectedHash, tokens: s.tokenControls });

/** The store's starting state from a hash, before the first load. */
export function initialRouteState(hash: string): Pick<AppState, 'view' | 'selectedHash' | 'tokenControls'> {
  const r = parseRoute(hash);
  return { view: r.view, selectedHash: r.tx, tokenControls: r.tokens };
}

export function connectRouter(store: AppStore, win: Window = window): () => void {
  let applying = false;
  const write = (replace: boolean) => {
    const hash = formatRoute(routeOf(store.getState()));
    if (hash === win.location.hash) return;
    if (replace) win.history.replaceState(null, '', hash);
    else win.history.pushState(null, '', hash);
  };
  // A bare address stays bare until the user goes somewhere (the default view needs no hash).
  const bareAndDefault = () => win.location.hash === '' && formatRoute(routeOf(store.getState())) === formatRoute(defaultRoute);
  if (!bareAndDefault()) write(true);

  const offStore = store.subscribe((s, prev) => {
    if (applying) return;
    if (s.view !== prev.view || s.selectedHash !== prev.selectedHash || s.tokenControls !== prev.tokenControls) write(false);
  });

  const onPop = () => {
    const r = parseRoute(win.location.hash);
    const s = store.getState();
    applying = true;
    try {
      if (r.view !== s.view && !s.setView(r.view)) {
        // Unsaved edits kept the screen: the URL goes back to saying so.
        applying = false;
        if (!bareAndDefault()) write(true);
        return;
      }
      if (r.tx !== store.getState().selectedHash) store.getState().selectTransaction(r.tx);
      if (r.view === 'tokens' && JSON.stringify(r.tokens) !== JSON.stringify(store.getState().tokenControls))
        void store.getState().setTokenControls(r.tokens);
    } finally {
      applying = false;
    }
  };
  win.addEventListener('popstate', onPop);
  win.addEventListener('hashchange', onPop);
  return () => {
    offStore();
    win.removeEventListener('popstate', onPop);
    win.removeEventListener('hashchange', onPop);
  };
}
