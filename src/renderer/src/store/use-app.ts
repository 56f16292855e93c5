// React access to the store: a context carrying the one store, and a hook that selects narrowly from it.
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './index.js';

export const StoreContext = createContext<AppStore | null>(null);

export function useApp<T>(selector: (state: AppState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useApp needs a StoreContext provider');
  return useStore(store, selector);
}
