// Isolation between networks (issue 45, item 1): two networks on one service, B catching up a large history while A
// serves listing and tracker traffic. The index writer thread exists only in the build (dist/), so the service runs
// from there. A's answers keep flowing the whole catch-up: the test counts them and checks their order and content,
// never their times; then B's index is exact. B catches up 100,000 transfers, as the issue asks (TXDESK_ISOLATION_TOKENS
// mints, then as many moves): the file takes ~32 s on the shared 2-core box, ~20 s with 40,000.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as DevchainModule from '../../src/devchain/devchain.js';
import { createLogger } from '../../src/lib/log.js';
import type * as ServiceModule from '../../src/service/index.js';
import { bulkOwner, writeBulkHistory, type BulkHistory } from '../support/chain/bulk-history.js';
import { ensureCoreBuilt } from '../support/app/core-build.js';
import { waitFor } from '../support/poll.js';

const TOKENS = Number(process.env.TXDESK_ISOLATION_TOKENS ?? 50_000);
const OWNERS = 1_000;
/** Anvil's second dev key: A's tracked transfers, apart from the history's sender. */
const TRACKED_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** The parts of the SDK's tracker this test uses (the SDK is loaded from the build, beside the service). */
interface Tracker {
  subscribe(
    topic: 'transaction',
    o: { subscriptionId: string; ackTimeout: number },
  ): {
    ready: Promise<void>;
    on(
      event: 'message',
      f: (m: { data: { type: string; result: { transactionHash?: string; blockNumber?: number } }; ack(): Promise<void> }) => void,
    ): void;
  };
  trackTransaction(hash: string, o: { timeout: number; confirmation: number }): Promise<void>;
  close(): Promise<void>;
}

let service: ServiceModule.RunningService;
let anvils: DevchainModule.RunningAnvil[] = [];
let a: BulkHistory;
let b: BulkHistory;
let dataDir: string;
let Sdk: { TransactionTracker: new (clientId: string, o: { platform: string; network: string; url: string }) => Tracker };
let wallet: import('ethers').Wallet;

beforeAll(async () => {
  ensureCoreBuilt();
  const dist = join(import.meta.dirname, '..', '..', 'dist');
  const { startAnvil } = (await import(join(dist, 'devchain', 'devchain.js'))) as typeof DevchainModule;
  const { startService } = (await import(join(dist, 'service', 'index.js'))) as typeof ServiceModule;
  Sdk = await import(join(dist, 'sdk', 'index.js'));
  anvils = await Promise.all([31337, 31338].map((chainId) => startAnvil({ gasLimit: 40_000_000, blockTimeSeconds: 1, chainId })));
  [a, b] = await Promise.all([writeBulkHistory(anvils[0]!.url, 10_000, OWNERS), writeBulkHistory(anvils[1]!.url, TOKENS, OWNERS)]);
  const { JsonRpcProvider, Wallet } = await import('ethers');
  wallet = new Wallet(
    TRACKED_KEY,
    new JsonRpcProvider(anvils[0]!.url, undefined, { staticNetwork: true, polling: false, cacheTimeout: -1 }),
  );
  dataDir = mkdtempSync(join(tmpdir(), 'txdesk-isolation-'));
  const network = (name: string, i: number) => ({
    platform: 'ethereum',
    network: name,
    nodeUrls: [anvils[i]!.url],
    chainId: 31337 + i,
    indexerLag: 0,
  });
  service = await startService({
    networks: [network('local', 0), network('local-2', 1)],
    dataDir,
    port: 0,
    rateLimitPerMinute: 0,
    // Warnings and errors reach the test's output: a failed tracker call says why on the service's side.
    log: createLogger('isolation', 'warn'),
  });
}, 600_000);

afterAll(async () => {
  await service?.stop();
  for (const x of anvils) await x.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const rpc = async (url: string, method: string, params: unknown[] = []) =>
  (
    (await (
      await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
    ).json()) as { result: unknown }
  ).result;

/** Owner `i`'s token ids on `network` (one page holds them all, ascending). */
async function listing(network: string, clientId: string, i: number): Promise<{ status: number; ids: bigint[] }> {
  const res = await fetch(
    `${service.url}/nft/v1/ethereum/${network}/accounts/${bulkOwner(i)}/tokens?clientId=${clientId}&size=200&order_by=token_id&order_direction=asc`,
  );
  const body = (await res.json()) as { data?: { id: string }[] };
  return { status: res.status, ids: (body.data ?? []).map((t) => BigInt(t.id)) };
}

it("keeps A's listing and tracker answering while B catches up, and B's index ends exact", async () => {
  await service.networks[0]!.caughtUp();
  const { clientId } = await service.accounts.ensureDevAccount();
  const tracker = new Sdk.TransactionTracker(clientId, { platform: 'ethereum', network: 'local', url: service.url });
  const sub = tracker.subscribe('transaction', { subscriptionId: 'isolation', ackTimeout: 600_000 });
  await sub.ready;
  const receipts: string[] = [];
  sub.on('message', (m) => {
    if (m.data.type === 'receipt') receipts.push(m.data.result.transactionHash!.toLowerCase());
    void m.ack().catch(() => {});
  });

  const bBehind = () => (service.networks[1]!.report().indexedBlock ?? -1) < b.moveBlocks.at(-1)!;
  expect(bBehind()).toBe(true);
  let bDone = false;
  const bCaughtUp = service.networks[1]!.caughtUp().finally(() => void (bDone = true));
  // A's listing, one request after the other, every answer exact (A's index does not move meanwhile).
  const aHead = a.moveBlocks.at(-1)!;
  const listed: number[] = [];
  const listingLoop = (async () => {
    for (let n = 0; !bDone; n++) {
      const owner = n % OWNERS;
      const got = await listing('local', clientId, owner);
      expect(got.status).toBe(200);
      expect(got.ids).toEqual(a.holdings(owner, aHead));
      if (!bDone) listed.push(owner);
    }
  })();
  // A's tracker: one transfer at a time, tracked, mined, its receipt awaited before the next.
  const sent: string[] = [];
  const trackerLoop = (async () => {
    let nonce = await wallet.getNonce();
    while (!bDone) {
      const raw = await wallet.signTransaction({
        to: '0x000000000000000000000000000000000000dEaD',
        value: 1n,
        nonce: nonce++,
        gasLimit: 21_000n,
        maxFeePerGas: 200_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        chainId: 31337n,
        type: 2,
      });
      const hash = (await rpc(anvils[0]!.url, 'eth_sendRawTransaction', [raw])) as string;
      await tracker.trackTransaction(hash, { timeout: 600_000, confirmation: 1 });
      await rpc(anvils[0]!.url, 'evm_mine');
      await waitFor("the receipt of A's transfer", () => receipts.includes(hash.toLowerCase()), { timeoutMs: 120_000, everyMs: 20 });
      if (!bDone) sent.push(hash.toLowerCase());
    }
  })();
  await Promise.all([bCaughtUp, listingLoop, trackerLoop]);
  await tracker.close();

  // Counted while B was behind: A answered throughout, its receipts in the order the transfers were mined.
  console.log(
    `isolation test: while B caught up ${2 * TOKENS} transfers, A answered ${listed.length} listings and delivered ${sent.length} tracked receipts`,
  );
  expect(listed.length).toBeGreaterThanOrEqual(10);
  expect(sent.length).toBeGreaterThanOrEqual(3);
  expect(receipts.slice(0, sent.length)).toEqual(sent);

  // B's index is exact: every owner's listing at B's head.
  const bHead = b.moveBlocks.at(-1)!;
  expect(service.networks[1]!.report().indexedBlock).toBeGreaterThanOrEqual(bHead);
  for (const owner of [0, 1, 3, 10, 499, OWNERS - 1]) {
    const got = await listing('local-2', clientId, owner);
    expect(got.status).toBe(200);
    expect(got.ids).toEqual(b.holdings(owner, bHead));
  }
}, 600_000);
