// The one contract between the app's core and the renderer, as plain types and one table (`desktopMethods`): every
// method's kind, HTTP route and where its arguments travel. Electron derives its IPC from the table (main + preload),
// the browser build (`txdesk serve`) its localhost routes and client; the argument schemas are in desktop-schemas.ts,
// so the preload and renderer bundles carry no validator. Renderer code sees only this.
import type { ApprovalDecision, ApprovalRequest, ApprovalRule } from './approvals.js';
import type { TokenPage, TokenQuery } from './listing.js';
import type { TxRecord, TxRecordWithHistory } from './tx-record.js';
import type { Speed, TxRequest } from './tx-request.js';
import type { ServedNetworkState } from './node-health.js';

export type Unsubscribe = () => void;

export const congestionLevels = ['off', 'low', 'high', 'market'] as const;
export type CongestionLevel = (typeof congestionLevels)[number];
/** The phases of `market` congestion, in the order they cycle (src/devchain/congestion-market.ts). */
export const marketPhases = ['calm', 'rush', 'spike'] as const;
export type MarketPhase = (typeof marketPhases)[number];

/**
 * How fees are set: `market` prices a first attempt from recent blocks (eth_feeHistory) at a speed and replaces a
 * transaction when blocks go by that included higher tips (the default on configured networks); `seed` is the seed's
 * example, a first attempt at `initialFeeWei` replaced +`bumpPercent` every `timeoutMs` (the dev chain's default).
 */
export type FeePricing = 'market' | 'seed';

export interface ReplacementPolicy {
  pricing: FeePricing;
  /** The market policy's speed for a request that names none. */
  speed: Speed;
  /** The seed preset's transaction type (the market policy uses EIP-1559 where the chain has a base fee). */
  txType: 'legacy' | 'eip1559';
  /** Seed preset: fee of a first attempt, decimal wei (the seed's 1 gwei by default). */
  initialFeeWei: string;
  /** Percent added to the previous fee per replacement; at least MIN_BUMP_PERCENT (shared/defaults.ts) so nodes accept it. */
  bumpPercent: number;
  /** No replacement is sent above this fee, decimal wei. */
  maxFeeWei: string;
  /** Replacements per nonce at most. */
  maxReplacements: number;
  /** Tracker options for every transaction. */
  timeoutMs: number;
  confirmations: number;
}

export interface AppSettings {
  clientId: string | null;
  /** E-mail of the account signed in from the app, if any. */
  signedInAs: string | null;
  nodeUrl: string;
  serviceUrl: string;
  platform: string;
  network: string;
  policy: ReplacementPolicy;
  /** Electron only: also serve the localhost API on 127.0.0.1:3000 (off by default; `txdesk serve` always serves it). */
  localApi: boolean;
  /** How long a tool's request waits for approval on a configured network before it is declined (ms). */
  approvalTimeoutMs: number;
  /** Names of saved settings that take effect only after a restart (see DesktopApi.restart). */
  pendingRestart: string[];
  /**
   * Node URLs of the networks other than the one the app starts on, by `platform/network` (configured mode; the
   * embedded dev chains bring their own). `nodeUrl` stays the start network's.
   */
  nodeUrls: Record<string, string>;
}

/** The state of one link the core depends on (the data service's tracker, the Ethereum node). */
export interface LinkStatus {
  state: 'connecting' | 'connected' | 'unreachable';
  /** One sentence when not connected, e.g. what failed and what is being done about it; null when connected. */
  reason: string | null;
  /** When the state last changed (ISO time). */
  since: string;
}

export interface AppStatus {
  tracker: LinkStatus;
  node: LinkStatus;
}

/** The app and its active network: the one it shows, signs for and answers /api/tx and /rpc for. */
export interface AppInfo {
  /** `embedded`: the dev chain and the data service run inside the app. */
  mode: 'embedded' | 'configured';
  chainId: number;
  nodeUrl: string;
  serviceUrl: string;
  platform: string;
  network: string;
  /** The signing account, or null before a key exists. */
  address: string | null;
  /** Live state of the tracker and the node; also pushed with onAppStatus. */
  status: AppStatus;
  /** Where a local tool reaches `/rpc`; null when the app serves no localhost API (the desktop app with localApi off). */
  toolRpc: ToolRpcAccess | null;
}

/** How a local tool (ethers, viem, cast) reaches the app's JSON-RPC: the address and where its token is, never the token. */
export interface ToolRpcAccess {
  /** `http://127.0.0.1:3000/rpc` */
  url: string;
  /** The file that holds the bearer token a tool sends as `Authorization: Bearer <token>`. */
  apiTokenFile: string;
}

export interface KeyInfo {
  address: string;
  /** Decimal wei. */
  balanceWei: string;
  /** Where the key is kept; never the key itself. `memory`: embedded dev chain without keychain or passphrase (this run only). */
  storage: 'keychain' | 'encrypted-file' | 'environment' | 'memory';
}

/** A key exported to a passphrase-encrypted JSON keystore (Web3 Secret Storage v3), ready to save as a file. */
export interface KeyExport {
  address: string;
  /** Suggested file name. */
  fileName: string;
  /** The keystore JSON text; it holds the key only encrypted with the export passphrase. */
  keystore: string;
}

export interface DevchainStatus {
  blockNumber: number;
  /** Decimal wei. */
  baseFeeWei: string;
  congestion: CongestionLevel;
  /** Under `market` only: the phase block `blockNumber` belongs to (calm, rush or spike). */
  marketPhase?: MarketPhase;
}

/** The data service as the app sees it now (its GET /health), for the dashboard and the settings. */
export interface ServiceHealthInfo {
  url: string;
  reachable: boolean;
  /** One sentence when not reachable; null when it answered. */
  reason: string | null;
  chainId: number | null;
  /** Blocks the token index is behind the node's head; null when unknown (an older service, or not reachable). */
  indexLagBlocks: number | null;
  /** The answering instance's roles in a fleet (`indexer-leader`, `watcher-leader`, `follower`); [] when unknown. */
  roles: string[];
}

/** What the data service says about a network it serves (GET /nft/v1/networks); `unknown` when it could not be asked. */
export type NetworkState = ServedNetworkState | 'unknown';

/** One network the app can show and sign for: what the data service serves, with what the app knows of it. */
export interface NetworkInfo {
  platform: string;
  network: string;
  /** Null until the service (or the node) has said. */
  chainId: number | null;
  /** The service's default network (its paths without /{platform}/{network}). */
  isDefault: boolean;
  state: NetworkState;
  /** The network the app shows, signs for and answers /api/tx and /rpc for now. */
  active: boolean;
  /** The node the app uses for it; null when none is known (then it cannot be switched to). */
  nodeUrl: string | null;
  /** Null when the app can switch to it; else one sentence saying why not and what to do. */
  unavailable: string | null;
  /** Open nonces still watched on it (the app keeps settling them while another network is active); 0 when not opened. */
  openNonces: number;
}

/** A network by name, as `switchNetwork` takes it. */
export interface NetworkRef {
  platform: string;
  network: string;
}

/** Metadata of a token's `uri`, when it serves JSON. */
export interface TokenMetadata {
  name?: string;
  description?: string;
  /** An http(s) or data: URL. */
  image?: string;
}

/** A settings change: only the fields given change (`policy` fields likewise). */
export interface SettingsPatch {
  clientId?: string | null;
  nodeUrl?: string;
  serviceUrl?: string;
  platform?: string;
  network?: string;
  policy?: Partial<ReplacementPolicy>;
  localApi?: boolean;
  approvalTimeoutMs?: number;
  /** Node URL per `platform/network` (null forgets one); used when the app switches to that network. */
  nodeUrls?: Record<string, string | null>;
}

export interface SignIn {
  email: string;
  password: string;
}

export interface ImportKey {
  /** 64 hex digits, optionally after 0x. */
  privateKey: string;
  replace?: boolean;
}

export interface GenerateKey {
  replace?: boolean;
}

export interface ExportKey {
  /** At least 8 characters. */
  passphrase: string;
}

export interface DesktopApi {
  getAppInfo(): Promise<AppInfo>;

  listTransactions(): Promise<TxRecord[]>;
  getTransaction(hash: string): Promise<TxRecordWithHistory>;
  /**
   * Signs `request` at the next nonce (fees from the policy), stores it, sends it and keeps replacing it until it is
   * mined; without a request, a 0-value transfer to yourself (the example app's demo). Refused before signing when the
   * call would revert (WOULD_REVERT), the balance cannot cover value plus gas at the fee cap (CONFLICT) or a field is
   * malformed (INVALID_PARAMETER).
   */
  sendTransaction(request?: TxRequest): Promise<TxRecord>;
  /** Signs a 0-value self-transfer at the nonce of `hash` with a bumped fee, now. */
  cancelTransaction(hash: string): Promise<TxRecord>;
  /** Signs a same-nonce replacement of `hash` with a bumped fee, now, without waiting for the tracker timeout. */
  speedUpTransaction(hash: string): Promise<TxRecord>;
  onTransactionChanged(listener: (record: TxRecord) => void): Unsubscribe;

  listTokens(owner: string, query: TokenQuery): Promise<TokenPage>;
  /** Fetches metadata for token URIs (by the core, so the renderer needs no network access). Unreadable ones map to {}. */
  resolveTokenMetadata(uris: string[]): Promise<Record<string, TokenMetadata>>;
  /** Asks the data service to read the token's metadata URI again (ERC-4906 refresh on demand). */
  refreshToken(contract: string, tokenId: string): Promise<void>;

  getSettings(): Promise<AppSettings>;
  updateSettings(patch: SettingsPatch): Promise<AppSettings>;
  signIn(credentials: SignIn): Promise<AppSettings>;
  /** The saved settings after every change, whoever made it (this window, another one, a script on the localhost API). */
  onSettingsChanged(listener: (settings: AppSettings) => void): Unsubscribe;
  /** Restarts the core so that saved settings in `pendingRestart` take effect. */
  restart(): Promise<void>;
  /** Asks the data service how it is (reachable, index lag, roles); never fails: unreachable is an answer. */
  getServiceHealth(): Promise<ServiceHealthInfo>;

  /** Every network the data service serves (and any the app has open), with the active one marked. */
  listNetworks(): Promise<NetworkInfo[]>;
  /**
   * Makes `target` the active network without a restart: the dashboard, /api/tx, the listing proxy and /rpc answer for
   * it from then on. Transactions still open on the network left keep being watched and settled.
   */
  switchNetwork(target: NetworkRef): Promise<AppInfo>;
  /** The new active network after every switch, whoever asked for it. */
  onNetworkChanged(listener: (info: AppInfo) => void): Unsubscribe;

  /** Requests from local tools waiting for a person (configured networks only; always [] on the dev chain). */
  listApprovals(): Promise<ApprovalRequest[]>;
  /**
   * Approves or declines a waiting request. Over HTTP only from the app's own page (the login cookie), never with the
   * bearer token alone: a tool must not answer its own request.
   */
  decideApproval(id: string, decision: ApprovalDecision): Promise<void>;
  /** The waiting requests after every change. */
  onApprovalsChanged(listener: (waiting: ApprovalRequest[]) => void): Unsubscribe;
  /** The standing rules that let a requester's transactions through without asking, with today's spend. */
  listApprovalRules(): Promise<ApprovalRule[]>;
  revokeApprovalRule(id: string): Promise<void>;

  getKeyInfo(): Promise<KeyInfo | null>;
  /** Over an existing key only with `replace: true`. */
  generateKey(input?: GenerateKey): Promise<KeyInfo>;
  /** The key goes in once; only the address and balance ever come back. Over an existing key only with `replace: true`. */
  importKey(input: ImportKey): Promise<KeyInfo>;
  /** The current key, encrypted with `passphrase`, as a keystore file's contents. */
  exportKey(input: ExportKey): Promise<KeyExport>;

  /** Null when the app does not run the embedded dev chain. */
  getDevchainStatus(): Promise<DevchainStatus | null>;
  setCongestion(level: CongestionLevel): Promise<DevchainStatus>;
  onDevchainStatus(listener: (status: DevchainStatus) => void): Unsubscribe;
  /** Tracker and node link changes. */
  onAppStatus(listener: (status: AppStatus) => void): Unsubscribe;
}

// ---- The table: one entry per method. Adding a method is an entry here, its schema in desktop-schemas.ts (the
// compiler asks for both) and its implementation in the core (core/services/desktop-api-core.ts). ----

/**
 * Where one argument travels over HTTP: a path parameter (`path:hash`), the whole JSON body (`body`; `body?` when it
 * may be left out), one field of the body (`body.uris`), or the query string (`query`, a TokenQuery).
 */
export type ArgPlace = `path:${string}` | 'body' | 'body?' | `body.${string}` | 'query';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH';

export interface CallSpec<Args extends readonly unknown[] = readonly unknown[]> {
  kind: 'call';
  route: `${HttpMethod} /${string}`;
  /** One place per argument, in order (the compiler checks the count against DesktopApi). */
  args: { readonly [I in keyof Args]: ArgPlace };
  /** HTTP status of success; 200 unless given. */
  status?: 200 | 201 | 202;
  /** The JSON answer of a method that returns nothing (HTTP needs a body). */
  reply?: Readonly<Record<string, unknown>>;
}

/** Pushed values: IPC channel `txdesk:event:<event>`, server-sent `event: <event>`. */
export type AppEvent = 'tx' | 'devchain' | 'status' | 'settings' | 'approvals' | 'network';

export interface EventSpec {
  kind: 'event';
  event: AppEvent;
}

type Fn = (...args: never[]) => unknown;
export type CallMethod = { [K in keyof DesktopApi]: ReturnType<DesktopApi[K]> extends Promise<unknown> ? K : never }[keyof DesktopApi];
export type EventMethod = Exclude<keyof DesktopApi, CallMethod>;
type SpecOf<K extends keyof DesktopApi> = K extends CallMethod ? CallSpec<Parameters<DesktopApi[K] & Fn>> : EventSpec;
export type DesktopTable = { readonly [K in keyof DesktopApi]: SpecOf<K> };

export const desktopMethods = {
  getAppInfo: { kind: 'call', route: 'GET /api/app', args: [] },
  listTransactions: { kind: 'call', route: 'GET /api/tx', args: [] },
  getTransaction: { kind: 'call', route: 'GET /api/tx/:hash', args: ['path:hash'] },
  sendTransaction: { kind: 'call', route: 'POST /api/tx', args: ['body?'], status: 201 },
  cancelTransaction: { kind: 'call', route: 'POST /api/tx/:hash/cancel', args: ['path:hash'], status: 202 },
  speedUpTransaction: { kind: 'call', route: 'POST /api/tx/:hash/speed-up', args: ['path:hash'], status: 202 },
  onTransactionChanged: { kind: 'event', event: 'tx' },
  listTokens: { kind: 'call', route: 'GET /nft/v1/accounts/:address/tokens', args: ['path:address', 'query'] },
  resolveTokenMetadata: { kind: 'call', route: 'POST /api/token-metadata', args: ['body.uris'] },
  refreshToken: {
    kind: 'call',
    route: 'POST /api/tokens/:contract/:id/refresh',
    args: ['path:contract', 'path:id'],
    status: 202,
    reply: { accepted: true },
  },
  getSettings: { kind: 'call', route: 'GET /api/settings', args: [] },
  updateSettings: { kind: 'call', route: 'PATCH /api/settings', args: ['body'] },
  signIn: { kind: 'call', route: 'POST /api/settings/sign-in', args: ['body'] },
  onSettingsChanged: { kind: 'event', event: 'settings' },
  restart: { kind: 'call', route: 'POST /api/restart', args: [], status: 202, reply: { restarting: true } },
  getServiceHealth: { kind: 'call', route: 'GET /api/service-health', args: [] },
  listNetworks: { kind: 'call', route: 'GET /api/networks', args: [] },
  switchNetwork: { kind: 'call', route: 'POST /api/networks/active', args: ['body'] },
  onNetworkChanged: { kind: 'event', event: 'network' },
  listApprovals: { kind: 'call', route: 'GET /api/approvals', args: [] },
  decideApproval: { kind: 'call', route: 'POST /api/approvals/:id', args: ['path:id', 'body'], reply: { decided: true } },
  onApprovalsChanged: { kind: 'event', event: 'approvals' },
  listApprovalRules: { kind: 'call', route: 'GET /api/approval-rules', args: [] },
  revokeApprovalRule: { kind: 'call', route: 'POST /api/approval-rules/:id/revoke', args: ['path:id'], reply: { revoked: true } },
  getKeyInfo: { kind: 'call', route: 'GET /api/key', args: [] },
  generateKey: { kind: 'call', route: 'POST /api/key/generate', args: ['body?'] },
  importKey: { kind: 'call', route: 'POST /api/key/import', args: ['body'] },
  exportKey: { kind: 'call', route: 'POST /api/key/export', args: ['body'] },
  getDevchainStatus: { kind: 'call', route: 'GET /api/devchain', args: [] },
  setCongestion: { kind: 'call', route: 'PUT /api/devchain/congestion', args: ['body.level'] },
  onDevchainStatus: { kind: 'event', event: 'devchain' },
  onAppStatus: { kind: 'event', event: 'status' },
} as const satisfies DesktopTable;

export const callMethods = (Object.keys(desktopMethods) as (keyof DesktopApi)[]).filter(
  (m): m is CallMethod => desktopMethods[m].kind === 'call',
);
export const eventMethods = (Object.keys(desktopMethods) as (keyof DesktopApi)[]).filter(
  (m): m is EventMethod => desktopMethods[m].kind === 'event',
);

/**
 * The localhost server's routes beyond the methods: one server-sent-events stream for every AppEvent (`event: tx`,
 * `event: devchain`, `event: status`, `event: settings`), token images through the core (?url=<encoded http(s) URL>), since the page
 * itself may load images from nowhere else, and the OpenAPI document.
 */
export const extraRoutes = {
  events: 'GET /api/events',
  tokenImage: 'GET /api/token-image',
  /** This API described in OpenAPI 3.1, generated from the table and its schemas. */
  openApi: 'GET /api/openapi.json',
  /** Ethereum JSON-RPC 2.0 for local tools (docs/app.md, "JSON-RPC for tools"). */
  rpc: 'POST /rpc',
} as const;

/** Every route of the app's localhost API by name: the table's calls, then the extra routes. */
export const appRouteList: readonly { name: CallMethod | keyof typeof extraRoutes; route: string }[] = [
  ...callMethods.map((name) => ({ name, route: desktopMethods[name].route as string })),
  ...(Object.keys(extraRoutes) as (keyof typeof extraRoutes)[]).map((name) => ({ name, route: extraRoutes[name] as string })),
];

/** In Electron the window loads token images from this scheme (`txdesk-image://token/?url=…`), served by main from the core. */
export const tokenImageScheme = 'txdesk-image';

/** IPC channel names: `txdesk:<method>` for calls, `txdesk:event:<name>` for pushed events. */
export const ipcChannel = (method: CallMethod) => `txdesk:${method}` as const;
export const ipcEventChannel = (event: AppEvent) => `txdesk:event:${event}` as const;

/** Splits `GET /api/tx/:hash` into its method and path pattern. */
export function splitRoute(route: string): { method: HttpMethod; path: string } {
  const [method, path] = route.split(' ') as [HttpMethod, string];
  return { method, path };
}
