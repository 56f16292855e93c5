// App-wide state: what the core says about itself (mode, signing address, link states), whether pushed events arrive,
// the visible screen, forms with unsaved edits, and transient notices.
import type { AppInfo, AppStatus } from '../../../../shared/desktop-api.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import type { StreamState } from '../../transport/http-api.js';
import type { View } from '../../routing/routes.js';
import { isOtherNetwork } from './network-slice.js';
import type { LoadState, SliceCreator } from './types.js';

export type { View } from '../../routing/routes.js';

export interface Notice {
  id: number;
  tone: 'error' | 'success' | 'info';
  text: string;
}

export interface AppSlice {
  info: AppInfo | null;
  infoState: LoadState;
  infoError: ErrorInfo | null;
  /** The tracker's and the node's link states: from getAppInfo, then onAppStatus. */
  appStatus: AppStatus | null;
  /** The event stream: `ipc` in Electron (cannot drop); `down` while the browser reconnects (the list is polled then). */
  stream: StreamState | 'ipc';
  view: View;
  /** Forms with edits not saved yet, by name ("Replacement policy"): leaving the screen asks first. */
  dirtyForms: readonly string[];
  notices: Notice[];
  loadInfo(): Promise<void>;
  applyAppStatus(status: AppStatus): void;
  setStream(state: StreamState | 'ipc'): void;
  /** Switches the screen; with unsaved edits only after the user agrees (`confirmLeave`). Returns whether it switched. */
  setView(view: View): boolean;
  setDirty(form: string, dirty: boolean): void;
  notify(tone: Notice['tone'], text: string): void;
  dismissNotice(id: number): void;
}

let nextNoticeId = 1;

/** Asks before unsaved edits are dropped; a window.confirm in the page, replaceable in tests of the store. */
export let confirmLeave = (forms: readonly string[]): boolean => {
  const ask = (globalThis as { confirm?: (message: string) => boolean }).confirm;
  return !ask || ask(`Your changes to ${forms.join(' and ')} are not saved. Leave this screen and drop them?`);
};
export const setConfirmLeave = (fn: typeof confirmLeave) => {
  confirmLeave = fn;
};

export const createAppSlice: SliceCreator<AppSlice> = (api) => (set, get) => ({
  info: null,
  infoState: 'idle',
  infoError: null,
  appStatus: null,
  stream: 'connecting',
  view: 'transactions',
  dirtyForms: [],
  notices: [],
  async loadInfo() {
    set({ infoState: 'loading', infoError: null });
    try {
      const info = await api.getAppInfo();
      // Another network than the one shown (switched while the event stream was away, or a restart): follow it fully.
      const shown = get().info;
      if (shown && isOtherNetwork(shown, info)) {
        set({ infoState: 'ready' });
        get().applyNetwork(info);
        return;
      }
      set({ info, infoState: 'ready', ...(info.status ? { appStatus: info.status } : {}) });
    } catch (e) {
      set({ infoState: 'error', infoError: errorInfo(e) });
    }
  },
  applyAppStatus(status) {
    set({ appStatus: status });
  },
  setStream(state) {
    set({ stream: state });
  },
  setView(view) {
    const { view: current, dirtyForms } = get();
    if (view === current) return true;
    if (dirtyForms.length > 0 && !confirmLeave(dirtyForms)) return false;
    set({ view, dirtyForms: [] });
    return true;
  },
  setDirty(form, dirty) {
    const has = get().dirtyForms.includes(form);
    if (dirty && !has) set((s) => ({ dirtyForms: [...s.dirtyForms, form] }));
    else if (!dirty && has) set((s) => ({ dirtyForms: s.dirtyForms.filter((f) => f !== form) }));
  },
  notify(tone, text) {
    const id = nextNoticeId++;
    set((s) => ({ notices: [...s.notices.slice(-3), { id, tone, text }] }));
  },
  dismissNotice(id) {
    set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
});
