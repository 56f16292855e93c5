// The core's DesktopApi: one plain object that Electron's IPC handlers and the localhost server both call, behind
// validatedApi (desktop-api-validated.ts), so arguments arrive here already checked and both transports behave the same.
import {
  extraRoutes,
  splitRoute,
  type AppInfo,
  type AppSettings,
  type AppStatus,
  type DesktopApi,
  type DevchainStatus,
  type NetworkInfo,
  type NetworkRef,
  type ServiceHealthInfo,
  type ToolRpcAccess,
} from '../../shared/desktop-api.js';
import { TxdeskError } from '../../shared/errors.js';
import { tokenQueryString, type TokenPage } from '../../shared/listing.js';
import type { TxRecord } from '../../shared/tx-record.js';
import type { Chain, DevchainControl, ListingNetwork, TokenImage, TxStore, WebSources } from '../ports.js';
import type { ApprovalRequest, Requester } from '../../shared/approvals.js';
import type { Approvals } from './approvals.js';
import type { KeyManager } from './key-manager.js';
import type { SettingsManager } from './settings-manager.js';
import { createToolRpc, type ToolRpcDeps } from './tool-rpc.js';
import type { TxEngine } from './tx-engine.js';
import type { InTurn } from './tx-engine-user-actions.js';

/** The chain-bound parts of the active network (a chain session): what /api/tx, the listing proxy and /rpc answer for. */
export interface ActiveNetwork extends ListingNetwork {
  info: Omit<AppInfo, 'address' | 'status' | 'toolRpc'>;
  store: TxStore;
  engine: TxEngine;
  /** The node, for /rpc's reads. */
  chain: Chain;
  devchain: DevchainControl | null;
}

export interface CoreApiDeps {
  /** The network the app shows now; another one after a switch. */
  active(): ActiveNetwork;
  /** Every network the app can name, and the switch between them. */
  networks: { list(): Promise<NetworkInfo[]>; switchTo(target: NetworkRef): Promise<void> };
  /** The tracker's and the node's link state now (the active network's). */
  status(): AppStatus;
  keys: KeyManager;
  settings: SettingsManager;
  approvals: Approvals;
  /** The localhost server's origin once it listens (pagination URLs point there), else null. */
  appOrigin(): string | null;
  /** The localhost API's token file once the server listens, else null: AppInfo tells tools where it is. */
  apiTokenFile(): string | null;
  events: CoreEvents;
  /** The data service's listing and sign-in, token metadata and images. */
  web: WebSources;
  /** Checks a settings patch against the outside world before it is saved (a client ID against its service). */
  checkSettings?: (patch: unknown) => Promise<void>;
  /** Restarts the app; called after restart() has answered. Absent: restart() is refused. */
  restart?: () => void;
  /** The data service's health as the dashboard shows it. */
  serviceHealth(): Promise<ServiceHealthInfo>;
}

/** How long restart() waits before restarting, so its 202 leaves first. */
const RESTART_DELAY_MS = 100;

/** Listener sets that exist before the core has started, so IPC and SSE can subscribe at any time. */
export interface CoreEvents {
  tx: Set<(r: TxRecord) => void>;
  devchain: Set<(s: DevchainStatus) => void>;
  status: Set<(s: AppStatus) => void>;
  settings: Set<(s: AppSettings) => void>;
  approvals: Set<(a: ApprovalRequest[]) => void>;
  network: Set<(info: AppInfo) => void>;
}

export function createCoreEvents(): CoreEvents {
  return { tx: new Set(), devchain: new Set(), status: new Set(), settings: new Set(), approvals: new Set(), network: new Set() };
}

/** The DesktopApi plus what the HTTP layer needs beyond it (the raw listing proxy and event fan-out). */
export interface CoreApi extends DesktopApi {
  /** The listing proxy with the caller's own query string, so the service's validation answers unchanged. */
  proxyTokens(
    address: string,
    query: URLSearchParams,
    appOrigin: string | null,
  ): Promise<{ status: number; body: unknown; headers?: Record<string, string> }>;
  /** A token image (`?url=` of GET /api/token-image, or Electron's image scheme), fetched like the metadata. */
  fetchTokenImage(url: unknown): Promise<TokenImage>;
  /** One JSON-RPC method of /rpc for a local tool (tool-rpc.ts); throws RpcFailure. */
  rpc(method: string, params: readonly unknown[], requester: Requester, inTurn?: InTurn): Promise<unknown>;
  /** Fan-out used by the engine and the dev-chain poller. */
  emitTransaction(record: TxRecord): void;
  emitDevchain(status: DevchainStatus): void;
  emitAppStatus(status: AppStatus): void;
  emitNetwork(info: AppInfo): void;
  devchainListenerCount(): number;
}

/** A record as the API gives it: stamped with its chain, so a reader never files one chain's nonce under another's. */
export const onChain =
  (chainId: number) =>
  (r: TxRecord): TxRecord => ({ ...r, chainId });

/** Calls every listener; one listener's bug must not break the caller (the engine, the link tracking, an approval). */
export function emitToEach<T>(listeners: Set<(v: T) => void>, v: T): void {
  for (const l of listeners) {
    try {
      l(v);
    } catch {
      /* the listener's own bug */
    }
  }
}

export function createCoreApi(d: CoreApiDeps): CoreApi {
  const listen = <T>(set: Set<(v: T) => void>, l: (v: T) => void) => {
    set.add(l);
    return () => void set.delete(l);
  };
  /** Every window (and script) hears of a saved change, so none shows settings another one replaced. */
  const settingsChanged = (saved: AppSettings): AppSettings => {
    emitToEach(d.events.settings, saved);
    return saved;
  };
  // /rpc answers for the active network: one tool endpoint per network, made on first use.
  const toolRpcs = new WeakMap<ActiveNetwork['engine'], ReturnType<typeof createToolRpc>>();
  const toolRpc = () => {
    const a = d.active();
    let rpc = toolRpcs.get(a.engine);
    if (!rpc) {
      const deps: ToolRpcDeps = {
        chainId: a.info.chainId,
        chain: a.chain,
        store: a.store,
        signer: () => d.keys.signer(),
        engine: a.engine,
        approvals: d.approvals,
      };
      rpc = createToolRpc(deps);
      toolRpcs.set(a.engine, rpc);
    }
    return rpc;
  };
  const toolRpcAccess = (): ToolRpcAccess | null => {
    const origin = d.appOrigin();
    const apiTokenFile = d.apiTokenFile();
    return origin && apiTokenFile ? { url: `${origin}${splitRoute(extraRoutes.rpc).path}`, apiTokenFile } : null;
  };
  const appInfo = (): AppInfo => ({
    ...d.active().info,
    address: d.keys.signer()?.address ?? null,
    status: d.status(),
    toolRpc: toolRpcAccess(),
  });
  /** The active network's engine and a stamp with its chain, taken together so a switch in between cannot mix them. */
  const onActive = () => {
    const a = d.active();
    return { a, stamp: onChain(a.info.chainId) };
  };

  const api: CoreApi = {
    getAppInfo: async () => appInfo(),

    async listTransactions() {
      const { a, stamp } = onActive();
      return a.store.list().map(stamp);
    },
    async getTransaction(hash) {
      const { a, stamp } = onActive();
      const h = hash.toLowerCase();
      const rec = a.store.get(h);
      if (!rec)
        throw new TxdeskError(
          'NOT_FOUND',
          `No transaction ${h} is stored for ${a.platform}/${a.network} (chain ${a.info.chainId}); list them with GET ` +
            `/api/tx, or switch to the network it was sent on.`,
        );
      return { ...stamp(rec), history: a.store.history(h) };
    },
    async sendTransaction(request) {
      const { a, stamp } = onActive();
      return stamp(await a.engine.send(request));
    },
    async cancelTransaction(hash) {
      const { a, stamp } = onActive();
      return stamp(await a.engine.cancel(hash.toLowerCase()));
    },
    async speedUpTransaction(hash) {
      const { a, stamp } = onActive();
      return stamp(await a.engine.speedUp(hash.toLowerCase()));
    },
    onTransactionChanged: (l) => listen(d.events.tx, l),

    async listTokens(owner, query) {
      const r = await api.proxyTokens(owner, tokenQueryString(query ?? {}), d.appOrigin());
      if (r.status !== 200) {
        const e = (r.body as { error: { code: TxdeskError['code']; message: string } }).error;
        throw new TxdeskError(e.code, e.message, r.status);
      }
      return r.body as TokenPage;
    },
    proxyTokens: (address, query, appOrigin) =>
      d.web.tokenPage({ network: d.active(), clientId: d.settings.clientId(), address, query, appOrigin }),
    resolveTokenMetadata: (uris) => d.web.metadata(uris),
    fetchTokenImage: (url) => d.web.image(url),
    refreshToken: (contract, tokenId) => d.web.refreshToken({ network: d.active(), clientId: d.settings.clientId(), contract, tokenId }),

    getSettings: async () => d.settings.get(),
    async updateSettings(patch) {
      await d.checkSettings?.(patch);
      return settingsChanged(d.settings.update(patch));
    },
    signIn: async (c) => settingsChanged(d.settings.signedIn(c.email, await d.web.signIn(c))),
    onSettingsChanged: (l) => listen(d.events.settings, l),

    async restart() {
      const restart = d.restart;
      if (!restart) throw new TxdeskError('CONFLICT', 'This app cannot restart itself here; stop it and start it again.');
      setTimeout(restart, RESTART_DELAY_MS).unref();
    },

    getServiceHealth: () => d.serviceHealth(),

    listNetworks: () => d.networks.list(),
    async switchNetwork(target) {
      await d.networks.switchTo(target);
      return appInfo();
    },
    onNetworkChanged: (l) => listen(d.events.network, l),

    listApprovals: async () => d.approvals.list(),
    decideApproval: async (id, decision) => d.approvals.decide(id, decision),
    onApprovalsChanged: (l) => listen(d.events.approvals, l),
    listApprovalRules: async () => d.approvals.rules(),
    revokeApprovalRule: async (id) => d.approvals.revoke(id),

    getKeyInfo: () => d.keys.info(),
    generateKey: async (input) => d.keys.generate({ replace: input?.replace }),
    importKey: async ({ privateKey, replace }) => d.keys.import(privateKey, { replace }),
    exportKey: async ({ passphrase }) => d.keys.export(passphrase),

    getDevchainStatus: async () => d.active().devchain?.status() ?? null,
    async setCongestion(level) {
      const dev = d.active().devchain;
      if (!dev)
        throw new TxdeskError(
          'CONFLICT',
          'The app is connected to a configured network; the dev chain controls exist only on the embedded dev chain.',
        );
      dev.setCongestion(level);
      const s = await dev.status();
      api.emitDevchain(s);
      return s;
    },
    onDevchainStatus: (l) => listen(d.events.devchain, l),
    onAppStatus: (l) => listen(d.events.status, l),

    rpc: (method, params, requester, inTurn) => toolRpc().call(method, params, requester, inTurn),
    emitTransaction: (r) => emitToEach(d.events.tx, r),
    emitDevchain: (s) => emitToEach(d.events.devchain, s),
    emitAppStatus: (s) => emitToEach(d.events.status, s),
    emitNetwork: (info) => emitToEach(d.events.network, info),
    devchainListenerCount: () => d.events.devchain.size,
  };
  return api;
}
