// Preload: exposes exactly the DesktopApi contract to the renderer as `window.txdesk`, over typed IPC derived from the
// contract table; never raw ipcRenderer.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { desktopMethods, ipcChannel, ipcEventChannel, type CallMethod, type DesktopApi } from '../shared/desktop-api.js';
import type { IpcResult } from '../main/ipc-result.js';

/** Calls one core method in main; a failure rejects with a plain `{ code, message, fields? }` (Error objects lose their code across the bridge). */
async function call(method: CallMethod, args: unknown[]): Promise<unknown> {
  // An optional argument left out stays out (structured clone would turn it into an explicit undefined).
  while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
  const result = (await ipcRenderer.invoke(ipcChannel(method), ...args)) as IpcResult<unknown>;
  if (result.ok) return result.value;
  throw { code: result.error.code, message: result.error.message, ...(result.error.fields ? { fields: result.error.fields } : {}) };
}

function on(channel: string, listener: (value: unknown) => void): () => void {
  const handler = (_event: IpcRendererEvent, value: unknown) => listener(value);
  ipcRenderer.on(channel, handler);
  return () => {
    ipcRenderer.removeListener(channel, handler);
  };
}

const api = Object.fromEntries(
  Object.entries(desktopMethods).map(([name, spec]) => [
    name,
    spec.kind === 'call'
      ? (...args: unknown[]) => call(name as CallMethod, args)
      : (listener: (value: unknown) => void) => on(ipcEventChannel(spec.event), listener),
  ]),
) as unknown as DesktopApi;

contextBridge.exposeInMainWorld('txdesk', api);
