// `txdesk devchain`: only the local dev chain (anvil, sample ERC-721 collections, optional congestion).
import { z } from 'zod';
import { blockTimeOption, congestionOption, parseOptions, portOption, seedOption } from './cli-options.js';
import { runLongRunning } from './cli-runner.js';
import { listOf, text } from './ready-info.js';
import { DEFAULT_DEVCHAIN_PORT } from '../shared/defaults.js';

const devchainOptions = z.object({
  json: z.boolean().optional(),
  port: portOption.optional(),
  blockTime: blockTimeOption.optional(),
  congestion: congestionOption.optional(),
  seed: seedOption.optional(),
});

export async function runDevchain(raw: Record<string, unknown>): Promise<void> {
  const opts = parseOptions(devchainOptions, raw);
  const port = opts.port ?? DEFAULT_DEVCHAIN_PORT;
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
      `Dev chain ready: ${text(info.nodeUrl)} (chain ID ${text(info.chainId)}, congestion ${text(info.congestion, 'off')}` +
        `${info.congestion === 'market' ? `, seed ${text((info.market as { seed?: unknown } | undefined)?.seed)}` : ''})`,
      ...listOf(info.collections).map((c) => `  collection ${text(c.name)} (${text(c.symbol)}) at ${text(c.address)}`),
      // anvil's well-known dev keys, printed as anvil itself does, so wallets and scripts can use them.
      ...devchain.accounts.slice(0, 3).map((a, i) => `  dev account ${i}: ${a.address} key ${a.privateKey}`),
      'Press Ctrl-C to stop.',
    ],
  });
}
