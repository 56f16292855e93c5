// Runs `txdesk service --json` as its own process (the compiled CLI, through cli-binary's daemon helper) for tests
// that kill a service with SIGKILL or run several on one database.
import type { ChildProcess } from 'node:child_process';
import { startCliDaemon } from '../cli/cli-binary.js';

export { ensureCliBuilt } from '../cli/cli-binary.js';

export interface ServiceProcess {
  child: ChildProcess;
  serviceUrl: string;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

const children = new Set<ChildProcess>();

/**
 * One network on `nodeUrl` (`--node`), or every one of `networks`, each `<platform>/<network>=<url>[,<url>]` (repeated
 * `--network`, the first the default); `indexerLag` becomes `--indexer-lag` (a second dev chain, 31338, is not one the
 * service knows as a dev chain and is indexed 12 blocks behind its head otherwise); `extraArgs` are appended as given
 * (`--allow-private-webhooks`, say).
 */
export async function startServiceProcess(
  opts: ({ nodeUrl: string; networks?: undefined } | { nodeUrl?: undefined; networks: string[] }) & {
    dataDir: string;
    port?: number;
    database?: string;
    indexerLag?: number;
    extraArgs?: string[];
    env?: NodeJS.ProcessEnv;
  },
): Promise<ServiceProcess> {
  const chains = opts.networks ? opts.networks.flatMap((n) => ['--network', n]) : ['--node', opts.nodeUrl!];
  const args = ['service', ...chains, '--port', String(opts.port ?? 0), '--data-dir', opts.dataDir, '--open-signup', '--json'];
  if (opts.database) args.push('--database', opts.database);
  if (opts.indexerLag !== undefined) args.push('--indexer-lag', String(opts.indexerLag));
  if (opts.extraArgs) args.push(...opts.extraArgs);
  const daemon = await startCliDaemon(args, { env: { ...process.env, TXDESK_LOG: 'silent', ...opts.env } });
  const child = daemon.child;
  children.add(child);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  void exited.then(() => children.delete(child));
  return { child, serviceUrl: String(daemon.ready.serviceUrl), exited };
}

/** What `/health` reports about an instance, as the fleet tests read it. */
export interface ServiceHealth {
  roles: string[];
  store: string;
  indexedBlock: number;
  headBlock: number;
  indexLagBlocks: number | null;
  outboxDepth: number | null;
  /** Every network served, the default first; `roles` above are the default network's. */
  networks: NetworkHealth[];
}

/** One network of `/health` (served-network.ts, NetworkReport), as the fleet tests read it. */
export interface NetworkHealth {
  platform: string;
  network: string;
  chainId: number | null;
  state: string;
  roles: ('indexer-leader' | 'watcher-leader')[];
  indexedBlock: number | null;
  headBlock: number | null;
  node: { inUse: number | null; nodes: { url: string; head: number | null; problem: string | null }[] };
}

export async function serviceHealth(p: ServiceProcess): Promise<ServiceHealth> {
  return (await (await fetch(`${p.serviceUrl}/health`)).json()) as ServiceHealth;
}

/** SIGKILLs every service process still running (for afterAll). */
export function killServiceProcesses(): void {
  for (const c of children) c.kill('SIGKILL');
}
