// The embedded dev chain: block height, base fee and congestion, pushed by the core as blocks arrive.
import type { CongestionLevel, DevchainStatus } from '../../../../shared/desktop-api.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import type { SliceCreator } from './types.js';

export interface DevchainSlice {
  devchain: DevchainStatus | null;
  /** `absent`: the app runs against a configured network, so there is no panel. */
  devchainState: 'idle' | 'loading' | 'ready' | 'absent' | 'error';
  devchainError: ErrorInfo | null;
  congestionSaving: CongestionLevel | null;
  /** When the last status arrived (ms since epoch), so the panel can tell a live chain from a silent one. */
  devchainSeenAt: number;
  loadDevchain(): Promise<void>;
  setCongestion(level: CongestionLevel): Promise<void>;
  applyDevchainStatus(status: DevchainStatus): void;
}

export const createDevchainSlice: SliceCreator<DevchainSlice> = (api) => (set, get) => ({
  devchain: null,
  devchainState: 'idle',
  devchainError: null,
  congestionSaving: null,
  devchainSeenAt: 0,
  async loadDevchain() {
    set({ devchainState: 'loading', devchainError: null });
    try {
      const status = await api.getDevchainStatus();
      set(status ? { devchain: status, devchainState: 'ready', devchainSeenAt: Date.now() } : { devchain: null, devchainState: 'absent' });
    } catch (e) {
      set({ devchainState: 'error', devchainError: errorInfo(e) });
    }
  },
  async setCongestion(level) {
    set({ congestionSaving: level });
    try {
      const status = await api.setCongestion(level);
      set({ devchain: status, devchainState: 'ready', congestionSaving: null, devchainSeenAt: Date.now() });
    } catch (e) {
      set({ congestionSaving: null });
      get().notify('error', errorInfo(e).message);
    }
  },
  applyDevchainStatus(status) {
    const current = get().devchain;
    // Block events can race the congestion change's answer; never go back in height.
    if (current && status.blockNumber < current.blockNumber && status.congestion === current.congestion) return;
    set({ devchain: status, devchainState: 'ready', devchainSeenAt: Date.now() });
  },
});
