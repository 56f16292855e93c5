// What the app core is started with (createCore's options): a module of its own so the start-up phases and the chain
// sessions can name it without importing create-core.ts, which imports them.
import type { Logger } from '../lib/log.js';
import type { CongestionLevel, ReplacementPolicy } from '../shared/desktop-api.js';
import type { Clock, SettingsStore, StartEmbedded } from './ports.js';

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
