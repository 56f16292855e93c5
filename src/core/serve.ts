// `txdesk serve`: the app core headless under plain Node, with the localhost server and the renderer as a web page.
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from '../lib/log.js';
import type { CongestionLevel, ReplacementPolicy } from '../shared/desktop-api.js';
import { createCore, type Core } from './create-core.js';

export interface ServeOptions {
  /** 3000 unless set; 0 picks a free port. */
  port?: number;
  /** Embedded dev chain only. */
  congestion?: CongestionLevel;
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
}

export interface ServeReadyInfo {
  ready: true;
  /** The browser UI's address with its one-time login (`?login=…`); the API itself is at `apiUrl`. */
  appUrl: string;
  /** The localhost API's origin, without the login. */
  apiUrl: string;
  /** The bearer token for POST/PUT/PATCH/DELETE is in this file. */
  apiTokenFile: string;
  nodeUrl: string;
  serviceUrl: string;
  chainId: number;
  platform: string;
  network: string;
  /** The signing account (never the key), or null before one exists. */
  address: string | null;
  mode: 'embedded' | 'configured';
}

export interface RunningServe {
  readyInfo(): ServeReadyInfo;
  core: Core;
  stop(): Promise<void>;
}

/** dist/core/serve.js and src/core/serve.ts both sit two levels below the package root. */
export const defaultRendererDir = (): string => fileURLToPath(new URL('../../out/renderer', import.meta.url));

export async function startServe(opts: ServeOptions = {}): Promise<RunningServe> {
  const core = createCore({
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.congestion ? { congestion: opts.congestion } : {}),
    ...(opts.policy ? { policy: opts.policy } : {}),
    ...(opts.blockTimeSeconds !== undefined ? { blockTimeSeconds: opts.blockTimeSeconds } : {}),
    http: { port: opts.port ?? 3000, rendererDir: opts.rendererDir ?? defaultRendererDir(), allowKeyRoutes: opts.allowKeyRoutes === true },
    log: opts.log ?? createLogger('serve'),
  });
  const rt = await core.start();
  let stopping: Promise<void> | undefined;
  return {
    core,
    readyInfo: () => {
      const info = rt.info;
      return {
        ready: true,
        appUrl: rt.loginUrl!,
        apiUrl: rt.appUrl!,
        apiTokenFile: rt.apiTokenFile!,
        nodeUrl: info.nodeUrl,
        serviceUrl: info.serviceUrl,
        chainId: info.chainId,
        platform: info.platform,
        network: info.network,
        address: addressOf(core),
        mode: info.mode,
      };
    },
    stop: () => (stopping ??= core.stop()),
  };
}

function addressOf(core: Core): string | null {
  return core.runtime()?.address() ?? null;
}
