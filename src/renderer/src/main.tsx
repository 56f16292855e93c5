// Renderer entry: picks the bridge (IPC or HTTP), builds the one store, connects pushed events, and renders the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { connectBridge, loadInitial } from './store/bridge.js';
import { createAppStore } from './store/index.js';
import { selectApi } from './store/select-api.js';
import { StoreContext, TransportContext } from './store/use-app.js';
import './styles.css';

const { api, transport } = selectApi();
const store = createAppStore(api);
connectBridge(store, api);
void loadInitial(store);
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
