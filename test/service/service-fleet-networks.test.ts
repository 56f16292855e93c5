// Three `txdesk service` processes on one PostgreSQL database serving two networks (two dev chains, chain ids 31337
// and 31338, with different token histories): one leader per (role, network) across the fleet, a SIGKILL of the
// instance indexing ethereum/local-2 in the middle of a catch-up hands that indexer to another instance within 10 s,
// and each network's index (the default's in the public schema, local-2's in its own) then equals the one a single
// indexer on SQLite builds from the same chain, row for row, while the two networks' indexes differ.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ContractFactory, JsonRpcProvider, NonceManager, Wallet, type Contract } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../src/devchain/devchain.js';
import { silentLogger } from '../../src/lib/log.js';
import { openDatabase } from '../../src/lib/sqlite.js';
import { openPgPool, type PgPool } from '../../src/service/db/pg-pool.js';
import { networkPlace } from '../../src/service/db/service-database.js';
import { startIndexer } from '../../src/service/indexer/indexer.js';
import { dumpPg, dumpSqlite } from '../support/service/index-dump.js';
import { DEV_KEY } from '../support/chain/indexer-chain.js';
import { indexerTestArtifacts, type TestContractName } from '../support/chain/indexer-contracts.js';
import { createTestDatabase, type TestDatabase } from '../support/service/postgres-db.js';
import {
  ensureCliBuilt,
  killServiceProcesses,
  serviceHealth,
  startServiceProcess,
  type NetworkHealth,
  type ServiceProcess,
} from '../support/service/service-process.js';
import { waitFor } from '../support/poll.js';

const ZERO = '0x' + '0'.repeat(40);
const [alice, bob, carol] = ['0x1111', '0x2222', '0x3333'].map((p) => (p + '0'.repeat(36)).toLowerCase()) as [string, string, string];
const NETWORKS = ['local', 'local-2'] as const;
type NetworkName = (typeof NETWORKS)[number];
type Role = NetworkHealth['roles'][number];

/** One dev chain and the signer that writes its history (the same dev key on both: same deployer, same addresses). */
interface Chain {
  anvil: RunningAnvil;
  provider: JsonRpcProvider;
  signer: NonceManager;
}

const chains = {} as Record<NetworkName, Chain>;
let database: TestDatabase;
const pools: PgPool[] = [];
const dirs: string[] = [];
let fleet: ServiceProcess[] = [];
/** local: TestNft "Alpha" (first deployment) and TestMulti (second). */
let alpha: Contract;
let multi: Contract;
/** local-2: TestDrop (first deployment: Alpha's address on the other chain) and TestNft "Beta" (TestMulti's address). */
let drop: Contract;
let beta: Contract;

async function startChain(chainId: number): Promise<Chain> {
  const anvil = await startAnvil({ chainId, blockTimeSeconds: 1, gasLimit: 30_000_000 });
  const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, pollingInterval: 200 });
  return { anvil, provider, signer: new NonceManager(new Wallet(DEV_KEY, provider)) };
}

/** Sends a deployment without waiting for it to be mined. */
async function deploy(chain: Chain, name: TestContractName, ...args: unknown[]): Promise<Contract> {
  const a = indexerTestArtifacts()[name];
  return (await new ContractFactory(a.abi as never, a.bytecode, chain.signer).deploy(...args)) as unknown as Contract;
}

/** Sends a contract call without waiting for it to be mined. */
async function send(c: Contract, method: string, ...args: unknown[]): Promise<void> {
  await (c.getFunction(method) as (...a: unknown[]) => Promise<unknown>)(...args);
}

/** The chain's head now (provider.getBlockNumber() may answer from its cache). */
const headOf = async (chain: Chain): Promise<number> => Number(await chain.provider.send('eth_blockNumber', []));

/** Stops interval mining (a block mined meanwhile would shift a backlog's numbers); returns the head. */
async function pauseMining(chain: Chain): Promise<number> {
  await chain.provider.send('evm_setIntervalMining', [0]);
  return headOf(chain);
}

/**
 * Mines each step's transactions as a block of their own, interval mining paused meanwhile (a backlog appears as fast
 * as anvil mines it); returns the last block mined.
 */
async function inBlocks(chain: Chain, steps: (() => Promise<unknown>)[]): Promise<number> {
  await pauseMining(chain);
  try {
    for (const step of steps) {
      await step();
      await chain.provider.send('evm_mine', []);
    }
    return await headOf(chain);
  } finally {
    await chain.provider.send('evm_setIntervalMining', [1]);
  }
}

beforeAll(async () => {
  ensureCliBuilt();
  // Kept as each starts, so afterAll stops the one that did when the other did not.
  await Promise.all([startChain(31337).then((c) => (chains.local = c)), startChain(31338).then((c) => (chains['local-2'] = c))]);
  const [one, two] = [chains.local, chains['local-2']];
  // Different histories on the two chains, and the same deployer and nonces on both: each contract address holds a
  // different contract on each chain (Alpha or Drop, Multi or Beta), so a mix-up would show in the index.
  await Promise.all([
    inBlocks(one, [
      async () => (alpha = await deploy(one, 'TestNft', 'Alpha', 'ALP')),
      async () => (multi = await deploy(one, 'TestMulti')),
      () => send(alpha, 'mintMany', alice, 0, 40),
      () => send(multi, 'batch', ZERO, alice, [1, 2, 3], [5, 6, 7]),
      () => send(alpha, 'moveMany', bob, [0, 1, 2]),
      () => send(alpha, 'burn', 3),
      () => send(multi, 'single', alice, bob, 2, 4),
    ]),
    inBlocks(two, [
      async () => (drop = await deploy(two, 'TestDrop')),
      async () => (beta = await deploy(two, 'TestNft', 'Beta', 'BET')),
      () => send(drop, 'mintRange', bob, 1, 300),
      () => send(beta, 'mintMany', bob, 1000, 25),
      () => send(beta, 'moveMany', alice, [1000, 1001]),
      () => send(drop, 'move', bob, alice, 5),
      () => send(drop, 'burn', bob, 6),
    ]),
  ]);
  database = await createTestDatabase('fleet-networks');
  // Started together: they race for the migration lock, the networks' schemas and every (role, network) leadership.
  fleet = await Promise.all(
    [0, 1, 2].map(() => {
      const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-fleet-networks-'));
      dirs.push(dataDir);
      return startServiceProcess({
        networks: [`ethereum/local=${one.anvil.url}`, `ethereum/local-2=${two.anvil.url}`],
        dataDir,
        database: database.url,
        // 31338 is not a chain id the service takes for a dev chain (it would stay 12 blocks behind the head).
        indexerLag: 0,
      });
    }),
  );
});

afterAll(async () => {
  killServiceProcesses();
  await Promise.all(fleet.map((p) => p.exited));
  await Promise.all(pools.map((p) => p.end().catch(() => {})));
  for (const c of Object.values(chains)) {
    c.provider.destroy();
    await c.anvil.stop();
  }
  await database?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const alive = () => fleet.filter((p) => p.child.exitCode === null && p.child.signalCode === null);

function networkOf(h: { networks: NetworkHealth[] }, network: NetworkName): NetworkHealth {
  const n = h.networks.find((x) => x.platform === 'ethereum' && x.network === network);
  if (!n) throw new Error(`/health lists no ethereum/${network}: ${JSON.stringify(h.networks.map((x) => `${x.platform}/${x.network}`))}`);
  return n;
}

/** The instance holding `role` for `network`, once exactly one of `among` does. */
async function leaderOf(role: Role, network: NetworkName, among: ServiceProcess[], timeoutMs = 30_000): Promise<ServiceProcess> {
  let seen = '';
  return waitFor(
    `exactly one ${role} for ethereum/${network} (last seen: ${seen || 'none'})`,
    async () => {
      const holders: ServiceProcess[] = [];
      for (const p of among) if (networkOf(await serviceHealth(p), network).roles.includes(role)) holders.push(p);
      seen = holders.map((p) => p.serviceUrl).join(', ');
      return holders.length === 1 ? holders[0] : undefined;
    },
    { timeoutMs: timeoutMs },
  );
}

/** The (role, network) pairs each instance holds, as one table: instance URL -> "role network" strings. */
async function rolesTable(among: ServiceProcess[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const p of among) out[p.serviceUrl] = (await serviceHealth(p)).networks.flatMap((n) => n.roles.map((r) => `${r} ${n.network}`));
  return out;
}

/** Exactly one holder per (role, network) among `among`, settled; returns the table for the record. */
async function expectOneLeaderPerRoleAndNetwork(among: ServiceProcess[], timeoutMs = 30_000): Promise<Record<string, string[]>> {
  for (const network of NETWORKS)
    for (const role of ['indexer-leader', 'watcher-leader'] as const) await leaderOf(role, network, among, timeoutMs);
  const table = await rolesTable(among);
  const held = Object.values(table).flat().sort();
  expect(held, JSON.stringify(table)).toEqual([
    'indexer-leader local',
    'indexer-leader local-2',
    'watcher-leader local',
    'watcher-leader local-2',
  ]);
  return table;
}

/** Polls the instance indexing `network` until its index reaches `block`. */
async function indexedTo(network: NetworkName, block: number, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    `ethereum/${network} indexed to block ${block}`,
    async () => {
      for (const p of alive()) {
        const n = networkOf(await serviceHealth(p), network);
        if (n.roles.includes('indexer-leader') && (n.indexedBlock ?? -1) >= block) return true;
      }
      return undefined;
    },
    { timeoutMs: timeoutMs },
  );
}

it('serves both networks on every instance with one leader per (role, network) across the fleet', async () => {
  const table = await expectOneLeaderPerRoleAndNetwork(fleet);
  for (const p of fleet) {
    const h = await serviceHealth(p);
    expect(h.store).toBe('postgres');
    expect(h.networks.map((n) => [n.network, n.chainId, n.state])).toEqual([
      ['local', 31337, 'serving'],
      ['local-2', 31338, 'serving'],
    ]);
    // The top-level roles are the default network's.
    const local = networkOf(h, 'local').roles;
    expect(h.roles).toEqual(local.length > 0 ? local : ['follower']);
    for (const network of NETWORKS) {
      const n = networkOf(h, network);
      // Only the instance indexing a network reports how far its index is (a leader just elected reports null until
      // its first step is written: indexedTo below waits for the leaders' figures).
      if (!n.roles.includes('indexer-leader')) expect(n.indexedBlock, `${p.serviceUrl} ${network}: ${JSON.stringify(n)}`).toBeNull();
      expect(n.node.inUse).toBe(0);
    }
  }
  expect(Object.keys(table)).toHaveLength(3);
  await Promise.all(NETWORKS.map(async (network) => indexedTo(network, await headOf(chains[network]))));
  // A fleet instance keeps no files, for no network (a SQLite file of local-2 here would be a wrong turn).
  for (const d of dirs) expect(readdirSync(d)).toEqual([]);
});

it("hands local-2's indexer to another instance within 10 s of a SIGKILL mid-catch-up; each index equals a single-instance run", async () => {
  const leader = await leaderOf('indexer-leader', 'local-2', fleet);
  const two = chains['local-2'];
  const one = chains.local;
  // The kill lands in the middle of a catch-up: a backlog of 16 blocks of 5,000 tokens each (ranges), then transfers,
  // is mined block by block while the leader indexes it, and the leader is killed as soon as it has written part of
  // the backlog (at most two such blocks go into one write, indexer-range.ts), before the backlog is even complete.
  // Meanwhile the default network gets a smaller backlog of its own, so both indexes are written at the same time.
  const first = (await pauseMining(two)) + 1;
  const head = first + 16 + 2 - 1;
  const backlog2 = inBlocks(two, [
    ...Array.from({ length: 16 }, (_, i) => () => send(drop, 'mintRange', carol, 100_000 + i * 5000, 5000)),
    () => send(beta, 'moveMany', carol, [1002, 1003, 1004]),
    () => send(drop, 'burn', carol, 100_001),
  ]);
  const backlog1 = inBlocks(one, [
    ...Array.from({ length: 6 }, (_, i) => () => send(alpha, 'mintMany', carol, 10_000 + i * 100, 100)),
    () => send(multi, 'batch', alice, carol, [1, 3], [2, 7]),
  ]);
  let partWay = 0;
  try {
    partWay = await waitFor(
      `the local-2 leader part-way through blocks ${first}-${head}`,
      async () => {
        const n = networkOf(await serviceHealth(leader), 'local-2');
        const at = n.indexedBlock ?? -1;
        return at >= first && at < head ? at : undefined;
      },
      { timeoutMs: 60_000, everyMs: 20 },
    );
  } catch (e) {
    await Promise.allSettled([backlog1, backlog2]);
    throw e;
  }
  leader.child.kill('SIGKILL');
  const killedAt = Date.now();
  await leader.exited;
  fleet = fleet.filter((p) => p !== leader);
  const next = await waitFor(
    'a new indexer leader for ethereum/local-2',
    async () => {
      for (const p of fleet) if (networkOf(await serviceHealth(p), 'local-2').roles.includes('indexer-leader')) return p;
      return undefined;
    },
    { timeoutMs: 30_000, everyMs: 50 },
  );
  const takeOverMs = Date.now() - killedAt;
  expect(takeOverMs, `take-over time (ms) after a kill at block ${partWay} of ${first}-${head}`).toBeLessThan(10_000);
  expect(fleet).toContain(next);
  expect(await backlog2).toBe(head);
  const head1 = await backlog1;
  // Every (role, network) is held by exactly one of the two survivors (whatever else the killed instance led moved too).
  await expectOneLeaderPerRoleAndNetwork(fleet, 10_000);
  await Promise.all([indexedTo('local-2', head), indexedTo('local', head1)]);

  // Each network's index in the shared database: the default's in the public schema, local-2's in a schema of its own.
  const inPublic = openPgPool(database.url, 2);
  const inOwnSchema = openPgPool(database.url, 2, networkPlace('ethereum/local-2').schema);
  pools.push(inPublic, inOwnSchema);
  const fleetDumps = {
    local: await dumpPg(inPublic, { checkpoints: false }),
    'local-2': await dumpPg(inOwnSchema, { checkpoints: false }),
  };

  // One indexer alone per chain, on SQLite, over the same chains: blocks mined since carry no token events.
  for (const network of NETWORKS) {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-fleet-networks-single-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'index.db'));
    const single = startIndexer({ db, nodeUrl: chains[network].anvil.url, confirmations: 0, log: silentLogger, pollMs: 100 });
    try {
      await single.caughtUp();
      // Node's deep equality first (a tenth of toEqual's time over local-2's 80,000 tokens); toEqual, which says where
      // they differ, only if not.
      const alone = dumpSqlite(db, { checkpoints: false });
      if (!isDeepStrictEqual(fleetDumps[network], alone))
        expect(fleetDumps[network], `ethereum/${network}: the fleet's index against a single indexer's`).toEqual(alone);
    } finally {
      await single.stop();
      db.close();
    }
  }

  // No mix-up: the two indexes differ, and each holds its own chain's contracts at the addresses both chains share.
  const [local, local2] = [fleetDumps.local, fleetDumps['local-2']];
  expect(local).not.toEqual(local2);
  const kinds = (d: Record<string, unknown[]>) =>
    Object.fromEntries(
      (d.contracts as { address: string; name: string; standard: string }[]).map((c) => [c.address, `${c.name} ${c.standard}`]),
    );
  const address = (c: Contract) => (c.target as string).toLowerCase().slice(2);
  const sameAddress = [address(alpha), address(multi)];
  expect(sameAddress).toEqual([address(drop), address(beta)]);
  expect(Object.values(kinds(local)).sort()).toEqual(['Alpha ERC721', 'Multi ERC1155']);
  expect(Object.values(kinds(local2)).sort()).toEqual(['Beta ERC721', 'Drop ERC721']);
  const held = (d: Record<string, unknown[]>) => (d.tokens as { owner: string | null }[]).filter((t) => t.owner !== null).length;
  // Held: Alpha's 40 less the burned one and 600 more; Multi's balances (ids 1 and 2 of alice, who gave carol all 7 of
  // id 3, 2 of bob, 1 and 3 of carol).
  expect(held(local)).toBe(40 - 1 + 600 + 5);
  // Held: Drop's 300 and 16 ranges of 5,000, less one burned of each; Beta's 25.
  expect(held(local2)).toBe(300 - 1 + 16 * 5000 - 1 + 25);
});
