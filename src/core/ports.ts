// The interfaces the core needs from the outside world. Adapters implement them; tests substitute fakes.
import type { CongestionLevel, DevchainStatus, SettingsPatch, SignIn, TokenMetadata } from '../shared/desktop-api.js';
import type { Logger } from '../lib/log.js';
import type { NonceProblem, TxEvent, TxRecord } from '../shared/tx-record.js';
import type { FeeFields, NetworkFees } from './domain/fees.js';
import type { BroadcastFailure } from './domain/refusal.js';
import type { RecordChange, TrackerMessageType } from './domain/transitions.js';
import type { StoredRule } from './domain/approval-rules.js';

export type NewEvent = Omit<TxEvent, 'at'>;

/** A network as the listing paths of the data service name it (the default has no /{platform}/{network}). */
export interface ListingNetwork {
  platform: string;
  network: string;
  isDefault: boolean;
}

/** Whether a record's signed bytes reached a node: not yet, accepted (pool or chain), or refused the last time sent. */
export type BroadcastState = 'unsent' | 'sent' | 'rejected';

/** Where records, their signed bytes, their history and processed tracker message ids live (SQLite). */
export interface TxStore {
  /** Runs `fn` in one database transaction: all of its writes commit together or not at all. */
  transaction<T>(fn: () => T): T;
  get(hash: string): TxRecord | null;
  /** Sender addresses that have records. */
  senders(): string[];
  /** Every record, oldest first. */
  list(): TxRecord[];
  history(hash: string): TxEvent[];
  byNonce(from: string, nonce: number): TxRecord[];
  /** Nonces of `from` that hold a record: every one is settled by the engine, refused or not, so none is reused. */
  liveNonces(from: string): number[];
  /**
   * What the next-nonce plan needs without reading every nonce: the nonces of `from` at or above `atLeast`, and the
   * highest one (which may be below it), ascending.
   */
  noncesFrom(from: string, atLeast: number): number[];
  /** Nonces of `from` with no confirmed record yet, ascending. */
  openNonces(from: string): number[];
  /**
   * Sender and nonce of every record with no replacement and no mined status that has a `replacement-skipped`
   * event, ascending: where a skipped replacement may be retried (the domain decides, see waitingForRetry).
   */
  skippedNonces(): { from: string; nonce: number }[];
  rawOf(hash: string): string | null;
  rejected(from: string): Set<string>;
  insert(record: TxRecord, raw: string, events: NewEvent[]): void;
  /** Applies status/data changes and appends their events; returns the records as they are now. */
  applyChanges(changes: readonly RecordChange[], nowIso: string): TxRecord[];
  addEvent(hash: string, event: NewEvent, nowIso: string): void;
  /** Links `prev.replacedBy = next`; `next.replaces` is set by `insert`. */
  linkReplacement(prevHash: string, nextHash: string, nowIso: string): void;
  markBroadcast(hash: string, state: 'sent' | 'rejected'): void;
  /** Makes a refused transaction sendable again (the same bytes, signed again later, may be accepted now). */
  unreject(hash: string): void;
  broadcastOf(hash: string): BroadcastState | null;
  /** Records carrying a problem (the newest of each open nonce that is kept from settling), by sender and nonce. */
  withProblems(): TxRecord[];
  /** Sets or clears the problem of one record. */
  setProblem(hash: string, problem: NonceProblem | null, nowIso: string): void;
  /** Clears the problem of every record of one nonce (it settled, or a newer record took over). */
  clearProblems(from: string, nonce: number, nowIso: string): void;
  isProcessed(messageId: string): boolean;
  markProcessed(messageId: string, nowIso: string): void;
  /** Forgets processed message ids older than `beforeIso` (the tracker prunes acked messages long before). */
  pruneProcessed(beforeIso: string): number;
  close(): void;
}

export type { BroadcastFailure } from './domain/refusal.js';

export class BroadcastError extends Error {
  constructor(
    readonly failure: BroadcastFailure,
    message: string,
  ) {
    super(message);
    this.name = 'BroadcastError';
  }
}

/** The node, over JSON-RPC. */
export interface Chain {
  chainId(): Promise<number>;
  /** Hash of block 0: tells two chains with the same chainId apart (a restarted dev chain is a new chain). */
  genesisHash(): Promise<string>;
  nonceCount(address: string, tag: 'latest' | 'pending'): Promise<number>;
  fees(): Promise<NetworkFees>;
  /** Sends a signed transaction; throws BroadcastError. */
  sendRaw(raw: string): Promise<void>;
  /** Whether the node knows the transaction (in its pool or mined): false once it was dropped or the node restarted. */
  hasTransaction(hash: string): Promise<boolean>;
  /** The receipt in the tracker's shape (docs/tracker-protocol.md §3-4), or null when not mined. */
  receipt(hash: string): Promise<Record<string, unknown> | null>;
  balance(address: string): Promise<bigint>;
  latestBlock(): Promise<{ number: number; baseFeeWei: bigint | null }>;
  /**
   * Any JSON-RPC call, answered as the node answers it (the /rpc endpoint's reads, eth_call and eth_estimateGas). A
   * node error is an RpcError with the node's code, message and data; no answer is an RpcError `unreachable`.
   */
  request(method: string, params: readonly unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

export interface UnsignedTx {
  chainId: number;
  nonce: number;
  /** Null creates a contract from `input`. */
  to: string | null;
  valueWei: bigint;
  /** Calldata, 0x-hex. */
  input: string;
  gasLimit: bigint;
  fees: FeeFields;
}

/** EIP-712 typed data as eth_signTypedData_v4 carries it (the `EIP712Domain` entry of `types` is optional). */
export interface TypedData {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

/** Holds the private key in memory and signs; exposes only the address. */
export interface Signer {
  readonly address: string;
  sign(tx: UnsignedTx): Promise<{ hash: string; raw: string }>;
  /** EIP-191 personal message signature (personal_sign) of the given bytes. */
  signMessage(message: Uint8Array): Promise<string>;
  /** EIP-712 signature (eth_signTypedData_v4). */
  signTypedData(data: TypedData): Promise<string>;
}

/** A private key as a Signer (the chain adapter's wallet). */
export type SignerFactory = (privateKey: string) => Signer;

/** What the app fetches over HTTP for the renderer: the data service's listing and sign-in, token metadata and images. */
export interface WebSources {
  /** One listing page of `network` with the caller's own query; the service's status and body as they came, clientId added. */
  tokenPage(o: {
    network: ListingNetwork;
    clientId: string | null;
    address: string;
    query: URLSearchParams;
    appOrigin: string | null;
  }): Promise<{ status: number; body: unknown }>;
  refreshToken(o: { network: ListingNetwork; clientId: string | null; contract: string; tokenId: string }): Promise<void>;
  /** The account's client ID. */
  signIn(credentials: SignIn): Promise<string>;
  metadata(uris: readonly string[]): Promise<Record<string, TokenMetadata>>;
  image(url: unknown): Promise<TokenImage>;
}

export interface TokenImage {
  /** `image/<subtype>`, parameters dropped. */
  contentType: string;
  body: Buffer;
}

export type KeyStorage = 'keychain' | 'encrypted-file' | 'memory';

/** Where the signing key rests between runs. */
/** Why a key vault failed: the keychain would not read or store, or the key file or its passphrase is wrong. */
export type VaultFailure =
  | 'keychain-unreadable'
  | 'keychain-refused'
  | 'weak-passphrase'
  | 'wrong-passphrase'
  | 'damaged-file'
  | 'unsafe-kdf';

/** A vault's failure: `reason` is for decisions, the message is written to be shown (it never carries the key). */
export class VaultError extends Error {
  constructor(
    readonly reason: VaultFailure,
    message: string,
  ) {
    super(message);
    this.name = 'VaultError';
  }
}

export interface KeyVault {
  readonly storage: KeyStorage;
  load(): Promise<string | null>;
  save(privateKey: string): Promise<void>;
  clear(): Promise<void>;
}

export interface FeedMessage {
  /** The tracker's messageId: the same on every redelivery. */
  id: string;
  type: TrackerMessageType;
  result: Record<string, unknown>;
  ack(): Promise<void>;
}

/** The one tracker subscription (SDK). */
export interface TrackerFeed {
  track(hash: string, opts: { timeout: number; confirmation: number }): Promise<void>;
  start(onMessage: (m: FeedMessage) => Promise<void>, onError: (e: Error) => void): Promise<void>;
  stop(): Promise<void>;
}

/** What the user changed in the app; only these are persisted (environment and embedded values are derived each start). */
export interface PersistedSettings extends Omit<SettingsPatch, 'nodeUrls'> {
  /** Node URLs of other networks, by `platform/network`. */
  nodeUrls?: Record<string, string>;
  signedInAs?: string | null;
  /** Standing approval rules (approvals.ts), with the spends of their last 24 hours. */
  approvalRules?: StoredRule[];
}

/** Headless: a JSON file in the data dir. Electron: electron-store, plugged in by src/main. */
export interface SettingsStore {
  load(): PersistedSettings;
  save(settings: PersistedSettings): void;
}

/** The embedded dev chain's controls (only in embedded mode). */
export interface DevchainControl {
  status(): Promise<DevchainStatus>;
  setCongestion(level: CongestionLevel): void;
  fund(address: string, wei: bigint): Promise<void>;
  giveTokens(address: string, count: number): Promise<void>;
}

/** A running embedded network (dev chain + data service), as the core uses it. */
export interface EmbeddedNetwork {
  nodeUrl: string;
  serviceUrl: string;
  /** The dev account's client ID. */
  clientId: string;
  platform: string;
  network: string;
  devchain: DevchainControl;
  /** Origin of the dev chain's metadata server: token metadata may come from there although it is local. */
  metadataOrigin: string;
  /** What the embedded service reports about itself (for logs and the ready line). */
  readyInfo: Record<string, unknown>;
  /** Every dev network the embedded service serves, the default (the fields above) first. */
  networks: EmbeddedChain[];
  stop(): Promise<void>;
}

/** One dev chain of the embedded network, and the network the embedded service serves it as. */
export interface EmbeddedChain {
  platform: string;
  network: string;
  chainId: number;
  nodeUrl: string;
  isDefault: boolean;
  devchain: DevchainControl;
  /** Origin of this dev chain's metadata server. */
  metadataOrigin: string;
}

/**
 * Starts the embedded network. The entry points that offer it (`txdesk serve`, Electron main) compose it from
 * src/embedded and hand it to the core, which then reaches the service only through the SDK and HTTP.
 */
export type StartEmbedded = (options: {
  port: number;
  congestion?: CongestionLevel;
  blockTimeSeconds?: number;
  log: Logger;
}) => Promise<EmbeddedNetwork>;

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
