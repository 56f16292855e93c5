// Leaders that step down (issue 45, item 4): two services on one PostgreSQL database, each reaching the one dev chain
// through a TCP proxy of its own. Blackholing the indexer leader's link (connections accepted, nothing answered: a dead
// route, a hung provider; the harder case than refused connections, since every request waits for its own timeout)
// makes it hand the network's indexer and receipt watcher to the other instance within TAKE_OVER_MS (node-link.ts: no
// usable node for NODE_LINK_DOWN_MS, then the leadership's next try; stepping down aborts the requests the blackhole
// holds instead of waiting for them), and keep neither while its link stays down; the index the fleet built across the
// hand-over equals a single SQLite indexer's over the same chain, row for row: nothing indexed twice, nothing missed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractFactory, JsonRpcProvider, NonceManager, Wallet, type Contract } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { openPgPool, type PgPool } from '../../../src/service/db/pg-pool.js';
import { startIndexer } from '../../../src/service/indexer/indexer.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { NODE_LINK_DOWN_MS } from '../../../src/service/network/node-link.js';
import { startTcpProxy, type TcpProxy } from '../../support/faults/fault-proxy.js';
import { dumpPg, dumpSqlite } from '../../support/service/index-dump.js';
import { DEV_KEY } from '../../support/chain/indexer-chain.js';
import { indexerTestArtifacts } from '../../support/chain/indexer-contracts.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { waitFor } from '../../support/poll.js';

/**
 * The cut is noticed within a probe timeout (1 s here), then NODE_LINK_DOWN_MS, then at most two 2 s lock tries; the
 * old leader's hung requests (the indexer's would wait 120 s, indexer-rpc.ts REQUEST_TIMEOUT_MS) are aborted, not waited for.
 */
const TAKE_OVER_MS = 20_000;
const [alice, bob] = ['0x1111', '0x2222'].map((p) => (p + '0'.repeat(36)).toLowerCase()) as [string, string];

let anvil: RunningAnvil;
let provider: JsonRpcProvider;
let nft: Contract;
let database: TestDatabase;
const proxies: TcpProxy[] = [];
const services: RunningService[] = [];
const pools: PgPool[] = [];
const dirs: string[] = [];

const head = async () => Number(await provider.send('eth_blockNumber', []));
async function send(method: string, ...args: unknown[]): Promise<void> {
  const tx = await (nft.getFunction(method) as (...a: unknown[]) => Promise<{ wait(): Promise<unknown> }>)(...args);
  await tx.wait();
}

beforeAll(async () => {
  anvil = await startAnvil();
  provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, pollingInterval: 100 });
  const a = indexerTestArtifacts().TestNft;
  const signer = new NonceManager(new Wallet(DEV_KEY, provider));
  nft = (await (
    await new ContractFactory(a.abi as never, a.bytecode, signer).deploy('Alpha', 'ALP')
  ).waitForDeployment()) as unknown as Contract;
  await send('mintMany', alice, 0, 50);
  database = await createTestDatabase('step_down');
  for (let i = 0; i < 2; i++) {
    const proxy = await startTcpProxy(anvil.url);
    proxies.push(proxy);
    const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-step-down-'));
    dirs.push(dataDir);
    services.push(
      await startService({
        networks: [{ platform: 'ethereum', network: 'local', nodeUrls: [proxy.url], chainId: 31337 }],
        dataDir,
        port: 0,
        database: database.url,
        probeMs: 250,
        probeTimeoutMs: 1_000,
        log: silentLogger,
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const s of services) await s.stop();
  await Promise.all(pools.map((p) => p.end().catch(() => {})));
  for (const p of proxies) await p.close();
  provider?.destroy();
  await anvil?.stop();
  await database?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const leads = (s: RunningService) =>
  s
    .roles()
    .filter((r) => r !== 'follower')
    .sort();

it('hands the indexer and the watcher to the instance whose node answers, and the index stays exact', async () => {
  const leader = await waitFor(
    'exactly one indexer leader',
    () => {
      const holders = services.filter((s) => s.roles().includes('indexer-leader'));
      return holders.length === 1 ? holders[0] : undefined;
    },
    { timeoutMs: 30_000, everyMs: 50 },
  );
  const other = services.find((s) => s !== leader)!;
  const cut = proxies[services.indexOf(leader)]!;
  await waitFor('the leader to index the first mints', async () => leader.indexerStatus().indexedBlock >= (await head()), {
    timeoutMs: 30_000,
    everyMs: 100,
  });

  await cut.blackhole();
  const cutAt = Date.now();
  // The chain moves on while the roles change hands: the new leader must index what the old one never saw.
  const moving = (async () => {
    await send('moveMany', bob, [0, 1, 2, 3]);
    await send('burn', 4);
    await send('mintMany', bob, 100, 30);
  })();
  await waitFor('the other instance holding both roles', () => (leads(other).length === 2 ? true : undefined), {
    timeoutMs: TAKE_OVER_MS + 30_000,
    everyMs: 50,
  });
  const takeOverMs = Date.now() - cutAt;
  expect(takeOverMs, 'the hand-over after the cut (ms)').toBeGreaterThanOrEqual(NODE_LINK_DOWN_MS);
  expect(takeOverMs, 'the hand-over after the cut (ms)').toBeLessThan(TAKE_OVER_MS);
  expect(leads(leader)).toEqual([]);
  // The leader's indexer asks for the head every 400 ms, so one of its requests sat in the blackhole from just after the
  // cut until the step-down gave it up: far longer than a probe's 1 s, far shorter than its own 120 s timeout.
  await waitFor('a request of the old leader given up in the blackhole', () => cut.longestHeldMs() >= NODE_LINK_DOWN_MS / 2, {
    timeoutMs: 5_000,
    everyMs: 20,
  });
  console.log(
    `step-down test: the other instance held the indexer and the watcher ${(takeOverMs / 1000).toFixed(1)} s after the cut; ` +
      `the old leader gave up a request the blackhole held for ${(cut.longestHeldMs() / 1000).toFixed(1)} s`,
  );

  // While its link stays down the old leader takes nothing back: watched over more than two of its lock tries.
  await moving;
  const last = await head();
  const watchUntil = Date.now() + 5_000;
  await waitFor(
    'the new leader indexed to the head, the old one leading nothing for 5 s',
    () => {
      expect(leads(leader)).toEqual([]);
      expect(leads(other)).toEqual(['indexer-leader', 'watcher-leader']);
      return Date.now() >= watchUntil && other.indexerStatus().indexedBlock >= last ? true : undefined;
    },
    { timeoutMs: 60_000, everyMs: 100 },
  );

  // The link comes back: the roles stay where they are (only the normal election moves them).
  await cut.up();
  await waitFor('the old leader serving again', () => (leader.networks[0]!.state() === 'serving' ? true : undefined), {
    timeoutMs: 30_000,
    everyMs: 100,
  });
  expect(leads(other)).toEqual(['indexer-leader', 'watcher-leader']);
  expect(leads(leader)).toEqual([]);

  // The fleet's index equals a single indexer's over the same chain.
  const pool = openPgPool(database.url, 2);
  pools.push(pool);
  const fleetDump = await dumpPg(pool, { checkpoints: false });
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-step-down-single-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'index.db'));
  const single = startIndexer({ db, nodeUrl: anvil.url, confirmations: 0, log: silentLogger, pollMs: 100 });
  try {
    await single.caughtUp();
    expect(fleetDump).toEqual(dumpSqlite(db, { checkpoints: false }));
  } finally {
    await single.stop();
    db.close();
  }
  const transfers = fleetDump.transfers as unknown[];
  expect(transfers).toHaveLength(50 + 4 + 1 + 30);
}, 240_000);
