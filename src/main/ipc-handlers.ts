// Registers one ipcMain handler per call of the contract table and forwards every event of the table to the window;
// returns a disposer.
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { callMethods, desktopMethods, eventMethods, ipcChannel, ipcEventChannel, type DesktopApi } from '../shared/desktop-api.js';
import type { Logger } from '../lib/log.js';
import { invokeGuarded } from './ipc-guard.js';

/** Frames are compared by process and routing id: WebFrameMain wrappers are not guaranteed to be the same object. */
function isMainFrame(event: IpcMainInvokeEvent, window: BrowserWindow): boolean {
  if (window.isDestroyed() || event.sender.id !== window.webContents.id) return false;
  const frame = event.senderFrame;
  const main = window.webContents.mainFrame;
  return frame !== null && frame.processId === main.processId && frame.routingId === main.routingId;
}

export function registerIpc(api: DesktopApi, target: { window: BrowserWindow; appUrl: string }, log: Logger): () => void {
  const { window, appUrl } = target;
  for (const method of callMethods) {
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

  const offs = eventMethods.map((method) => {
    const channel = ipcEventChannel(desktopMethods[method].event);
    return (api[method] as (l: (v: unknown) => void) => () => void)((value) => {
      if (!window.isDestroyed()) window.webContents.send(channel, value);
    });
  });

  return () => {
    offs.forEach((off) => off());
    for (const method of callMethods) ipcMain.removeHandler(ipcChannel(method));
  };
}
