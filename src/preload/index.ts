// Preload: exposes exactly the DesktopApi contract to the renderer as `window.txdesk`, over typed IPC; never raw ipcRenderer.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { ipcChannel, ipcEvent, type AppStatus, type DesktopApi, type DevchainStatus, type Unsubscribe } from '../shared/desktop-api.js';
import type { TxRecord } from '../shared/tx-record.js';
import type { IpcResult } from '../main/ipc-result.js';

/** Calls one core method in main; a failure rejects with a plain `{ code, message }` (Error objects lose their code across the bridge). */
async function call<M extends keyof DesktopApi>(method: M, ...args: unknown[]): Promise<never> {
  const result = (await ipcRenderer.invoke(ipcChannel(method), ...args)) as IpcResult<unknown>;
  if (result.ok) return result.value as never;
  throw { code: result.error.code, message: result.error.message };
}

function on<T>(channel: string, listener: (value: T) => void): Unsubscribe {
  const handler = (_event: IpcRendererEvent, value: T) => listener(value);
  ipcRenderer.on(channel, handler);
  return () => {
    ipcRenderer.removeListener(channel, handler);
  };
}

const api = {
  getAppInfo: () => call('getAppInfo'),
  listTransactions: () => call('listTransactions'),
  getTransaction: (hash) => call('getTransaction', hash),
  generateTransaction: () => call('generateTransaction'),
  cancelTransaction: (hash) => call('cancelTransaction', hash),
  speedUpTransaction: (hash) => call('speedUpTransaction', hash),
  onTransactionChanged: (listener) => on<TxRecord>(ipcEvent.tx, listener),
  listTokens: (owner, query) => call('listTokens', owner, query),
  resolveTokenMetadata: (uris) => call('resolveTokenMetadata', uris),
  refreshToken: (contract, tokenId) => call('refreshToken', contract, tokenId),
  getSettings: () => call('getSettings'),
  updateSettings: (patch) => call('updateSettings', patch),
  signIn: (credentials) => call('signIn', credentials),
  restart: () => call('restart'),
  getKeyInfo: () => call('getKeyInfo'),
  generateKey: (input) => (input === undefined ? call('generateKey') : call('generateKey', input)),
  importKey: (input) => call('importKey', input),
  exportKey: (input) => call('exportKey', input),
  getDevchainStatus: () => call('getDevchainStatus'),
  setCongestion: (level) => call('setCongestion', level),
  onDevchainStatus: (listener) => on<DevchainStatus>(ipcEvent.devchain, listener),
  onAppStatus: (listener) => on<AppStatus>(ipcEvent.status, listener),
} satisfies DesktopApi;

contextBridge.exposeInMainWorld('txdesk', api);
