// Settings and the signing key: the core's copy of the settings, and what it says about the key (address, balance, storage).
// The private key itself passes through `importKey` once and is never stored here.
import type { AppSettings, KeyExport, KeyInfo, ServiceHealthInfo, SettingsPatch, SignIn } from '../../../../shared/desktop-api.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import type { LoadState, SliceCreator } from './types.js';

/** Result of a form action: null on success, else the error to show beside the form. */
export type ActionResult = ErrorInfo | null;

export interface SettingsSlice {
  settings: AppSettings | null;
  settingsState: LoadState;
  settingsError: ErrorInfo | null;
  keyInfo: KeyInfo | null;
  keyState: LoadState;
  keyError: ErrorInfo | null;
  /** The data service as last asked (reachable, index lag, roles); null until asked. */
  serviceHealth: ServiceHealthInfo | null;
  loadSettings(): Promise<void>;
  /** The saved settings as the core pushed them after a change (this window's own save, or anyone else's). */
  applySettings(settings: AppSettings): void;
  /** Asks the data service how it is; an app that cannot ask keeps the last answer. */
  loadServiceHealth(): Promise<void>;
  saveSettings(patch: SettingsPatch): Promise<ActionResult>;
  signIn(credentials: SignIn): Promise<ActionResult>;
  loadKey(): Promise<void>;
  /** Re-reads address and balance without showing a loading state; failures keep the last known values. */
  refreshKey(): Promise<void>;
  /** `replace` only after the user confirmed replacing the current key. */
  generateKey(replace?: boolean): Promise<ActionResult>;
  importKey(privateKey: string, replace?: boolean): Promise<ActionResult>;
  exportKey(passphrase: string): Promise<KeyExport | ErrorInfo>;
  /** Restarts the core so that `pendingRestart` settings take effect, then reloads what they change. */
  restart(): Promise<ActionResult>;
}

export const createSettingsSlice: SliceCreator<SettingsSlice> = (api) => (set, get) => {
  /** After the key changes, everything keyed by the signing address is stale. */
  async function afterKeyChange() {
    await get().loadInfo();
    if (!get().tokenControls.owner) void get().loadTokens();
  }

  return {
    settings: null,
    settingsState: 'idle',
    settingsError: null,
    keyInfo: null,
    keyState: 'idle',
    keyError: null,
    serviceHealth: null,
    async loadServiceHealth() {
      try {
        set({ serviceHealth: await api.getServiceHealth() });
      } catch {
        // The answer itself says when the service is down; a failed call leaves the last one shown.
      }
    },
    async loadSettings() {
      set({ settingsState: 'loading', settingsError: null });
      try {
        set({ settings: await api.getSettings(), settingsState: 'ready' });
      } catch (e) {
        set({ settingsState: 'error', settingsError: errorInfo(e) });
      }
    },
    applySettings(settings) {
      set({ settings, settingsState: 'ready', settingsError: null });
    },
    async saveSettings(patch) {
      try {
        set({ settings: await api.updateSettings(patch) });
        void get().loadInfo();
        return null;
      } catch (e) {
        return errorInfo(e);
      }
    },
    async signIn(credentials) {
      try {
        set({ settings: await api.signIn(credentials) });
        return null;
      } catch (e) {
        return errorInfo(e);
      }
    },
    async loadKey() {
      set({ keyState: 'loading', keyError: null });
      try {
        set({ keyInfo: await api.getKeyInfo(), keyState: 'ready' });
      } catch (e) {
        set({ keyState: 'error', keyError: errorInfo(e) });
      }
    },
    async refreshKey() {
      try {
        set({ keyInfo: await api.getKeyInfo(), keyState: 'ready', keyError: null });
      } catch {
        // the next receipt tries again
      }
    },
    async generateKey(replace) {
      try {
        set({ keyInfo: await api.generateKey(replace ? { replace: true } : undefined), keyState: 'ready', keyError: null });
        await afterKeyChange();
        return null;
      } catch (e) {
        return errorInfo(e);
      }
    },
    async importKey(privateKey, replace) {
      try {
        set({ keyInfo: await api.importKey(replace ? { privateKey, replace: true } : { privateKey }), keyState: 'ready', keyError: null });
        await afterKeyChange();
        return null;
      } catch (e) {
        return errorInfo(e);
      }
    },
    async exportKey(passphrase) {
      try {
        return await api.exportKey({ passphrase });
      } catch (e) {
        return errorInfo(e);
      }
    },
    async restart() {
      try {
        await api.restart();
      } catch (e) {
        return errorInfo(e);
      }
      // The core answers first and restarts after: wait until it has gone (up to 10 s), then until it answers again
      // (up to 60 s), so what is loaded next comes from the new one.
      const up = async () =>
        api.getAppInfo().then(
          () => true,
          () => false,
        );
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      for (let i = 0; i < 40 && (await up()); i++) await sleep(250);
      for (let i = 0; i < 60 && !(await up()); i++) await sleep(1_000);
      // Everything it reports may have changed.
      const s = get();
      await Promise.all([s.loadInfo(), s.loadSettings(), s.loadKey(), s.loadTransactions(), s.loadDevchain()]);
      return null;
    },
  };
};
