// `txdesk devchain`: only the local dev chain (anvil, sample ERC-721 collections, optional congestion).
import type { Command } from 'commander';
import { z } from 'zod';
import { blockTimeOption, congestionOption, parseOptions, portOption, seedOption } from './cli-options.js';
import { runLongRunning } from './cli-runner.js';
import { listOf, text } from './ready-info.js';

export const defaultDevchainPort = 8545;

const devchainOptions = z.object({
  json: z.boolean().optional(),
  port: portOption.optional(),
  blockTime: blockTimeOption.optional(),
  congestion: congestionOption.optional(),
  seed: seedOption.optional(),
});

export function registerDevchain(program: Command): void {
  program
    .command('devchain')
    .description('run only the dev chain: anvil with sample ERC-721 collections and optional congestion')
    .option('--json', 'when ready, print one JSON line (node URL, chain ID, collections, dev accounts) on stdout')
    .option('--port <n>', `JSON-RPC port; 0 picks a free one (default ${defaultDevchainPort})`)
    .option('--block-time <s>', 'seconds per block (default 1)')
    .option(
      '--congestion <level>',
      'background load that fills blocks: off, low, high or market (a moving base fee, docs/devchain.md) (default off)',
    )
    .option('--seed <n>', 'seed of the market load, so a run can be repeated (default $TXDESK_DEVCHAIN_SEED, else 1)')
    .action(async (raw: Record<string, unknown>) => {
      const opts = parseOptions(devchainOptions, raw);
      const port = opts.port ?? defaultDevchainPort;
      await runLongRunning({
        what: 'the dev chain',
        scope: 'devchain',
        json: opts.json === true,
        port,
        start: async (log) => {
          const { startDevchain } = await import('../devchain/devchain.js');
          return startDevchain({
            port,
            blockTimeSeconds: opts.blockTime,
            congestion: opts.congestion,
            ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
            log,
          });
        },
        summary: (info, devchain) => [
          `Dev chain ready: ${text(info.nodeUrl)} (chain ID ${text(info.chainId)}, congestion ${text(info.congestion, 'off')}${info.congestion === 'market' ? `, seed ${text((info.market as { seed?: unknown } | undefined)?.seed)}` : ''})`,
          ...listOf(info.collections).map((c) => `  collection ${text(c.name)} (${text(c.symbol)}) at ${text(c.address)}`),
          // anvil's well-known dev keys, printed as anvil itself does, so wallets and scripts can use them.
          ...devchain.accounts.slice(0, 3).map((a, i) => `  dev account ${i}: ${a.address} key ${a.privateKey}`),
          'Press Ctrl-C to stop.',
        ],
      });
    });
}
