// Electron entry: thin glue. Opens the window at once, starts the core (the same one `txdesk serve` runs) with
// electron-store settings, serves it to the renderer over guarded IPC (token images over the txdesk-image scheme),
// and stops it cleanly on quit.
import { app, dialog, protocol } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../core/create-core.js';
import { startEmbeddedNetwork } from '../embedded/embedded-network.js';
import { createLogger } from '../lib/log.js';
import { tokenImageScheme } from '../shared/desktop-api.js';
import { appProtocolResponse, appSchemePrivileges, APP_SCHEME } from './app-protocol.js';
import { tokenImageResponse, tokenImageSchemePrivileges } from './image-protocol.js';
import { registerIpc } from './ipc-handlers.js';
import { httpFromLocalApiSetting } from './local-api-setting.js';
import { redirectSqliteBinding } from './native-sqlite.js';
import { createElectronSettingsStore } from './settings-electron-store.js';
import { createAppWindow } from './window.js';

const outDir = fileURLToPath(new URL('.', import.meta.url));
const log = createLogger('desktop');

// Every renderer sandboxed, whatever a window asks for.
app.enableSandbox();
// The page comes from the app: scheme and token images only through txdesk-image: (both served below); schemes must
// be declared before ready.
protocol.registerSchemesAsPrivileged([appSchemePrivileges, tokenImageSchemePrivileges]);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  void main();
}

/** In a packaged app, anvil sits in app.asar.unpacked (electron-builder asarUnpack); spawn cannot run it from the archive. */
function packagedAnvil(): void {
  if (!app.isPackaged || process.env.TXDESK_ANVIL_BIN) return;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  process.env.TXDESK_ANVIL_BIN = join(
    process.resourcesPath,
    'app.asar.unpacked',
    'node_modules',
    '@foundry-rs',
    `anvil-${process.platform}-${arch}`,
    'bin',
    exe,
  );
}

async function main(): Promise<void> {
  redirectSqliteBinding(process.env.TXDESK_SQLITE_BINDING);
  packagedAnvil();
  await app.whenReady();

  const rendererDir = join(outDir, '../renderer');
  const settingsStore = createElectronSettingsStore(undefined, log.child('settings'));
  const core = createCore({
    env: process.env,
    // With nothing configured, the dev chain and the data service run inside the app, composed here above the core.
    startEmbedded: startEmbeddedNetwork,
    settingsStore,
    http: httpFromLocalApiSetting(settingsStore.load(), rendererDir),
    httpFollowsLocalApi: true,
    ...(process.env.TXDESK_SQLITE_BINDING ? { nativeBinding: process.env.TXDESK_SQLITE_BINDING } : {}),
    log,
    // DesktopApi.restart: a new process reads the saved settings; quitting runs the clean stop below first.
    restart: () => {
      app.relaunch();
      app.quit();
    },
  });
  // core.api's calls wait for the start to finish: the window opens at once and its first calls resolve when ready.
  const ready = core.start();
  protocol.handle(APP_SCHEME, (request) => appProtocolResponse(request.url, rendererDir));
  protocol.handle(tokenImageScheme, (request) => tokenImageResponse((url) => core.api.fetchTokenImage(url), request.url));
  const target = createAppWindow(outDir);
  const disposeIpc = registerIpc(core.api, target, log);

  ready.catch((e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    log.error(`the app core did not start: ${message}`);
    dialog.showErrorBox('txdesk could not start', message);
    // Bad configuration exits 2 like `txdesk serve` (ConfigError.exitCode); other failures 1.
    const code = (e as { exitCode?: unknown } | null)?.exitCode;
    app.exit(typeof code === 'number' ? code : 1);
  });

  app.on('second-instance', () => {
    if (target.window.isDestroyed()) return;
    if (target.window.isMinimized()) target.window.restore();
    target.window.focus();
  });
  // One window per app on every platform: closing it quits, so the core and its child processes never linger.
  app.on('window-all-closed', () => app.quit());

  let stopping = false;
  app.on('before-quit', (event) => {
    if (stopping) return;
    stopping = true;
    event.preventDefault();
    disposeIpc();
    const timeout = new Promise((resolve) => setTimeout(resolve, 10_000));
    void Promise.race([core.stop(), timeout])
      .catch((e: unknown) => log.error(`stopping the core failed: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => app.exit(0));
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
}
