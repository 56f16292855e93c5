// Renderer entry: picks the bridge (IPC or HTTP), builds the one store from the URL, connects pushed events and the
// router, and renders the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { connectBridge, loadInitial } from './store/bridge.js';
import { createAppStore } from './store/index.js';
import { connectRouter, initialRouteState } from './routing/router.js';
import { selectApi } from './transport/select-api.js';
import { StoreContext, TransportContext } from './store/use-app.js';
import './styles.css';

const { api, transport, stream } = selectApi();
const store = createAppStore(api);
store.setState(initialRouteState(window.location.hash));
connectBridge(store, api, stream);
connectRouter(store);
void loadInitial(store).then(() => {
  const hash = store.getState().selectedHash;
  if (hash) void store.getState().loadDetail(hash);
});
// Unsaved settings edits survive nothing: the browser asks before a reload or close drops them.
window.addEventListener('beforeunload', (e) => {
  if (store.getState().dirtyForms.length > 0) e.preventDefault();
});
document.documentElement.dataset.transport = transport;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <TransportContext.Provider value={transport}>
        <App />
      </TransportContext.Provider>
    </StoreContext.Provider>
  </StrictMode>,
);
