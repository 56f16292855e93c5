// `txdesk service`: the data service (token listing, tracker, accounts); `--dev` brings its own dev chain and account.
import type { Command } from 'commander';
import { join } from 'node:path';
import { z } from 'zod';
import { usageError } from './cli-errors.js';
import {
  blockTimeOption,
  confirmationsOption,
  congestionOption,
  dirOption,
  httpUrlOption,
  parseOptions,
  portOption,
} from './cli-options.js';
import { runLongRunning } from './cli-runner.js';
import { currentPlace, userDataDir } from './config-store.js';
import { text } from './ready-info.js';
import { publicUrlProblem } from '../service/http/service-hosts.js';

export const defaultServicePort = 4000;

const serviceOptions = z.object({
  dev: z.boolean().optional(),
  node: httpUrlOption.optional(),
  port: portOption.optional(),
  dataDir: dirOption.optional(),
  confirmations: confirmationsOption.optional(),
  json: z.boolean().optional(),
  openSignup: z.boolean().optional(),
  congestion: congestionOption.optional(),
  blockTime: blockTimeOption.optional(),
  publicUrl: z
    .string()
    .trim()
    .refine((v) => publicUrlProblem(v) === null, { error: (i) => publicUrlProblem(String(i.input)) ?? 'invalid' })
    .optional(),
});

export function registerService(program: Command): void {
  program
    .command('service')
    .description('run the data service: token listing API, transaction tracker, accounts')
    .option('--dev', 'also run a dev chain, with open sign-up and a dev account')
    .option('--node <url>', 'Ethereum JSON-RPC URL to index (default: $NODE_ENDPOINT; not with --dev)')
    .option('--port <n>', `HTTP port; 0 picks a free one (default ${defaultServicePort})`)
    .option('--data-dir <dir>', 'where the SQLite database goes (default: $TXDESK_DATA_DIR, else the user data folder)')
    .option('--confirmations <n>', 'blocks before a transfer counts as final (service default when omitted)')
    .option('--json', 'when ready, print one JSON line (serviceUrl, nodeUrl, chainId, ...) on stdout')
    .option('--open-signup', 'let anyone create an account with `txdesk signup` (always on with --dev)')
    .option('--congestion <level>', 'with --dev: background load on the dev chain, off, low or high')
    .option('--block-time <s>', 'with --dev: seconds per block of the dev chain')
    .option('--public-url <url>', 'the URL clients use (e.g. https://txdesk.example.com behind a proxy): its host is answered besides loopback, and page links use it')
    .action(async (raw: Record<string, unknown>) => {
      const opts = parseOptions(serviceOptions, raw);
      const env = process.env;
      const port = opts.port ?? defaultServicePort;
      const dataDir = opts.dataDir ?? (env.TXDESK_DATA_DIR || undefined);
      if (opts.dev && opts.node) throw usageError('Pass either --dev (a dev chain is started) or --node URL, not both.');
      if (!opts.dev && (opts.congestion || opts.blockTime !== undefined)) {
        throw usageError('--congestion and --block-time apply to the dev chain: add --dev.');
      }
      if (opts.dev && opts.publicUrl) throw usageError('--public-url applies to a service on --node URL; the --dev service answers on loopback only.');
      if (opts.dev && opts.confirmations !== undefined) throw usageError('--confirmations applies to a service on --node URL, not to --dev.');
      const nodeUrl = opts.dev ? undefined : (opts.node ?? nodeFromEnv(env));
      const json = opts.json === true;
      await runLongRunning({
        what: 'the data service',
        scope: 'service',
        json,
        port,
        start: async (log) => {
          const { startDevService, startService } = await import('../service/index.js');
          if (nodeUrl === undefined) {
            return startDevService({ port, dataDir, congestion: opts.congestion, blockTimeSeconds: opts.blockTime, log });
          }
          const service = await startService({
            nodeUrl,
            dataDir: dataDir ?? join(userDataDir(currentPlace()), 'service'),
            port,
            confirmations: opts.confirmations,
            openSignup: opts.openSignup === true,
            ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
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
            }),
            stop: () => service.stop(),
          };
        },
        summary: (info) => [
          `Data service ready: ${text(info.serviceUrl)} (node ${text(info.nodeUrl)}, chain ID ${text(info.chainId)}, ${text(info.platform)}/${text(info.network)})`,
          ...(typeof info.clientId === 'string' ? [`Dev account client ID: ${info.clientId}`] : []),
          'Press Ctrl-C to stop.',
        ],
      });
    });
}

function nodeFromEnv(env: NodeJS.ProcessEnv): string {
  const value = env.NODE_ENDPOINT;
  if (!value) {
    throw usageError('`txdesk service` needs a chain: pass --node URL (an Ethereum JSON-RPC endpoint), or --dev to run a local dev chain.');
  }
  const parsed = httpUrlOption.safeParse(value);
  if (!parsed.success) throw usageError(`NODE_ENDPOINT "${value}" is not a valid http(s) URL: fix it, or pass --node URL.`);
  return parsed.data;
}
