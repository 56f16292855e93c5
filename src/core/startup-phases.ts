// The phases of the app core's start-up, in the order create-core.ts runs them. Each takes what it needs, returns what
// later phases need, and registers the undo of each thing it starts right after starting it, so stopping (or a failure
// half-way) undoes exactly what exists, newest first.
import { ensureDir } from '../lib/fs-dirs.js';
import type { Logger } from '../lib/log.js';
import { repeatWithoutOverlap } from '../lib/repeat.js';
import type { Shutdown } from '../lib/shutdown.js';
import type { NetworkRef } from '../shared/desktop-api.js';
import { TxdeskError } from '../shared/errors.js';
import { createJsonRpcChain } from './adapters/chain/chain-jsonrpc.js';
import { createWalletSigner } from './adapters/chain/chain-signer.js';
import { acquireDataDirLock } from './adapters/data-dir-lock.js';
import { startAppServer } from './adapters/http/app-server.js';
import { webSources } from './adapters/net/web-sources.js';
import { readServiceHealth } from './adapters/service/service-health.js';
import { readServedNetworks } from './adapters/service/service-networks.js';
import { createFileSettingsStore } from './adapters/settings/settings-file.js';
import { selectKeyVault } from './adapters/vault/vault-select.js';
import { ensureApiToken } from './api-token.js';
import { openChainSession, type ChainSession, type SessionTarget } from './chain-session.js';
import { ConfigError, loadConfig, resolveDataDir, type CoreConfig, type NetworkConfig } from './config.js';
import type { CoreOptions } from './core-options.js';
import { clearEmbeddedStores } from './data-files.js';
import { networkKey } from '../shared/networks.js';
import { networkList, nodeUrlFor, sameNetwork, switchRefusal, type KnownNetwork } from './domain/networks.js';
import { systemClock, type Chain, type DevchainControl, type EmbeddedChain, type EmbeddedNetwork, type SettingsStore } from './ports.js';
import { createApprovals } from './services/approvals.js';
import { clientIdGuard } from './services/client-id-guard.js';
import { createCoreApi, emitToEach, onChain, type CoreApi, type CoreEvents } from './services/desktop-api-core.js';
import { validatedApi } from './services/desktop-api-validated.js';
import { createKeyManager, type KeyManager } from './services/key-manager.js';
import { createNetworkSessions, type NetworkSessions } from './services/network-sessions.js';
import { createSettingsManager } from './services/settings-manager.js';
import { settleConfiguredNetwork } from './startup-checks.js';
import { keyLoadRefusal, noKeyPlace, refuseDevchainFlags } from './startup-refusals.js';

/** What every phase may use. */
export interface StartContext {
  opts: CoreOptions;
  env: NodeJS.ProcessEnv;
  log: Logger;
  events: CoreEvents;
  shutdown: Shutdown;
}

const DEVCHAIN_POLL_MS = 1_000;
/** The embedded network's values are the app's own, none from a variable or a saved setting. */
const embeddedOrigin: NetworkConfig['origin'] = { nodeUrl: 'env', serviceUrl: 'env', clientId: 'env', platform: 'env', network: 'env' };

/** Phase 1: makes the data folder and locks it, then reads the saved settings and the configuration. */
export function lockDataDir({ opts, env, log, shutdown }: StartContext): {
  dataDir: string;
  settingsStore: SettingsStore;
  config: CoreConfig;
} {
  const dataDir = resolveDataDir(opts.dataDir, env);
  try {
    ensureDir(dataDir, 0o700);
  } catch (e) {
    throw new Error(
      `Cannot create the data folder ${dataDir} (${(e as NodeJS.ErrnoException).code ?? String(e)}): set TXDESK_DATA_DIR to a folder you can write.`,
    );
  }
  // Before anything in the folder is opened: a second process must never touch the first one's database.
  shutdown.add(acquireDataDirLock(dataDir));
  const settingsStore = opts.settingsStore ?? createFileSettingsStore(dataDir, log.child('settings'));
  const config = loadConfig({ env, dataDir, saved: settingsStore.load(), ...(opts.policy ? { policy: opts.policy } : {}) });
  refuseDevchainFlags(config.mode === 'embedded', opts);
  if (config.mode === 'embedded') clearEmbeddedStores(dataDir);
  return { dataDir, settingsStore, config };
}

/** Where the localhost server listens (part of the core's runtime). */
export interface LocalServer {
  /** Set when the localhost server listens. */
  appUrl: string | null;
  /** `appUrl` with the browser UI's one-time login, when the server listens. */
  loginUrl: string | null;
  /** The localhost API's token file, when the server listens. */
  apiTokenFile: string | null;
}

export type ReachedChain = Awaited<ReturnType<typeof reachChain>>;

/** Phase 2: starts the embedded network or takes the configured one: the data service, the network the app starts on
 * (a configured one's node read and checked against the service by startup-checks.ts) and the embedded dev chains. */
export async function reachChain(c: StartContext, config: CoreConfig) {
  const extraOrigins = [...config.metadataOrigins, ...(c.opts.metadataAllowOrigins ?? [])];
  if (config.mode === 'embedded') {
    const dev = await startEmbedded(c);
    const first = dev.networks.find((n) => n.isDefault) ?? dev.networks[0]!;
    const start: SessionTarget = {
      platform: first.platform,
      network: first.network,
      nodeUrl: first.nodeUrl,
      isDefault: first.isDefault,
      chainId: first.chainId,
      devchain: first.devchain,
      atStartup: true,
    };
    return {
      service: { serviceUrl: dev.serviceUrl, origin: embeddedOrigin },
      running: {
        nodeUrl: first.nodeUrl,
        serviceUrl: dev.serviceUrl,
        clientId: dev.clientId,
        platform: first.platform,
        network: first.network,
      },
      start,
      embedded: dev.networks,
      // Token metadata URIs come from the chain: local addresses only for the dev chains' servers and named origins.
      metadataAllowOrigins: [...extraOrigins, ...dev.networks.map((n) => n.metadataOrigin)],
      devServiceInfo: dev.readyInfo,
    };
  }
  const nodeUrl = config.network!.nodeUrl;
  const raw = createJsonRpcChain(nodeUrl);
  c.shutdown.add(() => raw.close());
  const [chainId, genesis] = await Promise.all([raw.chainId(), raw.genesisHash()]).catch(() => {
    throw new TxdeskError(
      'UPSTREAM_UNAVAILABLE',
      `The Ethereum node at ${nodeUrl} could not be reached; check NODE_ENDPOINT and that the node runs.`,
    );
  });
  const { net, serviceDown } = await settleConfiguredNetwork(config.network!, chainId, c.log);
  const start: SessionTarget = {
    platform: net.platform,
    network: net.network,
    nodeUrl,
    isDefault: net.isDefault,
    chainId,
    devchain: null,
    reached: { chain: raw, chainId, genesis },
    serviceDown,
    atStartup: true,
  };
  return {
    service: { serviceUrl: net.serviceUrl, origin: net.origin },
    running: { nodeUrl, serviceUrl: net.serviceUrl, clientId: net.clientId, platform: net.platform, network: net.network },
    start,
    embedded: [] as EmbeddedChain[],
    metadataAllowOrigins: extraOrigins,
    devServiceInfo: null,
  };
}

async function startEmbedded({ opts, env, log, shutdown }: StartContext): Promise<EmbeddedNetwork> {
  log.info('no NODE_ENDPOINT/TXDESK_SERVICE_URL: starting the embedded dev chain and data service');
  const ignored = (['CLIENT_ID', 'PLATFORM', 'NETWORK'] as const).filter((n) => env[n]);
  if (ignored.length) log.warn(`${ignored.join(', ')} ignored: they apply only with NODE_ENDPOINT and TXDESK_SERVICE_URL`);
  if (!opts.startEmbedded)
    throw new ConfigError([
      'This program has no embedded dev chain: set NODE_ENDPOINT and TXDESK_SERVICE_URL to a node and a txdesk data service.',
    ]);
  const dev = await opts.startEmbedded({
    port: opts.servicePort ?? 0,
    congestion: opts.congestion,
    blockTimeSeconds: opts.blockTimeSeconds,
    log: log.child('embedded'),
  });
  shutdown.add(() => dev.stop());
  return dev;
}

/** Phase 3: loads the signing key (one address on every chain); on the embedded dev chains a new key is funded on each.
 * `activeChain` is the node of the network shown, for the balance. */
export async function openKey(
  { opts, config, log }: StartContext & { config: CoreConfig },
  dataDir: string,
  reached: ReachedChain,
  activeChain: () => Pick<Chain, 'balance'>,
): Promise<KeyManager> {
  const embedded = config.mode === 'embedded';
  // With PRIVATE_KEY the key is never stored, so no vault is even probed.
  const keychainAvailable = config.useKeychain ? opts.keychainAvailable : async () => false;
  const [scope, passphrase] = [embedded ? 'embedded' : 'configured', config.keyPassphrase ?? undefined] as const;
  const vault = config.envPrivateKey
    ? null
    : await selectKeyVault({ dataDir, scope, passphrase, ...(keychainAvailable ? { keychainAvailable } : {}), log: log.child('vault') });
  if (!embedded && !config.envPrivateKey && !vault) throw new ConfigError([noKeyPlace(config.useKeychain)]);
  const keys = createKeyManager({
    vault,
    envPrivateKey: config.envPrivateKey,
    signerFor: createWalletSigner,
    chain: { balance: (address) => activeChain().balance(address) },
    devchain: everyDevchain(reached.embedded.map((n) => n.devchain)),
    log: log.child('key'),
  });
  await keys.load(embedded).catch((e: unknown) => {
    throw keyLoadRefusal(e);
  });
  if (!keys.signer())
    log.warn(
      'no signing key yet: generate or import one in the app (txdesk serve: start it with --allow-key-routes for POST /api/key/generate or /api/key/import)',
    );
  return keys;
}

/** Funding and sample tokens on every dev chain: the key is the same on all of them. */
function everyDevchain(chains: readonly DevchainControl[]): Pick<DevchainControl, 'fund' | 'giveTokens'> | null {
  if (chains.length === 0) return null;
  return {
    fund: async (address, wei) => void (await Promise.all(chains.map((d) => d.fund(address, wei)))),
    giveTokens: async (address, count) => void (await Promise.all(chains.map((d) => d.giveTokens(address, count)))),
  };
}

/** Phase 4: the settings and the approvals, the start network's chain session (store, tracker, engine, recovery,
 * watchdog), the switch to other networks, one validated api over all of it and (embedded) the dev chain's status push. */
export async function openNetworks(
  c: StartContext,
  p: {
    dataDir: string;
    config: CoreConfig;
    settingsStore: SettingsStore;
    reached: ReachedChain;
    keys: KeyManager;
    appOrigin(): string | null;
    apiTokenFile(): string | null;
  },
) {
  const { opts, log, events, shutdown } = c;
  const { config, reached, keys } = p;
  const embedded = config.mode === 'embedded';
  let sessions: NetworkSessions<ChainSession> | null = null;
  const settings = createSettingsManager({
    store: p.settingsStore,
    running: { ...reached.running, ...(opts.httpFollowsLocalApi ? { localApi: Boolean(opts.http) } : {}) },
    policy: config.policy,
    embedded,
    clientIdChanged: (id) => {
      if (!id || shutdown.isStopping) return;
      // Every open network's subscription follows, and registers its open hashes under the new client ID.
      for (const s of sessions?.all() ?? []) {
        s.switchClientId(id).then(
          () => log.info(`the tracker of ${networkKey(s)} now uses the new client ID`),
          (e: Error) => log.warn(`switching the tracker of ${networkKey(s)} to the new client ID failed: ${e.message}`),
        );
      }
    },
    // A raised cap or limit applies at once to nonces skipped under the old one, on every open network.
    policyChanged: () => sessions?.all().forEach((s) => s.kickWatchdog()),
  });
  const clock = opts.clock ?? systemClock;
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

  const open = (t: SessionTarget) =>
    openChainSession(
      {
        opts,
        log,
        dataDir: p.dataDir,
        embedded,
        service: reached.service,
        clientId: () => settings.clientId() ?? reached.running.clientId,
        signer: () => keys.signer(),
        policy: () => settings.policy(),
        clock,
        // Every network's changes are pushed, stamped with their chain: a reader keeps only the chain it shows.
        changed: (s, recs) => recs.forEach((r) => api.emitTransaction(onChain(s.info.chainId)(r))),
        // The links shown are the active network's.
        statusChanged: (s, status) => {
          if (!sessions || sessions.active() === s) api.emitAppStatus(status);
        },
      },
      t,
      config.mode,
    );
  const first = await open(reached.start);
  shutdown.add(() => first.stop());

  const startKnown: KnownNetwork = {
    platform: first.platform,
    network: first.network,
    chainId: first.info.chainId,
    nodeUrl: first.info.nodeUrl,
  };
  const embeddedKnown: KnownNetwork[] = reached.embedded.map((n) => ({
    platform: n.platform,
    network: n.network,
    chainId: n.chainId,
    nodeUrl: n.nodeUrl,
  }));
  const known = (): KnownNetwork[] => [
    startKnown,
    ...embeddedKnown,
    ...Object.entries(settings.nodeUrls()).map(([key, nodeUrl]) => {
      const [platform = '', network = ''] = key.split('/');
      return { platform, network, chainId: null, nodeUrl };
    }),
  ];
  const list = async () => {
    const all = sessions!.all();
    const served = await readServedNetworks(reached.service.serviceUrl);
    return networkList({
      served,
      known: known(),
      opened: all.map((s) => ({ platform: s.platform, network: s.network, chainId: s.info.chainId, openNonces: s.openNonces() })),
      active: sessions!.active(),
    });
  };
  // What the service said about a network when the switch to it was decided: its chain id and whether it is the default.
  const decided = new Map<string, { chainId: number | null; isDefault: boolean }>();
  sessions = createNetworkSessions<ChainSession>({
    first,
    open: (ref) => {
      const nodeUrl = nodeUrlFor(ref, { start: startKnown, embedded: embeddedKnown, saved: settings.nodeUrls() });
      if (!nodeUrl)
        return Promise.reject(
          new TxdeskError('CONFLICT', `No node URL is set for ${networkKey(ref)}: add one under Settings → Networks to switch to it.`),
        );
      const row = decided.get(networkKey(ref)) ?? { chainId: null, isDefault: false };
      const devchain = reached.embedded.find((n) => sameNetwork(n, ref))?.devchain ?? null;
      log.info(`opening ${networkKey(ref)} on ${nodeUrl}`);
      return open({ platform: ref.platform, network: ref.network, nodeUrl, isDefault: row.isDefault, chainId: row.chainId, devchain });
    },
    changed: (next, previous) => {
      const left = previous.openNonces();
      log.info(
        `switched to ${networkKey(next)} (chain ${next.info.chainId})${left ? `; ${networkKey(previous)} keeps settling its ${left} open nonce(s)` : ''}`,
      );
      api.emitAppStatus(next.board.get());
      void api.getAppInfo().then((info) => api.emitNetwork(info));
      if (next.devchain)
        void next.devchain.status().then(
          (s) => api.emitDevchain(s),
          () => undefined,
        );
    },
  });
  const sessionsReady = sessions;
  shutdown.add(() => sessionsReady.stop());

  async function switchTo(target: NetworkRef): Promise<void> {
    if (shutdown.isStopping) throw new TxdeskError('CONFLICT', 'The app is stopping; start it again to switch networks.');
    if (sameNetwork(sessionsReady.active(), target)) return;
    if (!sessionsReady.all().some((s) => sameNetwork(s, target))) {
      const rows = await list();
      const refusal = switchRefusal(target, rows);
      if (refusal) throw new TxdeskError(rows.some((n) => sameNetwork(n, target)) ? 'CONFLICT' : 'NOT_FOUND', refusal);
      const row = rows.find((n) => sameNetwork(n, target))!;
      decided.set(networkKey(target), { chainId: row.chainId, isDefault: row.isDefault });
    }
    await sessionsReady.switchTo(target);
  }

  const api = validatedApi(
    createCoreApi({
      active: () => sessionsReady.active(),
      networks: { list, switchTo },
      status: () => sessionsReady.active().board.get(),
      keys,
      settings,
      approvals,
      appOrigin: p.appOrigin,
      apiTokenFile: p.apiTokenFile,
      events,
      web: webSources(reached.service.serviceUrl, reached.metadataAllowOrigins),
      checkSettings: clientIdGuard({ running: () => settings.get() }),
      serviceHealth: () => readServiceHealth(reached.service, sessionsReady.active()),
      ...(opts.restart ? { restart: opts.restart } : {}),
    }),
  );
  if (embedded) shutdown.add(pollDevchain(() => sessionsReady.active().devchain, api, log));
  return { settings, sessions: sessionsReady, approvals, api, recovery: first.recovery };
}

/** Phase 5: the localhost server (the HTTP API and the renderer as a web page), when the options ask for one. */
export async function serve({ opts, log, shutdown }: StartContext, dataDir: string, api: CoreApi): Promise<LocalServer> {
  if (!opts.http) return { appUrl: null, loginUrl: null, apiTokenFile: null };
  const { token, file } = ensureApiToken(dataDir);
  const auth = { token, tokenFile: file, keyRoutes: opts.http.allowKeyRoutes === true };
  const server = await startAppServer({
    api,
    auth,
    rendererDir: opts.http.rendererDir,
    log: log.child('http'),
    ...(opts.http.port !== undefined ? { port: opts.http.port } : {}),
  });
  shutdown.add(() => server.close());
  return { appUrl: server.url, loginUrl: server.loginUrl, apiTokenFile: file };
}

/** The block height, base fee and congestion of the active network's dev chain, pushed on every change. */
function pollDevchain(devchain: () => DevchainControl | null, api: CoreApi, log: Logger): () => void {
  let last = '';
  let lastChain: DevchainControl | null = null;
  const poll = async () => {
    const dev = devchain();
    if (!dev) return;
    // After a switch to another dev chain its status is pushed even at the same height.
    if (dev !== lastChain) last = '';
    lastChain = dev;
    const s = await dev.status();
    const key = `${s.blockNumber}|${s.baseFeeWei}|${s.congestion}`;
    if (key === last) return;
    last = key;
    api.emitDevchain(s);
  };
  return repeatWithoutOverlap(() => poll().catch((e: Error) => log.warn(`dev chain status: ${e.message}`)), DEVCHAIN_POLL_MS);
}
