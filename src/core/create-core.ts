// The one place that wires adapters to services: (options) => { start, stop, api }; start() runs the phases of
// startup-phases.ts. Never imports electron: the same core runs in Electron's main process and under `txdesk serve`.
import { createLogger } from '../lib/log.js';
import { createShutdown } from '../lib/shutdown.js';
import type { AppInfo, AppStatus } from '../shared/desktop-api.js';
import { TxdeskError } from '../shared/errors.js';
import type { CoreConfig } from './config.js';
import type { ChainSession } from './chain-session.js';
import type { Chain, TxStore } from './ports.js';
import { apiAfterStart } from './services/desktop-api-after-start.js';
import { createCoreEvents, type CoreApi } from './services/desktop-api-core.js';
import type { Approvals } from './services/approvals.js';
import type { NetworkSessions } from './services/network-sessions.js';
import type { RecoverySummary, TxEngine } from './services/tx-engine.js';
import type { CoreOptions } from './core-options.js';
import { lockDataDir, openKey, openNetworks, reachChain, serve, type LocalServer, type StartContext } from './startup-phases.js';

// The core's entry for Electron's main process, which reaches the core only through this module: the pieces of the
// localhost server it serves over its own schemes, and the settings check for its electron-store file.
export { fileIn, TYPES } from './adapters/http/app-server-static.js';
export { tokenImageHeaders } from './adapters/net/token-image.js';
export { droppedWarning, validatePersistedSettings } from './adapters/settings/settings-validate.js';
export type { CoreOptions } from './core-options.js';

export interface CoreRuntime extends LocalServer {
  config: CoreConfig;
  /** The active network (another one after a switch). */
  readonly info: Omit<AppInfo, 'address' | 'status' | 'toolRpc'>;
  /** The start network's recovery. */
  recovery: RecoverySummary;
  /** The active network's store, engine and node. */
  readonly store: TxStore;
  readonly engine: TxEngine;
  readonly chain: Chain;
  /** Every network the core has open, and the active one. */
  sessions: NetworkSessions<ChainSession>;
  /** Tool requests waiting for a person (configured networks). */
  approvals: Approvals;
  /** Embedded mode only: the in-process dev service, for its ready line. */
  devServiceInfo: Record<string, unknown> | null;
  /** The signing account (never the key), or null. */
  address(): string | null;
  /** The tracker's and the node's link state now. */
  status(): AppStatus;
}

export interface Core {
  /** A DesktopApi whose calls wait for start(); listeners may be added at any time. */
  api: CoreApi;
  start(): Promise<CoreRuntime>;
  stop(): Promise<void>;
  runtime(): CoreRuntime | null;
}

export function createCore(opts: CoreOptions = {}): Core {
  const env = opts.env ?? process.env;
  const log = opts.log ?? createLogger('core');
  const events = createCoreEvents();
  // Each phase registers the undo of what it starts; stop() and a failed start both run them, newest first.
  const shutdown = createShutdown((e) => log.warn(`stopping: ${(e as Error).message}`));
  let inner: CoreApi | null = null;
  let runtime: CoreRuntime | null = null;
  let starting: Promise<CoreRuntime> | null = null;
  let stopped = false;

  /** The phases of startup-phases.ts, in order. */
  async function boot(): Promise<CoreRuntime> {
    const c: StartContext = { opts, env, log, events, shutdown };
    const { dataDir, settingsStore, config } = lockDataDir(c);
    const reached = await reachChain(c, config);
    // The balance is read on the active network's node, known once phase 4 has opened it.
    let sessions: NetworkSessions<ChainSession> | null = null;
    const activeChain = () => {
      if (!sessions) throw new TxdeskError('CONFLICT', 'The app core has not opened its network yet; retry in a moment.');
      return sessions.active().chain;
    };
    const keys = await openKey({ ...c, config }, dataDir, reached, activeChain);
    // The api tells tools the app's own origin and token file, known once phase 5 listens.
    let served: Awaited<ReturnType<typeof serve>> | null = null;
    const opened = await openNetworks(c, {
      dataDir,
      config,
      settingsStore,
      reached,
      keys,
      appOrigin: () => served?.appUrl ?? null,
      apiTokenFile: () => served?.apiTokenFile ?? null,
    });
    sessions = opened.sessions;
    const { approvals, api, recovery } = opened;
    served = await serve(c, dataDir, api);
    inner = api;
    const open = opened.sessions;
    runtime = {
      config,
      get info() {
        return open.active().info;
      },
      ...served,
      recovery,
      get store() {
        return open.active().store;
      },
      get engine() {
        return open.active().engine;
      },
      get chain() {
        return open.active().chain;
      },
      sessions: open,
      approvals,
      devServiceInfo: reached.devServiceInfo,
      address: () => keys.signer()?.address ?? null,
      status: () => open.active().board.get(),
    };
    return runtime;
  }

  async function ready(): Promise<CoreApi> {
    if (inner) return inner;
    if (!starting) throw new TxdeskError('CONFLICT', 'The app core has not been started.');
    try {
      await starting;
    } catch {
      throw new TxdeskError('UPSTREAM_UNAVAILABLE', 'The app core failed to start; see its log, fix the cause and restart.');
    }
    return inner!;
  }

  return {
    api: apiAfterStart(ready, events),
    runtime: () => runtime,
    start() {
      if (stopped) return Promise.reject(new Error('This core was stopped; create a new one.'));
      starting ??= boot().catch(async (e) => {
        await shutdown.run();
        throw e;
      });
      return starting;
    },
    async stop() {
      stopped = true;
      if (starting) await starting.catch(() => undefined);
      await shutdown.run();
    },
  };
}
