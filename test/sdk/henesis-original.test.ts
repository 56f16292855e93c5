// The original 2019 SDK (@haechi-labs/henesis-tracker, as published) against the data service, unchanged: its
// platform and network options select the network, here the dev service's second one, ethereum/local-2.
import { createRequire } from 'node:module';
import { JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { startDevService, type DevService } from '../../src/service/index.js';
import { DEV_KEYS } from '../support/service/tracker-harness.js';
import { waitFor } from '../support/poll.js';

interface OriginalMessage {
  data: { type: string; result: { transactionHash: string } };
  ack(): void;
}
interface OriginalTracker {
  subscribe(
    topic: 'transaction',
    options: { subscriptionId: string; ackTimeout: number },
  ): Promise<{ on(event: 'message', fn: (m: OriginalMessage) => void): void }>;
  trackTransaction(hash: string, options: { confirmation: number; timeout: number }): Promise<void>;
}
// CommonJS, no types of its own: loaded as its users load it.
const OriginalTransactionTracker = (
  createRequire(import.meta.url)('@haechi-labs/henesis-tracker/lib/TransactionTracker') as {
    default: new (clientId: string, options: { platform: string; network: string; url: string }) => OriginalTracker;
  }
).default;

let dev: DevService;
beforeAll(async () => {
  dev = await startDevService({ port: 0, blockTimeSeconds: 1, congestion: 'off', log: silentLogger });
}, 120_000);
afterAll(async () => {
  await dev?.stop();
});

it('tracks a transaction on the second network with the original SDK: receipt, then confirmation, acked', async () => {
  const second = dev.networks[1]!;
  expect([second.network, second.chainId]).toEqual(['local-2', 31338]);
  const tracker = new OriginalTransactionTracker(dev.clientId, {
    platform: 'ethereum',
    network: 'local-2',
    url: dev.service.url.replace(/^http/, 'ws'),
  });
  const seen: OriginalMessage[] = [];
  const sub = await tracker.subscribe('transaction', { subscriptionId: 'original-sdk', ackTimeout: 10_000 });
  sub.on('message', (m) => {
    seen.push(m);
    m.ack();
  });
  const provider = new JsonRpcProvider(second.nodeUrl, undefined, { staticNetwork: true });
  try {
    const wallet = new Wallet(DEV_KEYS[11]!, provider);
    const tx = await wallet.sendTransaction({ to: wallet.address, value: 0n, gasPrice: parseUnits('2', 'gwei') });
    await tracker.trackTransaction(tx.hash, { confirmation: 1, timeout: 60_000 });
    await waitFor('the confirmation', () => seen.some((m) => m.data.type === 'confirmation'), { timeoutMs: 30_000 });
    expect(seen.map((m) => [m.data.type, m.data.result.transactionHash])).toEqual([
      ['receipt', tx.hash],
      ['confirmation', tx.hash],
    ]);
  } finally {
    provider.destroy();
  }
});
