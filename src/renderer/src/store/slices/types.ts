// The shape of the whole renderer store, and the creator type every slice uses.
import type { StateCreator } from 'zustand/vanilla';
import type { DesktopApi } from '../../../../shared/desktop-api.js';
import type { AppSlice } from './app-slice.js';
import type { ApprovalsSlice } from './approvals-slice.js';
import type { DevchainSlice } from './devchain-slice.js';
import type { NetworkSlice } from './network-slice.js';
import type { SendSlice } from './send-slice.js';
import type { SettingsSlice } from './settings-slice.js';
import type { TokensSlice } from './tokens-slice.js';
import type { TxSlice } from './tx-slice.js';

export type AppState = AppSlice & TxSlice & TokensSlice & SettingsSlice & DevchainSlice & SendSlice & ApprovalsSlice & NetworkSlice;

/** A slice reads and writes the whole state but only defines its own part; it reaches the core through `api`. */
export type SliceCreator<T> = (api: DesktopApi) => StateCreator<AppState, [], [], T>;

export type LoadState = 'idle' | 'loading' | 'ready' | 'error';
