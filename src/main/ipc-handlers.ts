// Registers one ipcMain handler per DesktopApi method and forwards core events to the window; returns a disposer.
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { ipcChannel, ipcEvent, type DesktopApi } from '../shared/desktop-api.js';
import type { Logger } from '../lib/log.js';
import { invokableMethods, invokeGuarded } from './ipc-guard.js';

/** Frames are compared by process and routing id: WebFrameMain wrappers are not guaranteed to be the same object. */
function isMainFrame(event: IpcMainInvokeEvent, window: BrowserWindow): boolean {
  if (window.isDestroyed() || event.sender.id !== window.webContents.id) return false;
  const frame = event.senderFrame;
  const main = window.webContents.mainFrame;
  return frame !== null && frame.processId === main.processId && frame.routingId === main.routingId;
}

export function registerIpc(api: DesktopApi, target: { window: BrowserWindow; appUrl: string }, log: Logger): () => void {
  const { window, appUrl } = target;
  for (const method of invokableMethods) {
    ipcMain.handle(ipcChannel(method), (event: IpcMainInvokeEvent, ...args: unknown[]) =>
      invokeGuarded(
        api,
        appUrl,
        {
          method,
          senderUrl: event.senderFrame?.url,
          fromMainFrame: isMainFrame(event, window),
          args,
        },
        (m, e) => log.error(`IPC ${m} failed: ${e instanceof Error ? e.message : String(e)}`),
      ),
    );
  }

  const send = (channel: string, value: unknown) => {
    if (!window.isDestroyed()) window.webContents.send(channel, value);
  };
  const offTx = api.onTransactionChanged((record) => send(ipcEvent.tx, record));
  const offDevchain = api.onDevchainStatus((status) => send(ipcEvent.devchain, status));
  const offStatus = api.onAppStatus((status) => send(ipcEvent.status, status));

  return () => {
    offTx();
    offDevchain();
    offStatus();
    for (const method of invokableMethods) ipcMain.removeHandler(ipcChannel(method));
  };
}
