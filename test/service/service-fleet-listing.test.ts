// The token index and listing shared through PostgreSQL: three `txdesk service` processes on one database and one
// dev chain answer the same listing while the index grows, and when the indexing instance is SIGKILLed in the middle
// of a catch-up another takes the role within 10 s and finishes it; the index then equals one indexed by a single
// instance on SQLite, row for row. While the database refuses connections every instance answers 502 with a sentence.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ContractFactory, JsonRpcProvider, NonceManager, Wallet, type Contract } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../src/devchain/devchain.js';
import { silentLogger } from '../../src/lib/log.js';
import { openDatabase } from '../../src/lib/sqlite.js';
import { openPgPool, type PgPool } from '../../src/service/db/pg-pool.js';
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
  type ServiceProcess,
} from '../support/service/service-process.js';
import { waitFor } from '../support/poll.js';

const ZERO = '0x' + '0'.repeat(40);
const [alice, bob] = ['0x1111', '0x2222'].map((p) => (p + '0'.repeat(36)).toLowerCase()) as [string, string];

let anvil: RunningAnvil;
let provider: JsonRpcProvider;
let signer: NonceManager;
let database: TestDatabase;
let pool: PgPool;
const dirs: string[] = [];
let fleet: ServiceProcess[] = [];
let clientId: string;
let nft: Contract;
let drop: Contract;
let multi: Contract;

async function deploy(name: TestContractName, ...args: unknown[]): Promise<Contract> {
  const a = indexerTestArtifacts()[name];
  const c = await new ContractFactory(a.abi as never, a.bytecode, signer).deploy(...args);
  await c.waitForDeployment();
  return c as unknown as Contract;
}

/** Sends a contract call without waiting for it to be mined. */
async function send(c: Contract, method: string, ...args: unknown[]): Promise<{ wait(): Promise<unknown> }> {
  return (c.getFunction(method) as (...a: unknown[]) => Promise<{ wait(): Promise<unknown> }>)(...args);
}

beforeAll(async () => {
  ensureCliBuilt();
  anvil = await startAnvil({ blockTimeSeconds: 1, gasLimit: 30_000_000 });
  provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, pollingInterval: 200 });
  signer = new NonceManager(new Wallet(DEV_KEY, provider));
  nft = await deploy('TestNft', 'Plain', 'PLN');
  drop = await deploy('TestDrop');
  multi = await deploy('TestMulti');
  database = await createTestDatabase('fleet-listing');
  pool = openPgPool(database.url);
  fleet = await Promise.all(
    [0, 1, 2].map(() => {
      const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-fleet-listing-'));
      dirs.push(dataDir);
      return startServiceProcess({ nodeUrl: anvil.url, dataDir, database: database.url });
    }),
  );
  const res = await fetch(`${fleet[0]!.serviceUrl}/users/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'listing@example.com',
      password: 'correct horse battery staple',
      name: 'Fleet',
      organization: 'txdesk tests',
    }),
  });
  expect(res.status).toBe(201);
  clientId = ((await res.json()) as { clientId: string }).clientId;
});

afterAll(async () => {
  killServiceProcesses();
  await Promise.all(fleet.map((p) => p.exited));
  await pool?.end();
  provider?.destroy();
  await anvil?.stop();
  await database?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function listing(p: ServiceProcess, path: string): Promise<unknown> {
  const res = await fetch(`${p.serviceUrl}${path}${path.includes('?') ? '&' : '?'}clientId=${clientId}`);
  expect(res.status, `${path} on ${p.serviceUrl}`).toBe(200);
  const body = (await res.json()) as { data?: unknown; pagination?: { totalCount: number } };
  // Page links name the instance that answered; the rest must be the same everywhere.
  return body.pagination ? { data: body.data, totalCount: body.pagination.totalCount } : body;
}

const pages = (owner: string) => [
  `/nft/v1/accounts/${owner}/tokens?size=50&order_by=transfer_block_number&order_direction=desc`,
  `/nft/v1/accounts/${owner}/tokens?size=7&page=3&order_by=token_id&order_direction=asc`,
  `/nft/v1/accounts/${owner}/tokens?size=20&order_by=contract_address&standard=ERC1155`,
];

/** The three instances' answers to every page, once they are equal (the index may move between the reads of a round). */
async function sameOnAll(paths: string[], what: string): Promise<unknown[]> {
  let last: unknown[][] = [];
  return waitFor(
    what,
    async () => {
      last = await Promise.all(
        fleet
          .filter((p) => p.child.exitCode === null && p.child.signalCode === null)
          .map((p) => Promise.all(paths.map((q) => listing(p, q)))),
      );
      return last.every((x) => JSON.stringify(x) === JSON.stringify(last[0])) ? last[0] : undefined;
    },
    { timeoutMs: 30_000 },
  );
}

const totalOf = (page: unknown) => (page as { totalCount: number }).totalCount;

it('serves the same listing on every instance while the index grows', async () => {
  let expected = 0;
  for (let round = 0; round < 4; round++) {
    const sent = [
      await send(nft, 'mintMany', alice, round * 100, 25),
      await send(drop, 'mintRange', alice, 1 + round * 1000, 200),
      await send(multi, 'batch', ZERO, alice, [round, round + 10], [3, 4]),
    ];
    expected += 25 + 200 + 2;
    // Read while the blocks are mined and indexed: every round of reads must agree across the instances.
    const during = await sameOnAll(pages(alice), `round ${round}: the same answers on all three`);
    expect(totalOf(during[0])).toBeLessThanOrEqual(expected);
    await Promise.all(sent.map((t) => t.wait()));
    const after = await waitFor(
      `round ${round}: ${expected} holdings of alice listed on all three`,
      async () => {
        const x = await sameOnAll(pages(alice), `round ${round}: the same answers on all three`);
        return totalOf(x[0]) === expected ? x : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(totalOf(after[2])).toBe(2 * (round + 1));
  }
  const contract = await sameOnAll([`/nft/v1/contracts/${(drop.target as string).toLowerCase()}`], 'the contract on all three');
  expect(contract[0]).toMatchObject({ totalSupply: 800, standard: 'ERC721' });
});

it('hands indexing to another instance within 10 s of a SIGKILL mid-catch-up; the index equals a single-instance run', async () => {
  const leader = await waitFor(
    'an indexer leader',
    async () => {
      for (const p of fleet) if ((await serviceHealth(p)).roles.includes('indexer-leader')) return p;
      return undefined;
    },
    { timeoutMs: 30_000 },
  );
  // A backlog of 14 blocks (ranges of 5,000 tokens, then transfers), mined in a burst; the leader dies while it has
  // written some of them and not all.
  await provider.send('evm_setIntervalMining', [0]);
  const first = (await provider.getBlockNumber()) + 1;
  try {
    for (let i = 0; i < 12; i++) {
      await send(drop, 'mintRange', bob, 100_000 + i * 5000, 5000);
      await provider.send('evm_mine', []);
    }
    await send(nft, 'moveMany', bob, [0, 1, 2, 100, 101]);
    await provider.send('evm_mine', []);
    await send(multi, 'single', alice, bob, 10, 2);
    await provider.send('evm_mine', []);
  } finally {
    await provider.send('evm_setIntervalMining', [1]);
  }
  const head = first + 13;
  await waitFor(
    `the leader part-way through blocks ${first}-${head}`,
    async () => {
      const h = await serviceHealth(leader);
      return h.indexedBlock >= first && h.indexedBlock < head ? true : undefined;
    },
    { timeoutMs: 30_000, everyMs: 20 },
  );
  leader.child.kill('SIGKILL');
  const killedAt = Date.now();
  await leader.exited;
  fleet = fleet.filter((p) => p !== leader);
  const next = await waitFor(
    'a new indexer leader',
    async () => {
      for (const p of fleet) if ((await serviceHealth(p)).roles.includes('indexer-leader')) return p;
      return undefined;
    },
    { timeoutMs: 30_000 },
  );
  expect(Date.now() - killedAt, 'take-over time (ms)').toBeLessThan(10_000);
  await waitFor(`the new leader past block ${head}`, async () => ((await serviceHealth(next)).indexedBlock >= head ? true : undefined), {
    timeoutMs: 120_000,
  });

  // One instance alone, on SQLite, over the same chain.
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-fleet-single-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'index.db'));
  const single = startIndexer({ db, nodeUrl: anvil.url, confirmations: 0, log: silentLogger, pollMs: 100 });
  try {
    await single.caughtUp();
    // Blocks mined since carry no token events: both indexes hold every move there is. Compared by node's deep
    // equality first (0.4 s over the 60,000 tokens, toEqual 3 s); toEqual, which says where they differ, only if not.
    const [inPg, inSqlite] = [await dumpPg(pool, { checkpoints: false }), dumpSqlite(db, { checkpoints: false })];
    if (!isDeepStrictEqual(inPg, inSqlite)) expect(inPg).toEqual(inSqlite);
  } finally {
    await single.stop();
    db.close();
  }
  const bobs = await sameOnAll(pages(bob).slice(0, 2), 'bob on the two instances left');
  expect(totalOf(bobs[0])).toBe(12 * 5000 + 5 + 1);
});

it('answers 502 with a sentence while the database refuses connections, and serves again once it is back', async () => {
  const name = new URL(database.url).pathname.slice(1);
  const adminUrl = new URL(database.url);
  adminUrl.pathname = '/postgres';
  const admin = openPgPool(adminUrl.toString());
  const path = pages(alice)[0]!;
  try {
    // As during maintenance or a restart: the database closes to connections and ends the ones it has.
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    for (const p of fleet) {
      const res = await fetch(`${p.serviceUrl}${path}&clientId=${clientId}`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({
        error: { code: 'UPSTREAM_UNAVAILABLE', message: "The service's database is not answering; try again in a few seconds." },
      });
      expect((await fetch(`${p.serviceUrl}/health`)).status).toBe(200);
    }
  } finally {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await admin.end();
  }
  await sameOnAll([path], 'the listing on every instance again');
  await waitFor(
    'an indexer leader again',
    async () => {
      for (const p of fleet) if ((await serviceHealth(p)).roles.includes('indexer-leader')) return true;
      return undefined;
    },
    { timeoutMs: 30_000 },
  );
});
