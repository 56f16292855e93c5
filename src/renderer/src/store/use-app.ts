// React access to the store: a context carrying the one store, and a hook that selects narrowly from it.
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { Transport } from '../lib/token-image.js';
import type { AppState, AppStore } from './index.js';

export const StoreContext = createContext<AppStore | null>(null);
/** How this page reaches the core (Electron IPC or the localhost server): decides where token images load from. */
export const TransportContext = createContext<Transport>('http');

export function useApp<T>(selector: (state: AppState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useApp needs a StoreContext provider');
  return useStore(store, selector);
}
