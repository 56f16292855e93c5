// App-wide state: what the core says about itself (mode, signing address), the visible screen, and transient notices.
import type { AppInfo } from '../../../../shared/desktop-api.js';
import { errorInfo, type ErrorInfo } from '../api-error.js';
import type { LoadState, SliceCreator } from './types.js';

export type View = 'transactions' | 'tokens' | 'settings';

export interface Notice {
  id: number;
  tone: 'error' | 'success' | 'info';
  text: string;
}

export interface AppSlice {
  info: AppInfo | null;
  infoState: LoadState;
  infoError: ErrorInfo | null;
  view: View;
  notices: Notice[];
  loadInfo(): Promise<void>;
  setView(view: View): void;
  notify(tone: Notice['tone'], text: string): void;
  dismissNotice(id: number): void;
}

let nextNoticeId = 1;

export const createAppSlice: SliceCreator<AppSlice> = (api) => (set) => ({
  info: null,
  infoState: 'idle',
  infoError: null,
  view: 'transactions',
  notices: [],
  async loadInfo() {
    set({ infoState: 'loading', infoError: null });
    try {
      const info = await api.getAppInfo();
      set({ info, infoState: 'ready' });
    } catch (e) {
      set({ infoState: 'error', infoError: errorInfo(e) });
    }
  },
  setView(view) {
    set({ view });
  },
  notify(tone, text) {
    const id = nextNoticeId++;
    set((s) => ({ notices: [...s.notices.slice(-3), { id, tone, text }] }));
  },
  dismissNotice(id) {
    set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
});
