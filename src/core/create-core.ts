// The one place that wires adapters to services: (options) => { start, stop, api }. Never imports electron:
// the same core runs in Electron's main process and headless under `txdesk serve`.
import { ensureDir } from '../lib/fs-dirs.js';
import { createLogger, type Logger } from '../lib/log.js';
import type { AppInfo, AppStatus, CongestionLevel, DevchainStatus, ReplacementPolicy } from '../shared/desktop-api.js';
import { TxdeskError } from '../shared/errors.js';
import { createJsonRpcChain } from './adapters/chain/chain-jsonrpc.js';
import { startAppServer, type AppServer } from './adapters/http/app-server.js';
import { ensureApiToken } from './api-token.js';
import { createFileSettingsStore } from './adapters/settings/settings-file.js';
import { openTxStore } from './adapters/sqlite/tx-store-sqlite.js';
import { createSdkTrackerFeed } from './adapters/tracker/tracker-feed-sdk.js';
import { selectKeyVault } from './adapters/vault/vault-select.js';
import { ConfigError, loadConfig, resolveDataDir, type CoreConfig, type NetworkConfig } from './config.js';
import { keyLoadRefusal, noKeyPlace, refuseDevchainFlags, startupTrackerRefusal } from './core-startup-rules.js';
import { settleConfiguredNetwork } from './configured-network.js';
import { createLinkStatus } from './services/link-status.js';
import { observeChain, watchNode } from './services/node-link.js';
import { trackerErrorWords } from './services/tracker-words.js';
import { clientIdGuard } from './services/client-id-guard.js';
import { systemClock, type Chain, type Clock, type DevchainControl, type SettingsStore, type StartEmbedded, type TrackerFeed, type TxStore } from './ports.js';
import { createCoreApi, createCoreEvents, type CoreApi } from './services/desktop-api-core.js';
import { validatedApi } from './services/desktop-api-validated.js';
import { lateApi } from './services/late-api.js';
import { createClientFeed } from './services/client-feed.js';
import { appSubscriptionId, prepareTxStoreFile } from './data-files.js';
import { readServiceHealth } from './adapters/service/service-health.js';
import { createKeyManager } from './services/key-manager.js';
import { createSettingsManager } from './services/settings-manager.js';
import { startNonceWatchdog, type NonceWatchdog } from './services/nonce-watchdog.js';
import { acquireDataDirLock } from './adapters/data-dir-lock.js';
import { createApprovals, type Approvals } from './services/approvals.js';
import { createTxEngine, type RecoverySummary, type TxEngine } from './services/tx-engine.js';

export interface CoreOptions {
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Defaults to $TXDESK_DATA_DIR or ~/.txdesk. */
  dataDir?: string;
  /** Electron passes an electron-store-backed one; headless defaults to `<dataDir>/settings.json`. */
  settingsStore?: SettingsStore;
  /** Overrides of the replacement policy (tests: short timeouts, few confirmations). */
  policy?: Partial<ReplacementPolicy>;
  /** Embedded dev chain only. */
  congestion?: CongestionLevel;
  blockTimeSeconds?: number;
  /** Port of the embedded data service; a free one unless set. */
  servicePort?: number;
  /** Starts the embedded network (src/embedded); without it only a configured network works. */
  startEmbedded?: StartEmbedded;
  /** The localhost server; `false` for none (IPC only). `allowKeyRoutes`: key and node/service URL changes over HTTP. */
  http?: { port?: number; rendererDir: string; allowKeyRoutes?: boolean } | false;
  /** Electron: `http` was chosen by the `localApi` setting, so a changed setting is reported in `pendingRestart`. */
  httpFollowsLocalApi?: boolean;
  /** better-sqlite3 binding for Electron's ABI. */
  nativeBinding?: string;
  /** Tracker subscription ackTimeout (ms) and the SDK's accepted minimum (tests against a service with a lower one). */
  ackTimeoutMs?: number;
  minAckTimeoutMs?: number;
  /** Extra origins whose token metadata may be fetched from local addresses (a configured core on a local dev chain). */
  metadataAllowOrigins?: readonly string[];
  /** Restarts the app so saved settings take effect (DesktopApi.restart); called after the caller got its answer.
   * `txdesk serve` stops and starts the core on the same port, Electron relaunches. Without it restart() is refused. */
  restart?: () => void;
  /** Tests inject these. */
  keychainAvailable?: () => Promise<boolean>;
  clock?: Clock;
  log?: Logger;
}

export interface CoreRuntime {
  config: CoreConfig;
  info: Omit<AppInfo, 'address' | 'status'>;
  /** Set when the localhost server listens. */
  appUrl: string | null;
  /** `appUrl` with the browser UI's one-time login, when the server listens. */
  loginUrl: string | null;
  /** The localhost API's token file, when the server listens. */
  apiTokenFile: string | null;
  recovery: RecoverySummary;
  store: TxStore;
  engine: TxEngine;
  chain: Chain;
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

const DEVCHAIN_POLL_MS = 1_000;
/** The embedded network's values are the app's own, none from a variable or a saved setting. */
const embeddedOrigin: NetworkConfig['origin'] = { nodeUrl: 'env', serviceUrl: 'env', clientId: 'env', platform: 'env', network: 'env' };
/** Far longer than any redelivery: the tracker drops a message once it is acked. */
const PROCESSED_ID_TTL_MS = 30 * 24 * 3600 * 1000;

export function createCore(opts: CoreOptions = {}): Core {
  const env = opts.env ?? process.env;
  const log = opts.log ?? createLogger('core');
  const events = createCoreEvents();
  const disposers: (() => Promise<void> | void)[] = [];
  let inner: CoreApi | null = null;
  let runtime: CoreRuntime | null = null;
  let starting: Promise<CoreRuntime> | null = null;
  let stopped = false;

  async function boot(): Promise<CoreRuntime> {
    const dataDir = resolveDataDir(opts.dataDir, env);
    try {
      ensureDir(dataDir, 0o700);
    } catch (e) {
      throw new Error(`Cannot create the data folder ${dataDir} (${(e as NodeJS.ErrnoException).code ?? String(e)}): set TXDESK_DATA_DIR to a folder you can write.`);
    }
    // Before anything in the folder is opened: a second process must never touch the first one's database.
    disposers.push(acquireDataDirLock(dataDir));
    const settingsStore = opts.settingsStore ?? createFileSettingsStore(dataDir, log.child('settings'));
    const config = loadConfig({ env, dataDir, saved: settingsStore.load(), ...(opts.policy ? { policy: opts.policy } : {}) });
    const embedded = config.mode === 'embedded';
    refuseDevchainFlags(embedded, opts);
    const board = createLinkStatus({
      log: log.child('link'),
      emit: (st) => events.status.forEach((l) => {
        try {
          l(st);
        } catch {
          /* a listener's bug must not break the link tracking */
        }
      }),
    });

    let net: { nodeUrl: string; serviceUrl: string; clientId: string; platform: string; network: string; origin: NetworkConfig['origin'] };
    let devchain: DevchainControl | null = null;
    let devServiceInfo: Record<string, unknown> | null = null;
    // Token metadata URIs come from the chain: local addresses only for the embedded dev chain's server and named origins.
    const metadataAllowOrigins: string[] = [...config.metadataOrigins, ...(opts.metadataAllowOrigins ?? [])];
    if (embedded) {
      log.info('no NODE_ENDPOINT/TXDESK_SERVICE_URL: starting the embedded dev chain and data service');
      const ignored = (['CLIENT_ID', 'PLATFORM', 'NETWORK'] as const).filter((n) => env[n]);
      if (ignored.length) log.warn(`${ignored.join(', ')} ignored: they apply only with NODE_ENDPOINT and TXDESK_SERVICE_URL`);
      if (!opts.startEmbedded) {
        throw new ConfigError(['This program has no embedded dev chain: set NODE_ENDPOINT and TXDESK_SERVICE_URL to a node and a txdesk data service.']);
      }
      const dev = await opts.startEmbedded({
        port: opts.servicePort ?? 0,
        ...(opts.congestion ? { congestion: opts.congestion } : {}),
        ...(opts.blockTimeSeconds !== undefined ? { blockTimeSeconds: opts.blockTimeSeconds } : {}),
        log: log.child('embedded'),
      });
      disposers.push(() => dev.stop());
      net = { nodeUrl: dev.nodeUrl, serviceUrl: dev.serviceUrl, clientId: dev.clientId, platform: dev.platform, network: dev.network, origin: embeddedOrigin };
      devchain = dev.devchain;
      devServiceInfo = dev.readyInfo;
      metadataAllowOrigins.push(dev.metadataOrigin);
    } else {
      const n = config.network!;
      net = { ...n, platform: n.platform ?? 'ethereum', network: n.network ?? 'local' };
    }

    const rawChain = createJsonRpcChain(net.nodeUrl);
    disposers.push(() => rawChain.close());
    // Every node call the core makes tells the node's link state; a refusal is an answer, only "unreachable" is not.
    const chain = observeChain(rawChain, (ok, why) =>
      board.set('node', ok ? 'connected' : 'unreachable', ok ? null : `${why} Checking again every 15 s; transactions are stored and sent again when it is back.`),
    );
    let chainId: number;
    let genesis: string;
    try {
      // Unobserved: a node down at start-up is the one start-up line below, not a link state change as well.
      [chainId, genesis] = await Promise.all([rawChain.chainId(), rawChain.genesisHash()]);
    } catch {
      throw new TxdeskError('UPSTREAM_UNAVAILABLE', `The Ethereum node at ${net.nodeUrl} could not be reached; check NODE_ENDPOINT and that the node runs.`);
    }
    let serviceDown: string | null = null;
    if (!embedded) {
      const settled = await settleConfiguredNetwork(config.network!, chainId, log);
      net = { ...settled, origin: config.network!.origin };
      serviceDown = settled.serviceDown;
      if (serviceDown) board.set('tracker', 'unreachable', `${serviceDown}; retrying with backoff up to 5 s apart, meanwhile transactions are still sent and their tracking is queued.`);
    }
    disposers.push(watchNode(chain));

    const dbFile = prepareTxStoreFile(dataDir, embedded, chainId, genesis);
    const store = openTxStore(dbFile, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
    disposers.push(() => store.close());
    store.pruneProcessed(new Date(Date.now() - PROCESSED_ID_TTL_MS).toISOString());

    // With PRIVATE_KEY the key is never stored, so no vault is even probed.
    const keychainAvailable = config.useKeychain ? opts.keychainAvailable : async () => false;
    const vault = config.envPrivateKey
      ? null
      : await selectKeyVault({
          dataDir,
          scope: embedded ? 'embedded' : 'configured',
          passphrase: config.keyPassphrase ?? undefined,
          ...(keychainAvailable ? { keychainAvailable } : {}),
          log: log.child('vault'),
        });
    if (!embedded && !config.envPrivateKey && !vault) throw new ConfigError([noKeyPlace(config.useKeychain)]);
    const keys = createKeyManager({ vault, envPrivateKey: config.envPrivateKey, chain, devchain, log: log.child('key') });
    try {
      await keys.load(embedded);
    } catch (e) {
      throw keyLoadRefusal(e);
    }
    if (!keys.signer()) log.warn('no signing key yet: generate or import one in the app (txdesk serve: start it with --allow-key-routes for POST /api/key/generate or /api/key/import)');

    let retries: NonceWatchdog | null = null;
    const settings = createSettingsManager({
      store: settingsStore,
      running: {
        nodeUrl: net.nodeUrl,
        serviceUrl: net.serviceUrl,
        platform: net.platform,
        network: net.network,
        clientId: net.clientId,
        ...(opts.httpFollowsLocalApi ? { localApi: Boolean(opts.http) } : {}),
      },
      policy: config.policy,
      embedded,
      clientIdChanged: (id) => {
        if (id) void switchClientId(id).catch((e: Error) => log.warn(`switching the tracker to the new client ID failed: ${e.message}`));
      },
      // A raised cap or limit applies at once to nonces skipped under the old one (null until the engine runs).
      policyChanged: () => void retries?.kick(),
    });

    const subscriptionId = appSubscriptionId(dataDir, chainId, genesis);
    const makeFeed = (clientId: string): TrackerFeed =>
      createSdkTrackerFeed({
        serviceUrl: net.serviceUrl,
        clientId,
        platform: net.platform,
        network: net.network,
        subscriptionId,
        ...(opts.ackTimeoutMs !== undefined ? { ackTimeout: opts.ackTimeoutMs } : {}),
        ...(opts.minAckTimeoutMs !== undefined ? { minAckTimeout: opts.minAckTimeoutMs } : {}),
        // A service found down at start-up: start-up does not wait for it.
        ...(serviceDown ? { readyTimeoutMs: 0 } : {}),
        onLink: (state, e) => {
          if (state === 'unreachable') {
            // A plain connection failure says less than the reason already shown (the start-up probe's "Cannot reach
            // the data service at …"); only a refusal (unknown clientId, network not served) says more.
            const refusal = e?.code === 'UNKNOWN_CLIENT_ID' || e?.code === 'NOT_FOUND';
            if (!refusal && board.get().tracker.state === 'unreachable') return;
            return board.set('tracker', 'unreachable', e ? trackerErrorWords(e, net) : null);
          }
          board.set('tracker', 'connected');
          queue.flush();
        },
      });
    const client = createClientFeed({ make: makeFeed, clientId: net.clientId, isUp: () => board.get().tracker.state === 'connected', log: log.child('tracker') });
    const { feed, queue } = client;
    disposers.push(() => queue.stop());
    // Link trouble is logged once per change by the board; while the link is down other errors are expected noise.
    const onTrackerError = (e: Error) => (board.get().tracker.state === 'connected' ? log.warn(`tracker: ${e.message}`) : log.debug?.(`tracker: ${e.message}`));
    async function switchClientId(clientId: string): Promise<void> {
      if (stopped) return;
      board.set('tracker', 'connecting', 'Switching the tracker to the new client ID.');
      await client.switchTo(clientId, (m) => engine.handleMessage(m), onTrackerError);
      // Hashes were registered under the old client ID: register every open one under the new one.
      await engine.recover();
      log.info('the tracker now uses the new client ID');
    }

    const info: Omit<AppInfo, 'address' | 'status'> = { mode: config.mode, chainId, nodeUrl: net.nodeUrl, serviceUrl: net.serviceUrl, platform: net.platform, network: net.network };
    let appUrl: string | null = null;
    let loginUrl: string | null = null;
    let apiTokenFile: string | null = null;
    let api: CoreApi;
    const engine = createTxEngine({
      store,
      chain,
      feed,
      clock: opts.clock ?? systemClock,
      log: log.child('tx'),
      chainId,
      signer: () => keys.signer(),
      policy: () => settings.policy(),
      changed: (recs) => recs.forEach((r) => api.emitTransaction(r)),
    });
    // Let in-flight work (a message half-applied, a broadcast) finish before the store closes.
    disposers.push(() => {
      engine.stop();
      return Promise.race([engine.idle(), new Promise<void>((r) => setTimeout(r, 5_000).unref())]);
    });
    // Runs before the wait above (disposers run newest first): no new message may start once stopping has begun.
    disposers.push(() => feed.stop());
    const approvals = createApprovals({
      // On the embedded dev chain the funds are play money: tools are signed for at once.
      required: !embedded,
      clock: opts.clock ?? systemClock,
      timeoutMs: () => settings.approvalTimeoutMs(),
      policy: () => settings.policy(),
      rules: settings.approvalRules,
      changed: (waiting) => events.approvals.forEach((l) => {
        try {
          l(waiting);
        } catch {
          /* a listener's bug must not stop an approval */
        }
      }),
      log: log.child('approvals'),
    });
    disposers.push(() => approvals.stop());
    api = validatedApi(createCoreApi({
      info,
      approvals,
      chain,
      status: () => board.get(),
      store,
      engine,
      keys,
      settings,
      devchain,
      appOrigin: () => appUrl,
      events,
      metadataAllowOrigins,
      checkSettings: clientIdGuard({ running: () => settings.get() }),
      serviceHealth: () => readServiceHealth(net),
      ...(opts.restart ? { restart: opts.restart } : {}),
    }));

    const recovery = await engine.recover();
    if (recovery.nonces > 0) {
      log.info(`recovered ${recovery.nonces} open nonce(s): ${recovery.mined} mined, ${recovery.usedElsewhere} used elsewhere, ${recovery.rebroadcast} sent again, ${recovery.tracked} tracked`);
    }
    try {
      await feed.start((m) => engine.handleMessage(m), onTrackerError);
    } catch (e) {
      throw startupTrackerRefusal(e, net);
    }
    // Disposers run newest first: no retry starts once stopping has begun; one in flight is awaited by engine.idle().
    const watchdog = startNonceWatchdog(engine, log.child('watchdog'));
    retries = watchdog;
    disposers.push(() => watchdog.stop());

    if (devchain) disposers.push(pollDevchain(devchain, api, log));

    if (opts.http !== false && opts.http) {
      const { token, file } = ensureApiToken(dataDir);
      const auth = { token, tokenFile: file, keyRoutes: opts.http.allowKeyRoutes === true };
      const server: AppServer = await startAppServer({ api, auth, rendererDir: opts.http.rendererDir, log: log.child('http'), ...(opts.http.port !== undefined ? { port: opts.http.port } : {}) });
      disposers.push(() => server.close());
      appUrl = server.url;
      loginUrl = server.loginUrl;
      apiTokenFile = file;
    }

    inner = api;
    runtime = { config, info, appUrl, loginUrl, apiTokenFile, recovery, store, engine, chain, approvals, devServiceInfo, address: () => keys.signer()?.address ?? null, status: () => board.get() };
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

  const api = lateApi(ready, events);

  return {
    api,
    runtime: () => runtime,
    start() {
      if (stopped) return Promise.reject(new Error('This core was stopped; create a new one.'));
      starting ??= boot().catch(async (e) => {
        await runDisposers();
        throw e;
      });
      return starting;
    },
    async stop() {
      stopped = true;
      if (starting) await starting.catch(() => undefined);
      await runDisposers();
    },
  };

  async function runDisposers() {
    for (const d of disposers.splice(0).reverse()) {
      try {
        await d();
      } catch (e) {
        log.warn(`stopping: ${(e as Error).message}`);
      }
    }
  }
}

/** The block height, base fee and congestion of the embedded chain, pushed on every change. */
function pollDevchain(devchain: DevchainControl, api: CoreApi, log: Logger): () => void {
  let last = '';
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    devchain
      .status()
      .then((s: DevchainStatus) => {
        const key = `${s.blockNumber}|${s.baseFeeWei}|${s.congestion}`;
        if (key !== last) {
          last = key;
          api.emitDevchain(s);
        }
      })
      .catch((e: Error) => log.warn(`dev chain status: ${e.message}`))
      .finally(() => {
        busy = false;
      });
  }, DEVCHAIN_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
