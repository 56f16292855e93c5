// bench/indexer: indexer catch-up in transfers/s on anvil, against the raw eth_getLogs read rate of the same blocks.
//
// A bench contract emits thousands of ERC-721 Transfer events per transaction (no storage, so blocks stay cheap):
// first MINTS new tokens spread over many owners (each new token costs the indexer a tokenURI eth_call), then
// TRANSFERS of those tokens between owners. A fresh index catches up over the mints, then resumes over the transfers.
// Then the other shapes of a mint: EIP-2309 ConsecutiveTransfer ranges of 5,000 tokens per event, and ERC-1155
// TransferBatch logs of 100 ids each (a uri(id) read per new id), each caught up over by the same index.
// TXDESK_BENCH_TRANSFERS sets the number of each (default 100,000); TXDESK_BENCH_READER_THREAD=0 reads ranges on the
// writer's thread instead of the reader thread. Each line says how long the writer sat idle waiting for reads, and the
// CPU seconds the indexer process and anvil used: on a 2-core box the two share the cores the bare read has to itself.
// The bare read runs three times and the fastest is the baseline of every ratio. Two ceilings follow the ratios: the
// write path alone, and that CPU spread perfectly over the cores (no overlap of reads and writes can beat either). Then
// the mints and transfers again into a throwaway PostgreSQL (the fleet's store), with the ratio to SQLite;
// `--sqlite-only` skips that. `--networks 2` runs two-networks.js instead: one service catching up over one network
// against one service catching up over two at once; `--networks 2 --isolation` runs isolation.js: network A's listing
// and tracker p99 and the event loop's longest block while network B catches up, against A quiet.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractFactory, JsonRpcProvider, Wallet } from 'ethers';
import { startAnvil } from '../../dist/devchain/devchain.js';
import { openDatabase } from '../../dist/lib/sqlite.js';
import { openPgPool } from '../../dist/service/db/pg-pool.js';
import { startIndexer } from '../../dist/service/indexer/indexer.js';
import { postgresIndexStore } from '../../dist/service/backend.js';
import { JOIN_MOVES } from '../../dist/service/indexer/indexer-join.js';
import { compileSolidity } from '../../scripts/solc-compile.js';
import { startThrowawayPostgres } from '../lib/throwaway-postgres.js';
import { measureUriReads } from './uri-read.js';
import { measureWritePath } from './write-path.js';
import { BATCH_PER_LOG, CONSECUTIVE_PER_EVENT, KEY, OWNERS, PER_TX, SOURCE, emit as emitHistory } from './history.js';

// `--networks 2 --isolation`: whether one network's catch-up stalls another on the same service (isolation.js).
if (process.argv.includes('--isolation')) {
  await import('./isolation.js');
  process.exit(0);
}
// `--networks 2`: only the catch-up of one network alone against two networks served at once (two-networks.js).
if (process.argv.includes('--networks')) {
  await import('./two-networks.js');
  process.exit(0);
}

const N = Number(process.env.TXDESK_BENCH_TRANSFERS ?? 100_000);
const READER_THREAD = process.env.TXDESK_BENCH_READER_THREAD !== '0';
/** `--sqlite-only` skips the same catch-ups into a throwaway PostgreSQL. */
const SQLITE_ONLY = process.argv.includes('--sqlite-only');
const split = (t, s) =>
  `(reading logs ${(t.logsMs / 1000).toFixed(1)} s and metadata ${(t.metadataMs / 1000).toFixed(1)} s, overlapped with ` +
  `index writes ${(t.writeMs / 1000).toFixed(1)} s; idle waiting ${(t.waitMs / 1000).toFixed(1)} s ` +
  `= ${Math.round(t.waitMs / 10 / s)}%)`;
/** CPU seconds (user + system) of a process so far, from /proc (0 where there is none). */
function cpuOf(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}
/** CPU seconds used meanwhile by this process (writer, reader thread) and by anvil, and a line saying so. */
function cpuMeter() {
  const self = process.cpuUsage();
  const node = cpuOf(anvil.pid);
  return () => {
    const d = process.cpuUsage(self);
    const used = { indexer: (d.user + d.system) / 1e6, anvil: cpuOf(anvil.pid) - node };
    return { ...used, text: `cpu: indexer ${used.indexer.toFixed(1)} s, anvil ${used.anvil.toFixed(1)} s` };
  };
}
const silent = { info() {}, warn() {}, error() {}, child: () => silent };
const anvil = await startAnvil({ gasLimit: 40_000_000, blockTimeSeconds: 1 });
const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-indexer-'));
// No request cache: with few transfers the second emit() would otherwise read the first one's nonce again (250 ms cache).
const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, polling: false, cacheTimeout: -1 });
const rpc = (method, params = []) => provider.send(method, params);

const emit = (contract, method, argsFor) => emitHistory(provider, contract, method, argsFor, N);

/** `index` is `{ db }` (SQLite) or `{ store }` (PostgreSQL). */
async function catchUp(index, label, upTo) {
  const head = Number(await rpc('eth_blockNumber'));
  const cpu = cpuMeter();
  const t = performance.now();
  const indexer = startIndexer({
    ...index,
    nodeUrl: anvil.url,
    confirmations: upTo === undefined ? 0 : head - upTo,
    log: silent,
    pollMs: 200,
    readerThread: READER_THREAD,
  });
  await indexer.caughtUp();
  const s = (performance.now() - t) / 1000;
  const used = cpu();
  const { transfers: n, timing } = indexer.stats();
  await indexer.stop();
  console.log(
    `${label.padEnd(44)} ${n} transfers in ${s.toFixed(2)} s: ${Math.round(n / s)} transfers/s ${split(timing, s)}; ${used.text}`,
  );
  return { rate: n / s, cpuBound: cpuBoundRate(n, used) };
}

/**
 * The rate no overlap of reads and writes can beat with the CPU this catch-up used: the indexer's and anvil's CPU
 * seconds spread perfectly over the box's cores. Reaching a higher rate takes less CPU per token, not more overlap.
 */
function cpuBoundRate(n, used) {
  return n / ((used.indexer + used.anvil) / cpus().length);
}

async function rawRead(from, label, upTo) {
  const head = upTo ?? Number(await rpc('eth_blockNumber'));
  const cpu = cpuMeter();
  const t = performance.now();
  let n = 0;
  for (let b = from; b <= head; b += 1) {
    // Plain fetch + JSON.parse: the cheapest way to read the same logs, so the ratio shows the indexer's own cost.
    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getLogs',
        params: [
          {
            fromBlock: '0x' + b.toString(16),
            toBlock: '0x' + b.toString(16),
            topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'],
          },
        ],
      }),
    });
    const logs = JSON.parse(await res.text()).result;
    n += logs.filter((l) => l.topics.length === 4).length;
  }
  const s = (performance.now() - t) / 1000;
  console.log(`${label.padEnd(44)} ${n} logs in ${s.toFixed(2)} s: ${Math.round(n / s)} logs/s; ${cpu().text}`);
  return n / s;
}

try {
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )} on ${cpus().length} cores; ${N} mints then ${N} transfers, ${PER_TX} per transaction; reader thread ${READER_THREAD ? 'on' : 'off'}`,
  );
  await rpc('evm_setIntervalMining', [0]);
  const arts = compileSolidity({ 'B.sol': SOURCE }, { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris' }).contracts['B.sol'];
  const wallet = new Wallet(KEY, provider);
  const deploy = async (art) => {
    const x = await new ContractFactory(art.abi, art.bytecode, wallet).deploy();
    await rpc('anvil_mine', ['0x1']);
    await x.waitForDeployment();
    return x;
  };
  const c = await deploy(arts.BenchNft);
  const drop = await deploy(arts.BenchDrop);
  const multi = await deploy(arts.BenchMulti);
  const startBlock = Number(await rpc('eth_blockNumber'));
  await emit(c, 'mintRange', (start, n) => [start, n, OWNERS]);
  const midBlock = Number(await rpc('eth_blockNumber'));
  await emit(c, 'moveRange', (start, n) => [start, n, OWNERS, 7]);
  const moveBlock = Number(await rpc('eth_blockNumber'));
  await emit(drop, 'mintRanges', (start, n) => [start, n, CONSECUTIVE_PER_EVENT, OWNERS]);
  const dropBlock = Number(await rpc('eth_blockNumber'));
  await emit(multi, 'batchMint', (start, n) => [start, n, BATCH_PER_LOG, OWNERS]);

  const db = openDatabase(join(dir, 'index.db'));
  const { rate: mintRate, cpuBound: mintBound } = await catchUp({ db }, 'catch-up over mints (tokenURI per token)', midBlock);
  const { rate: moveRate, cpuBound: moveBound } = await catchUp({ db }, 'resume over transfers of existing tokens', moveBlock);
  const { rate: dropRate } = await catchUp({ db }, `ConsecutiveTransfer mints (${CONSECUTIVE_PER_EVENT} per event)`, dropBlock);
  const { rate: batchRate } = await catchUp({ db }, `ERC-1155 TransferBatch mints (${BATCH_PER_LOG} ids per log)`);
  let pgRates = null;
  if (!SQLITE_ONLY) {
    // The same catch-ups into the fleet's store (ranges read on the indexer's thread: the reader thread needs SQLite).
    const pg = await startThrowawayPostgres('indexer');
    const pool = openPgPool(pg.url);
    try {
      const store = { store: await postgresIndexStore(pool) };
      pgRates = {
        mints: (await catchUp(store, 'PostgreSQL: catch-up over mints', midBlock)).rate,
        moves: (await catchUp(store, 'PostgreSQL: resume over transfers', moveBlock)).rate,
      };
    } finally {
      await pool.end();
      await pg.stop();
    }
  }
  // The bare read three times, the fastest kept: on a shared box one slow read made every ratio look better than it is.
  const reads = [];
  for (let i = 1; i <= 3; i++) reads.push(await rawRead(startBlock, `baseline: eth_getLogs read alone, same blocks (${i}/3)`, moveBlock));
  const raw = Math.max(...reads);
  const uri = await measureUriReads(anvil.url, (await c.getAddress()).toLowerCase(), N, midBlock);
  console.log(
    `${'baseline: tokenURI eth_calls alone'.padEnd(44)} plain batches ${Math.round(uri.plain)}/s, packed ` +
      `(indexer) ${Math.round(uri.packed)}/s: ratio ${(uri.packed / uri.plain).toFixed(2)}`,
  );
  // Ranges of the size the indexer writes at once while catching up (parts read ahead are joined up to JOIN_MOVES).
  const write = await measureWritePath(N, OWNERS, JOIN_MOVES);
  console.log(
    `${'baseline: index writes alone, no node'.padEnd(44)} mints ${Math.round(write.mints)}/s, transfers ${Math.round(write.moves)}/s`,
  );
  console.log(`ratio indexer/raw log read: mints ${(mintRate / raw).toFixed(2)}, transfers ${(moveRate / raw).toFixed(2)} (target >= 0.5)`);
  // The writer alone (no node, nothing else on the box's cores) against the bare read: no overlap can beat this.
  console.log(
    `ceiling, index writes alone/raw log read: mints ${(write.mints / raw).toFixed(2)}, transfers ${(write.moves / raw).toFixed(2)}`,
  );
  console.log(
    `ceiling, the catch-up's CPU (indexer + anvil) spread over ${cpus().length} cores/raw log read: ` +
      `mints ${(mintBound / raw).toFixed(2)}, transfers ${(moveBound / raw).toFixed(2)}`,
  );
  console.log(
    `ratio to plain transfers: ConsecutiveTransfer tokens ${(dropRate / moveRate).toFixed(2)}, TransferBatch ids ${(batchRate / moveRate).toFixed(2)}`,
  );
  console.log(
    `ratio indexer/writes alone: mints ${(mintRate / write.mints).toFixed(2)}, transfers ${(moveRate / write.moves).toFixed(2)} (target >= 20,000 transfers/s)`,
  );
  if (pgRates) {
    console.log(
      `ratio PostgreSQL/SQLite catch-up: mints ${(pgRates.mints / mintRate).toFixed(2)}, transfers ${(pgRates.moves / moveRate).toFixed(2)}`,
    );
  }
  db.close();
} finally {
  provider.destroy();
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
}
