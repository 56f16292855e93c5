// The one contract between the app's core and the renderer. Electron implements it over IPC (main + preload);
// the browser build (`txdesk serve`) implements it over HTTP + server-sent events. Renderer code sees only this.
import { z } from 'zod';
import { STANDARDS, type TokenPage, type TokenQuery } from './listing.js';
import type { TxRecord, TxRecordWithHistory } from './tx-record.js';

export type Unsubscribe = () => void;

export const congestionLevels = ['off', 'low', 'high'] as const;
export type CongestionLevel = (typeof congestionLevels)[number];

export interface ReplacementPolicy {
  txType: 'legacy' | 'eip1559';
  /** Fee of a first attempt, decimal wei (the seed's 1 gwei by default). */
  initialFeeWei: string;
  /** Percent added to the previous fee per replacement; at least 12.5 so nodes accept it. */
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
  /** Names of saved settings that take effect only after a restart (see DesktopApi.restart). */
  pendingRestart: string[];
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
}

/** Metadata of a token's `uri`, when it serves JSON. */
export interface TokenMetadata {
  name?: string;
  description?: string;
  /** An http(s) or data: URL. */
  image?: string;
}

export interface DesktopApi {
  getAppInfo(): Promise<AppInfo>;

  listTransactions(): Promise<TxRecord[]>;
  getTransaction(hash: string): Promise<TxRecordWithHistory>;
  generateTransaction(): Promise<TxRecord>;
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
  /** Restarts the core so that saved settings in `pendingRestart` take effect. */
  restart(): Promise<void>;

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

// ---- Input schemas: the one validator for every payload that crosses into the core (IPC and HTTP alike). ----

export const txHashSchema = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'a transaction hash is 0x followed by 64 hex digits');
export const addressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an address is 0x followed by 40 hex digits');
const weiSchema = z.string().regex(/^[0-9]{1,78}$/, 'an amount of wei is a decimal integer');

export const policyPatchSchema = z
  .object({
    txType: z.enum(['legacy', 'eip1559']),
    initialFeeWei: weiSchema,
    bumpPercent: z.number().min(12.5).max(1000),
    maxFeeWei: weiSchema,
    maxReplacements: z.number().int().min(0).max(100),
    timeoutMs: z.number().int().min(1000).max(600_000),
    confirmations: z.number().int().min(1).max(1000),
  })
  .partial()
  .strict();

export const settingsPatchSchema = z
  .object({
    clientId: z.string().min(1).max(200).nullable(),
    nodeUrl: z.url({ protocol: /^(https?|wss?)$/ }),
    serviceUrl: z.url({ protocol: /^https?$/ }),
    platform: z.string().regex(/^[a-z0-9-]{1,40}$/),
    network: z.string().regex(/^[a-z0-9-]{1,40}$/),
    policy: policyPatchSchema,
    localApi: z.boolean(),
  })
  .partial()
  .strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const signInSchema = z.object({ email: z.email().max(320), password: z.string().min(1).max(1024) }).strict();
export type SignIn = z.infer<typeof signInSchema>;

export const importKeySchema = z
  .object({ privateKey: z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, 'a private key is 64 hex digits, optionally after 0x'), replace: z.boolean().optional() })
  .strict();
export type ImportKey = z.infer<typeof importKeySchema>;

export const generateKeySchema = z.object({ replace: z.boolean().optional() }).strict();
export type GenerateKey = z.infer<typeof generateKeySchema>;

export const exportKeySchema = z.object({ passphrase: z.string().min(8, 'an export passphrase has at least 8 characters').max(1024) }).strict();
export type ExportKey = z.infer<typeof exportKeySchema>;

/** A token id as the listing API gives it: a decimal integer of at most 78 digits. */
export const tokenIdSchema = z.string().regex(/^[0-9]{1,78}$/, 'a token id is a decimal integer');

export const congestionSchema = z.enum(congestionLevels);

export const tokenQuerySchema = z
  .object({
    page: z.number().int().min(0).max(1_000_000_000),
    size: z.number().int().min(1).max(200),
    order_by: z.enum(['transfer_block_number', 'token_id', 'contract_address']),
    order_direction: z.enum(['asc', 'desc']),
    contractAddresses: z.array(addressSchema).max(50),
    standard: z.enum(STANDARDS),
  })
  .partial()
  .strict();

export const tokenMetadataRequestSchema = z.array(z.string().max(2048)).max(200);

/** The `url` of a token image request: the http(s) `image` of token metadata (data: URLs are shown as they are). */
export const tokenImageUrlSchema = z
  .string({ error: 'give the image as ?url=<encoded http(s) URL>' })
  .max(2048, 'an image URL is at most 2048 characters')
  .pipe(z.url({ protocol: /^https?$/, error: 'an image URL is an absolute http:// or https:// URL' }));

/** In Electron the window loads token images from this scheme (`txdesk-image://token/?url=…`), served by main from the core. */
export const tokenImageScheme = 'txdesk-image';

/**
 * How the browser bridge maps the contract onto the localhost server (`txdesk serve`).
 * Events arrive on one server-sent-events stream: `event: tx` (TxRecord), `event: devchain` (DevchainStatus) and
 * `event: status` (AppStatus).
 */
export const httpRoutes = {
  getAppInfo: 'GET /api/app',
  listTransactions: 'GET /api/tx',
  getTransaction: 'GET /api/tx/:hash',
  generateTransaction: 'POST /api/tx',
  cancelTransaction: 'POST /api/tx/:hash/cancel',
  speedUpTransaction: 'POST /api/tx/:hash/speed-up',
  events: 'GET /api/events',
  listTokens: 'GET /nft/v1/accounts/:address/tokens',
  resolveTokenMetadata: 'POST /api/token-metadata',
  refreshToken: 'POST /api/tokens/:contract/:id/refresh',
  /** Token images through the core (?url=<encoded http(s) URL>): the page itself may load images from nowhere else. */
  tokenImage: 'GET /api/token-image',
  getSettings: 'GET /api/settings',
  updateSettings: 'PATCH /api/settings',
  signIn: 'POST /api/settings/sign-in',
  restart: 'POST /api/restart',
  getKeyInfo: 'GET /api/key',
  generateKey: 'POST /api/key/generate',
  importKey: 'POST /api/key/import',
  exportKey: 'POST /api/key/export',
  getDevchainStatus: 'GET /api/devchain',
  setCongestion: 'PUT /api/devchain/congestion',
} as const;

/** IPC channel names: `txdesk:<method>` for calls, `txdesk:event:<name>` for pushed events. */
export const ipcChannel = (method: keyof DesktopApi) => `txdesk:${method}` as const;
export const ipcEvent = { tx: 'txdesk:event:tx', devchain: 'txdesk:event:devchain', status: 'txdesk:event:status' } as const;
