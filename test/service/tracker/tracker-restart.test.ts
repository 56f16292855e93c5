// Durability across a crash: the data service runs as its own process (`txdesk service`), is killed with SIGKILL while
// messages are un-acked, and restarted on the same data dir; the SDK reconnects and every message arrives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { TransactionTracker, type TrackerError, type TrackerMessage } from '@txdesk/tracker';
import { ensureCliBuilt, killServiceProcesses, startServiceProcess } from '../../support/service/service-process.js';
import { DEV_KEYS, sendTransfer } from '../../support/service/tracker-harness.js';
import { waitFor } from '../../support/poll.js';

let anvil: RunningAnvil;
let provider: JsonRpcProvider;
let dataDir: string;

beforeAll(async () => {
  // The binary runs the compiled CLI; `npm test` builds first, a bare `vitest run` builds here when needed.
  ensureCliBuilt();
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
  dataDir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-restart-'));
});

afterAll(async () => {
  killServiceProcesses();
  provider?.destroy();
  await anvil?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function startService(port: number) {
  return startServiceProcess({ nodeUrl: anvil.url, dataDir, port });
}

it('delivers every message after kill -9 and a restart, resuming un-acked ones with their messageIds', async () => {
  const first = await startService(0);
  const port = Number(new URL(first.serviceUrl).port);
  const signup = await fetch(`${first.serviceUrl}/users/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'crash@example.com',
      password: 'correct horse battery staple',
      name: 'Crash',
      organization: 'txdesk tests',
    }),
  });
  expect(signup.status).toBe(201);
  const { clientId } = (await signup.json()) as { clientId: string };

  const tracker = new TransactionTracker(clientId, {
    platform: 'ethereum',
    network: 'local',
    url: first.serviceUrl,
    initialBackoffMs: 100,
    maxBackoffMs: 500,
  });
  const sub = tracker.subscribe('transaction', { subscriptionId: 'durable', ackTimeout: 600_000 });
  const seen: TrackerMessage[] = [];
  const errors: TrackerError[] = [];
  let acking = false;
  sub.on('message', (m) => {
    seen.push(m);
    if (acking) void m.ack();
  });
  sub.on('error', (e) => errors.push(e));
  await sub.ready;

  const wallet = new Wallet(DEV_KEYS[1]!, provider);
  const hashes: string[] = [];
  const nonce = await wallet.getNonce('pending');
  for (let i = 0; i < 5; i++) {
    const tx = await sendTransfer(wallet, { nonce: nonce + i });
    hashes.push(tx.hash);
    await tracker.trackTransaction(tx.hash, { timeout: 60_000, confirmation: 3 });
  }
  const receiptsOf = () => new Map(seen.filter((m) => m.data.type === 'receipt').map((m) => [m.data.result.transactionHash, m.id]));
  await waitFor('five un-acked receipts', () => receiptsOf().size === 5);
  const before = receiptsOf();

  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  await waitFor('the SDK noticing the crash', () => errors.length > 0);
  // Blocks keep coming while the service is down: the confirmations fall due then.
  const head = await provider.getBlockNumber();
  await waitFor('four more blocks', async () => (await provider.getBlockNumber()) >= head + 4);

  acking = true;
  const second = await startService(port);
  const confirmed = () => new Set(seen.filter((m) => m.data.type === 'confirmation').map((m) => m.data.result.transactionHash));
  await waitFor('a confirmation for every transaction', () => hashes.every((h) => confirmed().has(h)), { timeoutMs: 90_000 });

  const redelivered = seen.slice(5).filter((m) => m.data.type === 'receipt');
  expect(new Set(redelivered.map((m) => m.data.result.transactionHash))).toEqual(new Set(hashes));
  for (const m of redelivered) expect(m.id).toBe(before.get(m.data.result.transactionHash));
  expect(errors.every((e) => e.code === 'UNREACHABLE')).toBe(true);

  await tracker.close();
  second.child.kill('SIGTERM');
  await new Promise((r) => second.child.once('exit', r));
});
