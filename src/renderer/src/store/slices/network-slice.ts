// The networks the data service serves and the switch between them: the list Settings shows, and what follows a switch
// (whoever asked for it): the dashboard, the key's balance, the token browser and the dev chain panel show the new
// network only, read again from the core.
import type { AppInfo, NetworkInfo, NetworkRef } from '../../../../shared/desktop-api.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import type { ActionResult } from './settings-slice.js';
import type { LoadState, SliceCreator } from './types.js';

export interface NetworkSlice {
  networks: NetworkInfo[] | null;
  networksState: LoadState;
  networksError: ErrorInfo | null;
  /** The network being switched to, while the core opens it. */
  switchingTo: NetworkRef | null;
  loadNetworks(): Promise<void>;
  /** Asks the core to switch; null on success, else the error to show beside the list. */
  switchNetwork(target: NetworkRef): Promise<ActionResult>;
  /** The core's active network now (its answer to a switch, or the pushed `network` event). */
  applyNetwork(info: AppInfo): void;
}

/** Whether `info` names another network than the one shown. */
export function isOtherNetwork(shown: AppInfo | null, info: AppInfo): boolean {
  return !shown || shown.chainId !== info.chainId || shown.platform !== info.platform || shown.network !== info.network;
}

export const createNetworkSlice: SliceCreator<NetworkSlice> = (api) => (set, get) => ({
  networks: null,
  networksState: 'idle',
  networksError: null,
  switchingTo: null,
  async loadNetworks() {
    set({ networksState: 'loading', networksError: null });
    try {
      set({ networks: await api.listNetworks(), networksState: 'ready' });
    } catch (e) {
      set({ networksState: 'error', networksError: errorInfo(e) });
    }
  },
  async switchNetwork(target) {
    // Only the name travels: the core refuses any other field.
    const ref = { platform: target.platform, network: target.network };
    set({ switchingTo: ref });
    try {
      get().applyNetwork(await api.switchNetwork(ref));
      return null;
    } catch (e) {
      return errorInfo(e);
    } finally {
      set({ switchingTo: null });
    }
  },
  applyNetwork(info) {
    const s = get();
    if (!isOtherNetwork(s.info, info)) return;
    // The new chain's records only: what was shown belongs to the network left (which keeps settling it).
    set({
      info,
      appStatus: info.status,
      devchain: null,
      devchainState: 'idle',
      tokenPage: null,
      tokenControls: { ...s.tokenControls, page: 0, contracts: [] },
      knownContracts: {},
    });
    s.clearTransactions();
    void Promise.all([s.loadTransactions(), s.refreshKey(), s.loadDevchain(), s.loadTokens(), s.loadNetworks()]);
  },
});
