// The core's api from creation on: every call waits until the core has started (and fails with one sentence if it
// could not); listeners can be added at any time. Derived from the contract table, so no method is missed.
import { callMethods, desktopMethods, eventMethods } from '../../shared/desktop-api.js';
import type { CoreApi, CoreEvents } from './desktop-api-core.js';

export function apiAfterStart(ready: () => Promise<CoreApi>, events: CoreEvents): CoreApi {
  const call =
    <K extends keyof CoreApi>(k: K) =>
    async (...args: unknown[]) =>
      ((await ready())[k] as (...a: unknown[]) => unknown)(...args);
  const calls = Object.fromEntries(callMethods.map((m) => [m, call(m)]));
  const listeners = Object.fromEntries(
    eventMethods.map((m) => {
      const set = events[desktopMethods[m].event] as Set<(v: unknown) => void>;
      return [m, (l: (v: unknown) => void) => (set.add(l), () => void set.delete(l))];
    }),
  );
  const extras: Omit<CoreApi, keyof typeof desktopMethods> = {
    proxyTokens: call('proxyTokens') as CoreApi['proxyTokens'],
    // Electron's txdesk-image: scheme calls this before and after start-up alike.
    fetchTokenImage: call('fetchTokenImage') as CoreApi['fetchTokenImage'],
    rpc: call('rpc') as CoreApi['rpc'],
    emitTransaction: (r) => events.tx.forEach((l) => l(r)),
    emitDevchain: (s) => events.devchain.forEach((l) => l(s)),
    emitAppStatus: (s) => events.status.forEach((l) => l(s)),
    emitNetwork: (info) => events.network.forEach((l) => l(info)),
    devchainListenerCount: () => events.devchain.size,
  };
  return { ...calls, ...listeners, ...extras } as CoreApi;
}
