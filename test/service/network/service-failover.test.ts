// Two nodes for one network, the first killed while the index is catching up: the service moves reads to the second
// (/health says which node and why) and the index it completes is identical to a single-node run on the same chain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { dumpSqlite } from '../../support/service/index-dump.js';
import { startRpcProxy, startTestChain, type RpcProxy, type TestChain } from '../../support/chain/indexer-chain.js';
import { waitFor } from '../../support/poll.js';

let chain: TestChain;
let first: RpcProxy;
let second: RpcProxy;
const services: RunningService[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  const nft = await chain.deploy('TestNft', 'Alpha', 'ALP');
  const owners = Array.from({ length: 6 }, () => Wallet.createRandom().address);
  // A history of 120 blocks with transfers in each, so a catch-up over a slowed node takes seconds.
  for (let i = 0; i < 120; i++) await chain.send(nft, 'mintMany', owners[i % owners.length]!, i * 10, 1 + (i % 7));
  await chain.mine(20);
  [first, second] = await Promise.all([startRpcProxy(chain.url), startRpcProxy(chain.url)]);
}, 120_000);

afterAll(async () => {
  for (const s of services) await s.stop();
  await first?.stop();
  await second?.stop();
  await chain?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function serve(nodeUrls: string[]): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-failover-'));
  dirs.push(dataDir);
  const service = await startService({
    networks: [{ platform: 'ethereum', network: 'local', nodeUrls, indexerLag: 0 }],
    dataDir,
    port: 0,
    probeMs: 150,
    probeTimeoutMs: 1_000,
    log: silentLogger,
  });
  services.push(service);
  return service;
}

it('completes the index through the second node when the first dies mid-catch-up, identical to a single-node run', async () => {
  // The first node answers log reads slowly, so the kill lands while the index is behind.
  first.hold = (r) => (r.method === 'eth_getLogs' ? new Promise((resolve) => setTimeout(resolve, 150)) : null);
  const service = await serve([first.url, second.url]);
  const head = await chain.provider.getBlockNumber();
  await waitFor('the first indexed range', () => service.indexerStatus().indexedBlock > 0, { timeoutMs: 30_000 });
  expect(service.indexerStatus().indexedBlock).toBeLessThan(head);
  await first.stop();

  await waitFor('the index caught up through the second node', () => service.indexerStatus().indexedBlock >= head, { timeoutMs: 60_000 });
  const health = (await (await fetch(`${service.url}/health`)).json()) as any;
  expect(health.networks[0].node.inUse).toBe(1);
  expect(health.networks[0].node.nodes[0].problem).toBe('refused');
  expect(health.networks[0].reason).toMatch(/node 2/);
  expect(second.requests.some((r) => r.method === 'eth_getLogs')).toBe(true);

  const alone = await serve([chain.url]);
  await waitFor('the single-node run caught up', () => alone.indexerStatus().indexedBlock >= head, { timeoutMs: 60_000 });
  expect(dumpSqlite(service.db!, { checkpoints: false })).toEqual(dumpSqlite(alone.db!, { checkpoints: false }));
  expect(dumpSqlite(service.db!, { checkpoints: false }).tokens!.length).toBeGreaterThan(400);
});
