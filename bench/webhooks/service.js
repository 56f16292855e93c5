// The service of bench/webhooks, as its own process (as bench/tracker runs `txdesk service`): the compiled
// startService with webhooks allowed to reach 127.0.0.1. It is started here rather than through the CLI because the
// CLI has no flag for the per-clientId webhook rate limit (50 deliveries/s unless set), which the bench lifts by
// default to measure the deliverer itself. Prints one JSON line {serviceUrl} when ready; stops on SIGTERM.
// Usage (by index.js): node bench/webhooks/service.js '{"nodeUrl":..., "dataDir":..., "rate":0}'
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { startService } = await import(join(root, 'dist/service/index.js'));
const o = JSON.parse(process.argv[2]);

const service = await startService({
  nodeUrl: o.nodeUrl,
  dataDir: o.dataDir,
  port: 0,
  openSignup: true,
  allowPrivateWebhooks: true,
  // 0 lifts the per-clientId limit (the deliverer's token bucket treats <= 0 as none).
  webhookDeliveriesPerSecond: o.rate,
});
process.stdout.write(`${JSON.stringify({ serviceUrl: service.url })}\n`);
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  service.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
