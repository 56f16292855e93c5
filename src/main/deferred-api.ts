// A DesktopApi that waits for the core to finish starting: the window opens at once and its first calls simply
// resolve when the dev chain and the data service are up. No electron import, so it is testable.
import type { DesktopApi, Unsubscribe } from '../shared/desktop-api.js';

export function deferredApi(ready: Promise<DesktopApi>): DesktopApi {
  const call =
    <K extends keyof DesktopApi>(method: K) =>
    async (...args: unknown[]) => {
      const api = await ready;
      return (api[method] as (...a: unknown[]) => unknown).apply(api, args);
    };
  const subscribe =
    (method: 'onTransactionChanged' | 'onDevchainStatus' | 'onAppStatus') =>
    (listener: (value: never) => void): Unsubscribe => {
      let off: Unsubscribe | null = null;
      let cancelled = false;
      ready.then(
        (api) => {
          if (!cancelled) off = (api[method] as (l: (v: never) => void) => Unsubscribe)(listener);
        },
        () => {},
      );
      return () => {
        cancelled = true;
        off?.();
      };
    };
  return {
    getAppInfo: call('getAppInfo'),
    listTransactions: call('listTransactions'),
    getTransaction: call('getTransaction'),
    generateTransaction: call('generateTransaction'),
    cancelTransaction: call('cancelTransaction'),
    speedUpTransaction: call('speedUpTransaction'),
    onTransactionChanged: subscribe('onTransactionChanged'),
    listTokens: call('listTokens'),
    resolveTokenMetadata: call('resolveTokenMetadata'),
    refreshToken: call('refreshToken'),
    getSettings: call('getSettings'),
    updateSettings: call('updateSettings'),
    signIn: call('signIn'),
    restart: call('restart'),
    getKeyInfo: call('getKeyInfo'),
    generateKey: call('generateKey'),
    importKey: call('importKey'),
    exportKey: call('exportKey'),
    getDevchainStatus: call('getDevchainStatus'),
    setCongestion: call('setCongestion'),
    onDevchainStatus: subscribe('onDevchainStatus'),
    onAppStatus: subscribe('onAppStatus'),
  } as DesktopApi;
}
