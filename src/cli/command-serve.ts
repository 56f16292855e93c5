// `txdesk serve`: the app's core headless under plain Node, with the renderer as a web page on localhost.
import { z } from 'zod';
import { blockTimeOption, congestionOption, dirOption, parseOptions, portOption } from './cli-options.js';
import { runLongRunning, startExitCode } from './cli-runner.js';
import { text } from './ready-info.js';
import { DEFAULT_APP_PORT } from '../shared/defaults.js';

const serveOptions = z.object({
  port: portOption.optional(),
  json: z.boolean().optional(),
  congestion: congestionOption.optional(),
  dataDir: dirOption.optional(),
  blockTime: blockTimeOption.optional(),
  allowKeyRoutes: z.boolean().optional(),
});

export async function runServe(raw: Record<string, unknown>): Promise<void> {
  const opts = parseOptions(serveOptions, raw);
  const port = opts.port ?? DEFAULT_APP_PORT;
  await runLongRunning({
    what: 'txdesk serve',
    scope: 'serve',
    json: opts.json === true,
    port,
    start: async (log) => {
      const [{ startServe }, { startEmbeddedNetwork }] = await Promise.all([
        import('../core/serve.js'),
        import('../embedded/embedded-network.js'),
      ]);
      return startServe({
        port,
        startEmbedded: startEmbeddedNetwork,
        congestion: opts.congestion,
        blockTimeSeconds: opts.blockTime,
        env: process.env,
        dataDir: opts.dataDir,
        allowKeyRoutes: opts.allowKeyRoutes === true,
        log,
        // The old core is stopped already: without a new one there is nothing left to serve.
        onRestartFailed: (e) => process.exit(startExitCode(e)),
      });
    },
    summary: (info) => [
      `txdesk is ready: open ${text(info.appUrl)} (service ${text(info.serviceUrl)}, node ${text(info.nodeUrl)})`,
      ...linkLines(info.status),
      `JSON-RPC for tools (ethers, viem, cast; snippets in Settings > Tool requests): ${text(info.rpcUrl)}`,
      `API token for every request (Authorization: Bearer …; a browser that has lost its login pastes it at /login): ${text(info.apiTokenFile)}`,
      'Press Ctrl-C to stop.',
    ],
  });
}

/** `tracker: unreachable (reason)` lines for the human summary; nothing when both links are connected. */
function linkLines(status: unknown): string[] {
  if (typeof status !== 'object' || status === null) return [];
  return Object.entries(status as Record<string, { state?: unknown; reason?: unknown }>)
    .filter(([, l]) => l?.state !== 'connected')
    .map(([name, l]) => `${name}: ${text(l?.state)}${typeof l?.reason === 'string' ? ` (${l.reason})` : ''}`);
}
