// `txdesk service`: the data service (token listing, tracker, accounts); `--dev` brings its own dev chain and account.
import { join } from 'node:path';
import { z } from 'zod';
import { usageError } from './cli-errors.js';
import {
  blockTimeOption,
  confirmationsOption,
  congestionOption,
  dirOption,
  nodeUrlOption,
  parseOptions,
  portOption,
} from './cli-options.js';
import { runLongRunning } from './cli-runner.js';
import { currentPlace, userDataDir } from './config-store.js';
import { text } from './ready-info.js';
import { publicUrlProblem } from '../service/http/service-hosts.js';
import { databaseUrlProblem } from '../service/db/service-database.js';
import { DEFAULT_SERVICE_PORT } from '../shared/defaults.js';
import { parseNetworkFlag, readNetworkConfigFile, type NetworkConfig } from '../service/network/network-config.js';
import { TxdeskError } from '../shared/errors.js';

const serviceOptions = z.object({
  dev: z.boolean().optional(),
  node: nodeUrlOption.optional(),
  network: z.array(z.string()).optional(),
  config: z.string().trim().min(1, 'give the path of a JSON file').optional(),
  port: portOption.optional(),
  dataDir: dirOption.optional(),
  indexerLag: confirmationsOption.optional(),
  /** The old name of --indexer-lag, still accepted. */
  confirmations: confirmationsOption.optional(),
  json: z.boolean().optional(),
  openSignup: z.boolean().optional(),
  allowPrivateWebhooks: z.boolean().optional(),
  congestion: congestionOption.optional(),
  blockTime: blockTimeOption.optional(),
  publicUrl: z
    .string()
    .trim()
    .refine((v) => publicUrlProblem(v) === null, { error: (i) => publicUrlProblem(String(i.input)) ?? 'invalid' })
    .optional(),
  database: z
    .string()
    .trim()
    .refine((v) => databaseUrlProblem(v) === null, { error: (i) => databaseUrlProblem(String(i.input)) ?? 'invalid' })
    .optional(),
});

export async function runService(raw: Record<string, unknown>): Promise<void> {
  const opts = parseOptions(serviceOptions, raw);
  const env = process.env;
  const port = opts.port ?? DEFAULT_SERVICE_PORT;
  const dataDir = opts.dataDir ?? (env.TXDESK_DATA_DIR || undefined);
  const given = [opts.dev && '--dev', opts.node && '--node', opts.network?.length && '--network', opts.config && '--config'].filter(
    Boolean,
  );
  if (given.length > 1)
    throw usageError(
      `Pass one of --dev (dev chains are started), --node URL, --network (repeatable) or --config FILE; got ${given.join(' and ')}.`,
    );
  if (!opts.dev && (opts.congestion || opts.blockTime !== undefined)) {
    throw usageError('--congestion and --block-time apply to the dev chain: add --dev.');
  }
  if (opts.indexerLag !== undefined && opts.confirmations !== undefined && opts.indexerLag !== opts.confirmations) {
    throw usageError('--confirmations is the old name of --indexer-lag: give only --indexer-lag.');
  }
  const indexerLag = opts.indexerLag ?? opts.confirmations;
  const lagFlag = opts.indexerLag !== undefined ? '--indexer-lag' : '--confirmations';
  if (opts.dev && indexerLag !== undefined)
    throw usageError(
      `${lagFlag} applies to a service on --node, --network or --config (a dev chain is indexed to its head): drop it, or use one of those instead of --dev.`,
    );
  if (opts.dev && opts.publicUrl)
    throw usageError('--public-url applies to a service on --node, --network or --config; the --dev service answers on loopback only.');
  const database = opts.database ?? databaseFromEnv(env);
  const leaseMarginMs = leaseMarginFromEnv(env);
  if (opts.dev && database)
    throw usageError(
      '--database applies to a service on --node, --network or --config; the --dev service keeps its state in SQLite: ' +
        'drop --database (or unset TXDESK_DATABASE_URL).',
    );
  const networks = networksFromFlags(opts.network, opts.config);
  const nodeUrl = opts.dev || networks ? undefined : (opts.node ?? nodeFromEnv(env));
  const json = opts.json === true;
  await runLongRunning({
    what: 'the data service',
    scope: 'service',
    json,
    port,
    start: async (log, signal) => {
      const { startDevService, startService } = await import('../service/index.js');
      if (nodeUrl === undefined && !networks) {
        const dev = await startDevService({ port, dataDir, congestion: opts.congestion, blockTimeSeconds: opts.blockTime, log });
        // The dev account's API secret goes beside its clientId, so its webhooks can be managed with no login.
        return { readyInfo: () => ({ ...dev.readyInfo(), apiSecret: dev.devAccount.apiSecret }), stop: () => dev.stop() };
      }
      if (database && opts.dataDir)
        log.warn('--data-dir is not used with --database: the instance keeps its state in PostgreSQL and writes no files.');
      const service = await startService({
        ...(networks ? { networks } : { nodeUrl: nodeUrl! }),
        // A fleet instance keeps no files; alone, the service's SQLite lives in the data folder.
        ...(database ? { database } : { dataDir: dataDir ?? join(userDataDir(currentPlace()), 'service') }),
        port,
        confirmations: indexerLag,
        openSignup: opts.openSignup === true,
        allowPrivateWebhooks: opts.allowPrivateWebhooks === true,
        ...(leaseMarginMs !== undefined ? { webhookTuning: { leaseMarginMs } } : {}),
        ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
        // Ctrl-C while the service waits for its node ends the wait.
        signal,
        log,
      });
      return {
        readyInfo: () => ({
          serviceUrl: service.url,
          ...(opts.publicUrl ? { publicUrl: new URL(opts.publicUrl).origin } : {}),
          nodeUrl: service.nodeUrl,
          chainId: service.chainId,
          platform: service.platform,
          network: service.network,
          indexerLag: service.confirmations,
          networks: service.networks.map((n) => ({
            platform: n.platform,
            network: n.network,
            chainId: n.chainId(),
            state: n.state(),
            default: n.isDefault,
          })),
        }),
        stop: () => service.stop(),
      };
    },
    summary: (info) => [
      `Data service ready: ${text(info.serviceUrl)} (node ${text(info.nodeUrl)}, chain ID ${text(info.chainId)}, ` +
        `${text(info.platform)}/${text(info.network)}, indexer ${text(info.indexerLag)} blocks behind the head)`,
      ...networkLines(info.networks),
      ...(typeof info.clientId === 'string' ? [`Dev account client ID: ${info.clientId}`] : []),
      ...(typeof info.apiSecret === 'string'
        ? [`Dev account API secret (manages its webhooks; new at every start): ${info.apiSecret}`]
        : []),
      'Press Ctrl-C to stop.',
    ],
  });
}

/** The networks of --network flags or a --config file, checked; undefined when neither is given. */
function networksFromFlags(flags: string[] | undefined, file: string | undefined): NetworkConfig[] | undefined {
  try {
    if (file) return readNetworkConfigFile(file);
    if (!flags?.length) return undefined;
    const list = flags.map(parseNetworkFlag);
    const keys = list.map((n) => `${n.platform}/${n.network}`);
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice)
      throw usageError(`--network names ${twice} twice; give each network once (several node URLs go after one = separated by commas).`);
    return list;
  } catch (e) {
    throw e instanceof TxdeskError ? usageError(e.message) : e;
  }
}

/** "Also serving ..." when more than one network is served. */
function networkLines(networks: unknown): string[] {
  if (!Array.isArray(networks) || networks.length < 2) return [];
  return [
    `Networks: ${networks
      .map(
        (n: { platform: string; network: string; chainId: number | null; state?: string }) =>
          `${n.platform}/${n.network} (chain ${n.chainId ?? '?'}${n.state ? `, ${n.state}` : ''})`,
      )
      .join(', ')}; the first is the default.`,
  ];
}

function databaseFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.TXDESK_DATABASE_URL?.trim();
  if (!value) return undefined;
  const problem = databaseUrlProblem(value);
  if (problem) throw usageError(`TXDESK_DATABASE_URL: ${problem}`);
  return value;
}

/**
 * TXDESK_WEBHOOK_LEASE_MARGIN_MS, a knob for tests: how long a webhook delivery's claim outlives the receiver's timeout
 * before another instance of a fleet may send it (20 s unless set; a test that kills an instance sets 1 s).
 */
function leaseMarginFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.TXDESK_WEBHOOK_LEASE_MARGIN_MS?.trim();
  if (!value) return undefined;
  if (!/^\d{1,9}$/.test(value))
    throw usageError(
      `TXDESK_WEBHOOK_LEASE_MARGIN_MS is "${value}": give whole milliseconds (e.g. 1000), or unset it for the default 20 s.`,
    );
  return Number(value);
}

function nodeFromEnv(env: NodeJS.ProcessEnv): string {
  const value = env.NODE_ENDPOINT;
  if (!value) {
    throw usageError('`txdesk service` needs a chain: pass --node URL (an Ethereum JSON-RPC endpoint), or --dev to run a local dev chain.');
  }
  const parsed = nodeUrlOption.safeParse(value);
  if (!parsed.success)
    throw usageError(
      `NODE_ENDPOINT "${value}" is not a valid node URL: set it to the node's JSON-RPC URL, http(s):// or ws(s)://, ` +
        'such as http://127.0.0.1:8545, or pass --node URL.',
    );
  return parsed.data;
}
