// The renderer store: every slice combined once over one DesktopApi. No React here; the hooks live in use-app.ts.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { DesktopApi } from '../../../shared/desktop-api.js';
import { createAppSlice } from './slices/app-slice.js';
import { createApprovalsSlice } from './slices/approvals-slice.js';
import { createDevchainSlice } from './slices/devchain-slice.js';
import { createNetworkSlice } from './slices/network-slice.js';
import { createSendSlice } from './slices/send-slice.js';
import { createSettingsSlice } from './slices/settings-slice.js';
import { createTokensSlice } from './slices/tokens-slice.js';
import { createTxSlice } from './slices/tx-slice.js';
import type { AppState } from './slices/types.js';

export type { AppState } from './slices/types.js';
export type AppStore = StoreApi<AppState>;

export function createAppStore(api: DesktopApi): AppStore {
  const app = createAppSlice(api);
  const tx = createTxSlice(api);
  const tokens = createTokensSlice(api);
  const settings = createSettingsSlice(api);
  const devchain = createDevchainSlice(api);
  const send = createSendSlice(api);
  const approvals = createApprovalsSlice(api);
  const network = createNetworkSlice(api);
  return createStore<AppState>()((...a) => ({
    ...app(...a),
    ...tx(...a),
    ...tokens(...a),
    ...settings(...a),
    ...devchain(...a),
    ...send(...a),
    ...approvals(...a),
    ...network(...a),
  }));
}
