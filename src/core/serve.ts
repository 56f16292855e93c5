// `txdesk serve`: the app core headless under plain Node, with the localhost server and the renderer as a web page.
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from '../lib/log.js';
import { extraRoutes, splitRoute, type AppStatus, type CongestionLevel, type ReplacementPolicy } from '../shared/desktop-api.js';
import { createCore, type Core } from './create-core.js';
import type { StartEmbedded } from './ports.js';
import { DEFAULT_APP_PORT } from '../shared/defaults.js';

export interface ServeOptions {
  /** 3000 unless set; 0 picks a free port. */
  port?: number;
  /** Embedded dev chain only. */
  congestion?: CongestionLevel;
  /** Starts the embedded network when nothing is configured (the CLI passes src/embedded's). */
  startEmbedded?: StartEmbedded;
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  /** The built renderer; `out/renderer` of the package unless set. */
  rendererDir?: string;
  /** Overrides of the replacement policy (tests, benchmarks). */
  policy?: Partial<ReplacementPolicy>;
  blockTimeSeconds?: number;
  /** `--allow-key-routes`: key management and node/service URL changes over HTTP (with the token). */
  allowKeyRoutes?: boolean;
  log?: Logger;
  /** A restart (POST /api/restart) whose new core did not start: the process should end (default: logged only). */
  onRestartFailed?(error: unknown): void;
}

export interface ServeReadyInfo {
  ready: true;
  /** The browser UI's address with its one-time login (`?login=…`); the API itself is at `apiUrl`. */
  appUrl: string;
  /** The localhost API's origin, without the login. */
  apiUrl: string;
  /** The bearer token that every request of the localhost API needs (reads too) is in this file. */
  apiTokenFile: string;
  /** Ethereum JSON-RPC for local tools (ethers, viem, cast), with that token as `Authorization: Bearer <token>`. */
  rpcUrl: string;
  nodeUrl: string;
  serviceUrl: string;
  chainId: number;
  platform: string;
  network: string;
  /** The signing account (never the key), or null before one exists. */
  address: string | null;
  mode: 'embedded' | 'configured';
  /** The tracker's and the node's link state when ready: `connecting`, `connected` or `unreachable`, with the reason. */
  status: AppStatus;
}

export interface RunningServe {
  readyInfo(): ServeReadyInfo;
  /** The running core; a new one after each restart. */
  readonly core: Core;
  stop(): Promise<void>;
}

/** dist/core/serve.js and src/core/serve.ts both sit two levels below the package root. */
export const defaultRendererDir = (): string => fileURLToPath(new URL('../../out/renderer', import.meta.url));

export async function startServe(opts: ServeOptions = {}): Promise<RunningServe> {
  const log = opts.log ?? createLogger('serve');
  const { env, congestion, startEmbedded, policy, blockTimeSeconds } = opts;
  const makeCore = (port: number): Core =>
    createCore({
      env,
      congestion,
      startEmbedded,
      policy,
      blockTimeSeconds,
      dataDir: opts.dataDir || undefined,
      http: { port, rendererDir: opts.rendererDir ?? defaultRendererDir(), allowKeyRoutes: opts.allowKeyRoutes === true },
      log,
      restart: () => void restart(),
    });
  let core = makeCore(opts.port ?? DEFAULT_APP_PORT);
  let rt = await core.start();
  let stopping: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;

  const readyInfo = (): ServeReadyInfo => {
    const info = rt.info;
    return {
      ready: true,
      appUrl: rt.loginUrl!,
      apiUrl: rt.appUrl!,
      apiTokenFile: rt.apiTokenFile!,
      rpcUrl: `${rt.appUrl!}${splitRoute(extraRoutes.rpc).path}`,
      nodeUrl: info.nodeUrl,
      serviceUrl: info.serviceUrl,
      chainId: info.chainId,
      platform: info.platform,
      network: info.network,
      address: rt.address(),
      mode: info.mode,
      status: rt.status(),
    };
  };

  /** Stops the core and starts a new one on the same port, so saved settings (node, service, network) take effect. */
  function restart(): Promise<void> {
    restarting ??= (async () => {
      const port = Number(new URL(rt.appUrl!).port);
      log.info(`restarting the app core on port ${port} so saved settings take effect`);
      await core.stop();
      if (stopping) return;
      core = makeCore(port);
      try {
        rt = await core.start();
        log.info(`restarted: ${JSON.stringify(readyInfo())}`);
      } catch (e) {
        log.error(`the app core did not start again: ${e instanceof Error ? e.message.replace(/\s+/g, ' ') : String(e)}`);
        opts.onRestartFailed?.(e);
      }
    })().finally(() => (restarting = undefined));
    return restarting;
  }

  return {
    get core() {
      return core;
    },
    readyInfo,
    stop: () =>
      (stopping ??= (async () => {
        await restarting?.catch(() => undefined);
        await core.stop();
      })()),
  };
}
