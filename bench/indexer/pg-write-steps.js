// bench/indexer/pg-write-steps.js: how long the fleet's index write holds the main thread at once (issue 45, item 1).
// The PostgreSQL index store writes a 10,000-move range of mints, then one of transfers of those tokens, then one of
// 10,000 ERC-1155 ids minted, reads the 10,000 tokens an ERC-4906 update names and stores their uris, and rolls the
// last two ranges back, into a throwaway PostgreSQL, with the listing writer's steps (working out and loading the rows a range touches, building the
// transaction's parameters) in one piece each ("whole", as before) and in pieces that yield ("pieces"), alternating in
// one run, each into a database of its own. A 1 ms timer ticks meanwhile: the main thread's CPU between two ticks (Linux:
// /proc/self/task/<pid>/schedstat, so neither GC helper threads nor the box's other processes count) bounds its longest
// synchronous run.
// The longest garbage collection pause is shown beside it (perf_hooks 'gc' entries, wall time: on a loaded box a
// scavenge mostly waits for its helper threads). The two databases' rows are compared at the end of each round.
// Usage: node bench/indexer/pg-write-steps.js [rounds] [piece] (after npx tsc -p tsconfig.build.json); piece: rows a
// piece, the writer's WRITE_PIECE unless given.
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';
import { openPgPool } from '../../dist/service/db/pg-pool.js';
import { openPostgresIndexStore } from '../../dist/service/indexer/postgres/indexer-store-postgres.js';
import { openPostgresListingWriter } from '../../dist/service/listing/postgres/listing-writer-postgres.js';
import { startThrowawayPostgres } from '../lib/throwaway-postgres.js';

const N = 10_000;
const OWNERS = 5_000;
const PER_BLOCK = 100;
const ROUNDS = Number(process.argv[2] ?? 3);
const ZERO = '0x' + '0'.repeat(40);
const CONTRACT = '0x' + 'c'.repeat(40);
const CONTRACT_1155 = '0x' + 'd'.repeat(40);
const owner = (i) => '0x' + (0x100000 + (i % OWNERS)).toString(16).padStart(40, '0');
/** The writes measured, in order: three ranges, an ERC-4906 update's read and its uris' write, a rollback. */
const KINDS = ['mints', 'transfers', 'erc1155', 'erc4906', 'uris', 'rollback'];
const VARIANTS = { whole: Number.POSITIVE_INFINITY, pieces: process.argv[3] ? Number(process.argv[3]) : undefined };

/**
 * One range of N moves from block `first`, PER_BLOCK a block; `move(i)` gives token i's from and to. `contract`
 * ERC1155: each move gives 5 of id i (an ids pass of N ids, N holdings).
 */
function range(first, move, newContracts, contract = CONTRACT) {
  const logs = [];
  const amount = contract === CONTRACT ? null : 5n;
  for (let i = 0; i < N; i++) {
    const block = first + Math.floor(i / PER_BLOCK);
    logs.push({ block, logIndex: i % PER_BLOCK, sub: 0, blockHash: '0x', contract, id: BigInt(i), amount, ...move(i) });
  }
  const to = first + N / PER_BLOCK - 1;
  const hash = (n) => '0x' + n.toString(16).padStart(64, '0');
  return {
    from: first,
    to,
    headers: [{ number: to, hash: hash(to), parentHash: hash(to - 1) }],
    logs,
    newContracts,
    uris: new Map([[contract, new Map(logs.map((l) => [l.id, `ipfs://bench/${l.id}`]))]]),
    supplies: new Map(),
  };
}

/** The main thread's CPU in ms (elsewhere than Linux, the process's). */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const mainCpu = existsSync(SCHEDSTAT)
  ? () => Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6
  : () => {
      const c = process.cpuUsage();
      return (c.user + c.system) / 1000;
    };

/** GC pauses as they end: [start, duration] in performance.now() ms. */
const gcs = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push([e.startTime, e.duration]);
}).observe({ entryTypes: ['gc'] });

/**
 * Runs `f` while a 1 ms timer ticks. Between two ticks: the longest main-thread CPU (`cpuGap`), the same among gaps
 * with no GC pause in them (`codeGap`), and the longest wall time (`wallGap`); the longest GC pause (`gcMax`) and the
 * main thread's CPU in all (`cpu`).
 */
async function measured(f) {
  const ticks = [];
  let on = true;
  const tick = () => {
    ticks.push([performance.now(), mainCpu(), process.hrtime.bigint()]);
    if (on) setTimeout(tick, 1);
  };
  gcs.length = 0;
  tick();
  const c0 = mainCpu();
  await f();
  const cpu = mainCpu() - c0;
  on = false;
  tick();
  // GC entries are delivered after the fact: read them once the work is done.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const r = { cpuGap: 0, codeGap: 0, wallGap: 0, gcMax: Math.max(0, ...gcs.map(([, d]) => d)), cpu };
  for (let i = 1; i < ticks.length; i++) {
    const [w0, c0] = ticks[i - 1];
    const [w1, c1] = ticks[i];
    if (c1 - c0 > r.cpuGap) r.window = [ticks[i - 1][2] / 1000n, ticks[i][2] / 1000n];
    r.cpuGap = Math.max(r.cpuGap, c1 - c0);
    if (!gcs.some(([start, d]) => start < w1 && start + d > w0)) r.codeGap = Math.max(r.codeGap, c1 - c0);
    r.wallGap = Math.max(r.wallGap, w1 - w0);
  }
  return r;
}

/** A digest of every index table, to show both ways wrote the same rows. */
async function digest(pool) {
  const tables = [
    'idx_accounts',
    'idx_contracts',
    'idx_pairs',
    'idx_tokens',
    'idx_ids',
    'idx_owner_contract',
    'idx_transfers',
    'idx_blocks',
  ];
  const out = [];
  for (const t of tables) {
    const r = await pool.query(`SELECT count(*) AS n, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${t} x`);
    out.push(`${t}:${r.rows[0].n}:${r.rows[0].h}`);
  }
  return out.join(' ');
}

async function writeBoth(server, name, piece) {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const pool = openPgPool(server.url.replace(/\/[^/]+$/, `/${name}`));
  try {
    const store = await openPostgresIndexStore(pool, openPostgresListingWriter(pool, piece));
    const meta = (standard) => ({ name: 'Bench', symbol: 'BEN', totalSupply: null, hasUri: true, standard });
    const mints = range(1, (i) => ({ from: ZERO, to: owner(i) }), new Map([[CONTRACT, meta('ERC721')]]));
    const moves = range(1_001, (i) => ({ from: owner(i), to: owner(i + 7) }), new Map());
    const ids = range(2_001, (i) => ({ from: ZERO, to: owner(i) }), new Map([[CONTRACT_1155, meta('ERC1155')]]), CONTRACT_1155);
    const got = {};
    got.mints = await measured(() => store.apply(mints, null));
    got.transfers = await measured(() => store.apply(moves, mints.to));
    got.erc1155 = await measured(() => store.apply(ids, moves.to));
    // An ERC-4906 update naming every token, then the uris read for them stored.
    let targets = [];
    got.erc4906 = await measured(async () => {
      targets = await store.metadataTargets([{ contract: CONTRACT, fromId: 0n, toId: BigInt(N - 1) }]);
    });
    if (targets.length !== N) throw new Error(`the ERC-4906 update named ${targets.length} tokens, not ${N}`);
    got.uris = await measured(() =>
      store.writeUris(
        targets,
        targets.map((t) => `ipfs://again/${t.id}`),
      ),
    );
    // Undoes the transfers and the ERC-1155 range: N tokens back to their owners, N ids replayed.
    got.rollback = await measured(() => store.rollback(mints.to, ids.to));
    return { ...got, digest: await digest(pool) };
  } finally {
    await pool.end();
  }
}

const f1 = (x) => x.toFixed(1);
const server = await startThrowawayPostgres('bench');
try {
  // Warm-up: the first write of a process compiles the code paths (not counted).
  await writeBoth(server, 'warm', undefined);
  console.log(
    `${N} moves per range, ${OWNERS} owners, ${PER_BLOCK} moves a block, pieces of ${VARIANTS.pieces ?? 'WRITE_PIECE'}; longest run = ` +
      'main-thread CPU between two 1 ms ticks [with no GC pause in the gap] (wall; longest GC pause)',
  );
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? ['whole', 'pieces'] : ['pieces', 'whole'];
    const got = {};
    for (const v of order) got[v] = await writeBoth(server, `r${round}_${v}`, VARIANTS[v]);
    const same = got.whole.digest === got.pieces.digest ? 'same rows' : 'ROWS DIFFER';
    console.log(`round ${round} (load ${loadavg().map(f1).join(' ')}; ${order.join(' then ')}; ${same})`);
    for (const kind of KINDS) {
      const w = got.whole[kind];
      const p = got.pieces[kind];
      const run = (x) => `${f1(x.cpuGap)} ms [${f1(x.codeGap)}] (${f1(x.wallGap)}; GC ${f1(x.gcMax)})`;
      // With --cpu-prof: the longest run's window on the profile's clock (µs), to find what ran in it.
      if (process.env.TXDESK_BENCH_WINDOWS) console.log(`  ${kind} pieces window ${p.window.join('-')} (µs, monotonic)`);
      console.log(
        `  ${kind.padEnd(9)} longest run whole ${run(w)}; pieces ${run(p)}: ${(p.cpuGap / w.cpuGap).toFixed(2)}x; ` +
          `main-thread CPU whole ${Math.round(w.cpu)} ms, pieces ${Math.round(p.cpu)} ms: ${(p.cpu / w.cpu).toFixed(2)}x`,
      );
    }
    if (same !== 'same rows') process.exitCode = 1;
  }
} finally {
  await server.stop();
}
