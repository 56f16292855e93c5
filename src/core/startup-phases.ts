// The phases of the app core's start-up, in the order create-core.ts runs them. Each takes what it needs, returns what
// later phases need, and registers the undo of each thing it starts right after starting it, so stopping (or a failure
// half-way) undoes exactly what exists, newest first.
import { ensureDir } from '../lib/fs-dirs.js';
import type { Logger } from '../lib/log.js';
import { repeatWithoutOverlap } from '../lib/repeat.js';
import type { Shutdown } from '../lib/shutdown.js';
import type { AppInfo } from '../shared/desktop-api.js';
import { TxdeskError } from '../shared/errors.js';
import { createJsonRpcChain } from './adapters/chain/chain-jsonrpc.js';
import { createWalletSigner } from './adapters/chain/chain-signer.js';
import { acquireDataDirLock } from './adapters/data-dir-lock.js';
import { startAppServer } from './adapters/http/app-server.js';
import { webSources } from './adapters/net/web-sources.js';
import { readServiceHealth } from './adapters/service/service-health.js';
import { createFileSettingsStore } from './adapters/settings/settings-file.js';
import { openTxStore } from './adapters/sqlite/tx-store-sqlite.js';
import { createSdkTrackerFeed } from './adapters/tracker/tracker-feed-sdk.js';
import { selectKeyVault } from './adapters/vault/vault-select.js';
import { ensureApiToken } from './api-token.js';
import { ConfigError, loadConfig, resolveDataDir, type CoreConfig, type NetworkConfig } from './config.js';
import type { CoreOptions, CoreRuntime } from './create-core.js';
import { appSubscriptionId, prepareTxStoreFile } from './data-files.js';
import { systemClock, type DevchainControl, type EmbeddedNetwork, type SettingsStore, type TxStore } from './ports.js';
import { createApprovals } from './services/approvals.js';
import { clientIdGuard } from './services/client-id-guard.js';
import { createClientFeed } from './services/client-feed.js';
import { createCoreApi, emitToEach, type CoreApi, type CoreEvents } from './services/desktop-api-core.js';
import { validatedApi } from './services/desktop-api-validated.js';
import { createKeyManager, type KeyManager } from './services/key-manager.js';
import type { LinkStatusBoard } from './services/link-status.js';
import { observeChain, watchNode } from './services/node-link.js';
import { startNonceWatchdog, type NonceWatchdog } from './services/nonce-watchdog.js';
import { createSettingsManager } from './services/settings-manager.js';
import { describeTrackerError } from './services/tracker-error-messages.js';
import { createTxEngine } from './services/tx-engine.js';
import { settleConfiguredNetwork } from './startup-checks.js';
import { keyLoadRefusal, noKeyPlace, refuseDevchainFlags, startupTrackerRefusal } from './startup-refusals.js';

/** What every phase may use. */
export interface StartContext {
  opts: CoreOptions;
  env: NodeJS.ProcessEnv;
  log: Logger;
  events: CoreEvents;
  board: LinkStatusBoard;
  shutdown: Shutdown;
}

const DEVCHAIN_POLL_MS = 1_000;
/** The embedded network's values are the app's own, none from a variable or a saved setting. */
const embeddedOrigin: NetworkConfig['origin'] = { nodeUrl: 'env', serviceUrl: 'env', clientId: 'env', platform: 'env', network: 'env' };
/** Far longer than any redelivery: the tracker drops a message once it is acked. */
const PROCESSED_ID_TTL_MS = 30 * 24 * 3600 * 1000;

/** Phase 1: makes the data folder and locks it, then reads the saved settings and the configuration. */
export function lockDataDir({ opts, env, log, shutdown }: StartContext): { dataDir: string; settingsStore: SettingsStore; config: CoreConfig } {
  const dataDir = resolveDataDir(opts.dataDir, env);
  try {
    ensureDir(dataDir, 0o700);
  } catch (e) {
    throw new Error(`Cannot create the data folder ${dataDir} (${(e as NodeJS.ErrnoException).code ?? String(e)}): set TXDESK_DATA_DIR to a folder you can write.`);
  }
  // Before anything in the folder is opened: a second process must never touch the first one's database.
  shutdown.add(acquireDataDirLock(dataDir));
  const settingsStore = opts.settingsStore ?? createFileSettingsStore(dataDir, log.child('settings'));
  const config = loadConfig({ env, dataDir, saved: settingsStore.load(), ...(opts.policy ? { policy: opts.policy } : {}) });
  refuseDevchainFlags(config.mode === 'embedded', opts);
  return { dataDir, settingsStore, config };
}

export type ReachedChain = Awaited<ReturnType<typeof reachChain>>;

/** Phase 2: starts the embedded network or takes the configured one, reads the node's chain and checks the parts of a
 * configured network against it (startup-checks.ts). */
export async function reachChain(c: StartContext, config: CoreConfig) {
  const { board, shutdown } = c;
  const dev = config.mode === 'embedded' ? await startEmbedded(c) : null;
  const nodeUrl = dev?.nodeUrl ?? config.network!.nodeUrl;
  const rawChain = createJsonRpcChain(nodeUrl);
  shutdown.add(() => rawChain.close());
  // Every node call the core makes tells the node's link state; a refusal is an answer, only "unreachable" is not.
  const chain = observeChain(rawChain, (ok, why) =>
    board.set('node', ok ? 'connected' : 'unreachable', ok ? null : `${why} Checking again every 15 s; transactions are stored and sent again when it is back.`),
  );
  // Unobserved: a node down at start-up is the one start-up line below, not a link state change as well.
  const [chainId, genesis] = await Promise.all([rawChain.chainId(), rawChain.genesisHash()]).catch(() => {
    throw new TxdeskError('UPSTREAM_UNAVAILABLE', `The Ethereum node at ${nodeUrl} could not be reached; check NODE_ENDPOINT and that the node runs.`);
  });
  const { net, serviceDown } = dev
    ? { net: { nodeUrl, serviceUrl: dev.serviceUrl, clientId: dev.clientId, platform: dev.platform, network: dev.network, origin: embeddedOrigin }, serviceDown: null }
    : await settleConfiguredNetwork(config.network!, chainId, c.log);
  if (serviceDown) board.set('tracker', 'unreachable', `${serviceDown}; retrying with backoff up to 5 s apart, meanwhile transactions are still sent and their tracking is queued.`);
  shutdown.add(watchNode(chain));
  const info: Omit<AppInfo, 'address' | 'status'> = { mode: config.mode, chainId, nodeUrl, serviceUrl: net.serviceUrl, platform: net.platform, network: net.network };
  // Token metadata URIs come from the chain: local addresses only for the embedded dev chain's server and named origins.
  const metadataAllowOrigins = [...config.metadataOrigins, ...(c.opts.metadataAllowOrigins ?? []), ...(dev ? [dev.metadataOrigin] : [])];
  return { net, info, chain, genesis, serviceDown, metadataAllowOrigins, devchain: dev?.devchain ?? null, devServiceInfo: dev?.readyInfo ?? null };
}

async function startEmbedded({ opts, env, log, shutdown }: StartContext): Promise<EmbeddedNetwork> {
  log.info('no NODE_ENDPOINT/TXDESK_SERVICE_URL: starting the embedded dev chain and data service');
  const ignored = (['CLIENT_ID', 'PLATFORM', 'NETWORK'] as const).filter((n) => env[n]);
  if (ignored.length) log.warn(`${ignored.join(', ')} ignored: they apply only with NODE_ENDPOINT and TXDESK_SERVICE_URL`);
  if (!opts.startEmbedded) throw new ConfigError(['This program has no embedded dev chain: set NODE_ENDPOINT and TXDESK_SERVICE_URL to a node and a txdesk data service.']);
  const dev = await opts.startEmbedded({ port: opts.servicePort ?? 0, congestion: opts.congestion, blockTimeSeconds: opts.blockTimeSeconds, log: log.child('embedded') });
  shutdown.add(() => dev.stop());
  return dev;
}

/** Phase 3: opens this chain's transaction store and loads the signing key. */
export async function openStoreAndKey({ opts, log, shutdown }: StartContext, dataDir: string, config: CoreConfig, reached: ReachedChain) {
  const embedded = config.mode === 'embedded';
  const store = openTxStore(prepareTxStoreFile(dataDir, embedded, reached.info.chainId, reached.genesis), opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
  shutdown.add(() => store.close());
  store.pruneProcessed(new Date(Date.now() - PROCESSED_ID_TTL_MS).toISOString());

  // With PRIVATE_KEY the key is never stored, so no vault is even probed.
  const keychainAvailable = config.useKeychain ? opts.keychainAvailable : async () => false;
  const [scope, passphrase] = [embedded ? 'embedded' : 'configured', config.keyPassphrase ?? undefined] as const;
  const vault = config.envPrivateKey ? null : await selectKeyVault({ dataDir, scope, passphrase, ...(keychainAvailable ? { keychainAvailable } : {}), log: log.child('vault') });
  if (!embedded && !config.envPrivateKey && !vault) throw new ConfigError([noKeyPlace(config.useKeychain)]);
  const keys = createKeyManager({ vault, envPrivateKey: config.envPrivateKey, signerFor: createWalletSigner, chain: reached.chain, devchain: reached.devchain, log: log.child('key') });
  await keys.load(embedded).catch((e: unknown) => {
    throw keyLoadRefusal(e);
  });
  if (!keys.signer()) log.warn('no signing key yet: generate or import one in the app (txdesk serve: start it with --allow-key-routes for POST /api/key/generate or /api/key/import)');
  return { store, keys };
}

export type Tracking = ReturnType<typeof openTracking>;

/** Phase 4: the tracker subscription of this data folder and chain, behind the client-ID switch and the tracking
 * queue; its link state goes to the board. Phase 5 starts it once recovery has registered the open hashes. */
export function openTracking({ opts, log, board, shutdown }: StartContext, dataDir: string, { net, info, genesis, serviceDown }: ReachedChain) {
  const client = createClientFeed({
    make: (clientId) =>
      createSdkTrackerFeed({
        serviceUrl: net.serviceUrl,
        clientId,
        platform: net.platform,
        network: net.network,
        subscriptionId: appSubscriptionId(dataDir, info.chainId, genesis),
        ackTimeout: opts.ackTimeoutMs,
        minAckTimeout: opts.minAckTimeoutMs,
        // A service found down at start-up: start-up does not wait for it.
        readyTimeoutMs: serviceDown ? 0 : undefined,
        onLink: (state, e) => {
          if (state === 'unreachable') {
            // A plain connection failure says less than the reason already shown (the start-up probe's "Cannot reach
            // the data service at …"); only a refusal (unknown clientId, network not served) says more.
            const refusal = e?.code === 'UNKNOWN_CLIENT_ID' || e?.code === 'NOT_FOUND';
            if (!refusal && board.get().tracker.state === 'unreachable') return;
            return board.set('tracker', 'unreachable', e ? describeTrackerError(e, net) : null);
          }
          board.set('tracker', 'connected');
          client.queue.flush();
        },
      }),
    clientId: net.clientId,
    isUp: () => board.get().tracker.state === 'connected',
    log: log.child('tracker'),
  });
  shutdown.add(() => client.queue.stop());
  // Link trouble is logged once per change by the board; while the link is down other errors are expected noise.
  const onError = (e: Error) => (board.get().tracker.state === 'connected' ? log.warn(`tracker: ${e.message}`) : log.debug?.(`tracker: ${e.message}`));
  return { ...client, onError };
}

/** Phase 5: the settings, the transaction engine and the approvals behind one validated api; then the recovery of open
 * nonces, the tracker subscription, the nonce watchdog and (embedded) the dev chain's status push. */
export async function startEngine(
  { opts, log, events, board, shutdown }: StartContext,
  p: { config: CoreConfig; settingsStore: SettingsStore; reached: ReachedChain; store: TxStore; keys: KeyManager; tracking: Tracking; appOrigin(): string | null },
) {
  const { config, reached, store, keys, tracking } = p;
  const { net, chain, devchain } = reached;
  const embedded = config.mode === 'embedded';
  let watchdog: NonceWatchdog | null = null;
  const settings = createSettingsManager({
    store: p.settingsStore,
    running: { ...net, ...(opts.httpFollowsLocalApi ? { localApi: Boolean(opts.http) } : {}) },
    policy: config.policy,
    embedded,
    clientIdChanged: (id) => {
      if (id) void switchClientId(id).catch((e: Error) => log.warn(`switching the tracker to the new client ID failed: ${e.message}`));
    },
    // A raised cap or limit applies at once to nonces skipped under the old one (null until the watchdog runs).
    policyChanged: () => void watchdog?.kick(),
  });
  async function switchClientId(clientId: string): Promise<void> {
    if (shutdown.isStopping) return;
    board.set('tracker', 'connecting', 'Switching the tracker to the new client ID.');
    await tracking.switchTo(clientId, (m) => engine.handleMessage(m), tracking.onError);
    // Hashes were registered under the old client ID: register every open one under the new one.
    await engine.recover();
    log.info('the tracker now uses the new client ID');
  }

  const clock = opts.clock ?? systemClock;
  const engine = createTxEngine({
    store,
    chain,
    feed: tracking.feed,
    clock,
    log: log.child('tx'),
    chainId: reached.info.chainId,
    signer: () => keys.signer(),
    policy: () => settings.policy(),
    changed: (recs) => recs.forEach((r) => api.emitTransaction(r)),
  });
  // Runs before the store closes (registered after it): in-flight work (a message half-applied, a broadcast) ends first.
  shutdown.add(() => {
    engine.stop();
    return Promise.race([engine.idle(), new Promise<void>((r) => setTimeout(r, 5_000).unref())]);
  });
  // Runs before the engine's wait (registered after it): no new message may start once stopping has begun.
  shutdown.add(() => tracking.feed.stop());
  const approvals = createApprovals({
    // On the embedded dev chain the funds are play money: tools are signed for at once.
    required: !embedded,
    clock,
    timeoutMs: () => settings.approvalTimeoutMs(),
    policy: () => settings.policy(),
    rules: settings.approvalRules,
    changed: (waiting) => emitToEach(events.approvals, waiting),
    log: log.child('approvals'),
  });
  shutdown.add(() => approvals.stop());
  const api = validatedApi(
    createCoreApi({
      info: reached.info,
      approvals,
      chain,
      status: () => board.get(),
      store,
      engine,
      keys,
      settings,
      devchain,
      appOrigin: p.appOrigin,
      events,
      web: webSources(reached.info.serviceUrl, reached.metadataAllowOrigins),
      checkSettings: clientIdGuard({ running: () => settings.get() }),
      serviceHealth: () => readServiceHealth(net),
      ...(opts.restart ? { restart: opts.restart } : {}),
    }),
  );

  const recovery = await engine.recover();
  if (recovery.nonces > 0) {
    log.info(`recovered ${recovery.nonces} open nonce(s): ${recovery.mined} mined, ${recovery.usedElsewhere} used elsewhere, ${recovery.rebroadcast} sent again, ${recovery.tracked} tracked`);
  }
  await tracking.feed.start((m) => engine.handleMessage(m), tracking.onError).catch((e: unknown) => {
    throw startupTrackerRefusal(e, net);
  });
  watchdog = startNonceWatchdog(engine, log.child('watchdog'));
  // Runs before engine.idle() (registered after it): no retry starts once stopping has begun; one in flight is awaited.
  shutdown.add(() => watchdog?.stop());
  if (devchain) shutdown.add(pollDevchain(devchain, api, log));
  return { settings, engine, approvals, api, recovery };
}

/** Phase 6: the localhost server (the HTTP API and the renderer as a web page), when the options ask for one. */
export async function serve({ opts, log, shutdown }: StartContext, dataDir: string, api: CoreApi): Promise<Pick<CoreRuntime, 'appUrl' | 'loginUrl' | 'apiTokenFile'>> {
  if (!opts.http) return { appUrl: null, loginUrl: null, apiTokenFile: null };
  const { token, file } = ensureApiToken(dataDir);
  const auth = { token, tokenFile: file, keyRoutes: opts.http.allowKeyRoutes === true };
  const server = await startAppServer({ api, auth, rendererDir: opts.http.rendererDir, log: log.child('http'), ...(opts.http.port !== undefined ? { port: opts.http.port } : {}) });
  shutdown.add(() => server.close());
  return { appUrl: server.url, loginUrl: server.loginUrl, apiTokenFile: file };
}

/** The block height, base fee and congestion of the embedded chain, pushed on every change. */
function pollDevchain(devchain: DevchainControl, api: CoreApi, log: Logger): () => void {
  let last = '';
  const poll = async () => {
    const s = await devchain.status();
    const key = `${s.blockNumber}|${s.baseFeeWei}|${s.congestion}`;
    if (key === last) return;
    last = key;
    api.emitDevchain(s);
  };
  return repeatWithoutOverlap(() => poll().catch((e: Error) => log.warn(`dev chain status: ${e.message}`)), DEVCHAIN_POLL_MS);
}
