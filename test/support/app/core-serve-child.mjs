// A `txdesk serve` process for crash tests: starts the built core (dist/) with the policy given as JSON in argv[2], on
// the port in argv[3] (a free one when absent), prints the ready line on stdout, and stops cleanly on SIGTERM.
// Configuration comes from env.
import { startServe } from '../../../dist/core/serve.js';
import { startEmbeddedNetwork } from '../../../dist/embedded/embedded-network.js';

const policy = JSON.parse(process.argv[2] ?? '{}');
const serve = await startServe({ port: Number(process.argv[3] ?? 0), policy, startEmbedded: startEmbeddedNetwork });
process.stdout.write(JSON.stringify(serve.readyInfo()) + '\n');
process.on('SIGTERM', () => {
  serve.stop().then(() => process.exit(0));
});
