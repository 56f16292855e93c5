// bench/indexer --networks 2: what a second network costs the first when one data service indexes both.
//
// Two anvils (chain ids 31337 and 31338) get the same history as the one-network bench (history.js): N mints spread
// over 5,000 owners (a tokenURI read per new token), then N transfers of those tokens, 10,000 events per transaction.
// Then, in alternating rounds, a fresh in-process service (startService, SQLite in a fresh data dir) catches up over
// network A alone, and another over A and B at once (one indexer each, B in its own SQLite file). Printed per round:
// the time until every network served had caught up, A's own time within two, and the CPU seconds of the service's
// process (process.cpuUsage: writer, reader threads, watchers) and of each anvil, and how busy the service's main
// thread was (event loop utilisation and delay: every network's index writes, HTTP and tracker run on it). The ratios
// are taken round by round and their median printed. A warm-up catch-up of A alone runs first and counts nowhere.
// Last, a running service that adds B while A is indexed: A's listing latency while B catches up, against after.
// TXDESK_BENCH_TRANSFERS sets N (default 100,000); `--rounds R` the number of alternating rounds (default 2).
// Usage: node bench/indexer/index.js --networks 2 [--rounds 2]   (or node bench/indexer/two-networks.js)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startAnvil } from '../../dist/devchain/devchain.js';
import { openDatabase } from '../../dist/lib/sqlite.js';
import { startService } from '../../dist/service/index.js';
import { networkFileName } from '../../dist/service/backend.js';
import { compileSolidity } from '../../scripts/solc-compile.js';
import { PER_TX, SOURCE, chainWithHistory } from './history.js';

const args = process.argv.slice(2);
const argOf = (name, fallback) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback);
if (argOf('networks', 2) !== 2) {
  console.error('bench/indexer: --networks takes 2 (network A alone against A and B at once).');
  process.exit(1);
}
const N = Number(process.env.TXDESK_BENCH_TRANSFERS ?? 100_000);
const ROUNDS = argOf('rounds', 2);
const TRANSFERS = 2 * N; // per network: the mints, then the transfers
const silent = { info() {}, warn() {}, error() {}, child: () => silent };
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
};
const list = (xs) => xs.map((x) => x.toFixed(2)).join(', ');

/** CPU seconds (user + system) of a process so far, from /proc (0 where there is none). */
function cpuOf(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** One fresh service over `chains` until every network has caught up; times from the call to startService. */
async function catchUp(chains) {
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-two-networks-'));
  try {
    const anvilBefore = chains.map((c) => cpuOf(c.anvil.pid));
    const self = process.cpuUsage();
    const loop = performance.eventLoopUtilization();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = performance.now();
    const service = await startService({ networks: chains.map((c) => c.config), dataDir, port: 0, rateLimitPerMinute: 0, log: silent });
    const startedMs = performance.now() - t0;
    const ms = await Promise.all(service.networks.map((n) => n.caughtUp().then(() => performance.now() - t0)));
    const used = process.cpuUsage(self);
    const mainThread = performance.eventLoopUtilization(loop).utilization;
    delay.disable();
    // How long anything else on the main thread (a listing request, a tracker frame) could wait behind the catch-up.
    const stallMs = { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
    const anvilS = chains.map((c, i) => cpuOf(c.anvil.pid) - anvilBefore[i]);
    const indexed = service.networks.map((n) => n.report().indexedBlock);
    await service.stop();
    chains.forEach((c, i) => {
      if (indexed[i] !== c.head) throw new Error(`${c.config.network}: indexed up to block ${indexed[i]}, the head is ${c.head}`);
      const db = openDatabase(join(dataDir, i === 0 ? 'service.sqlite' : networkFileName(`${c.config.platform}/${c.config.network}`)));
      const tokens = db.prepare('SELECT count(*) FROM idx_tokens').pluck().get();
      db.close();
      if (tokens !== N) throw new Error(`${c.config.network}: ${tokens} tokens indexed, expected ${N}`);
    });
    const blocks = chains.reduce((n, c) => n + c.head + 1, 0);
    return {
      ms,
      allMs: Math.max(...ms),
      startedMs,
      mainThread,
      stallMs,
      serviceS: (used.user + used.system) / 1e6,
      anvilS,
      blocks,
      transfers: TRANSFERS * chains.length,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A running service adds network B while A is indexed (A's index from a service that served only A, B's empty): A's
 * listing asked one request at a time, every 20 ms, while B catches up, against the same requests once B has caught
 * up. The client runs in the service's process, as the service's own work does: the answer waits for the main thread.
 */
async function listingWhileOtherCatchesUp(a, b) {
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-two-networks-'));
  const options = { dataDir, port: 0, rateLimitPerMinute: 0, log: silent };
  try {
    const first = await startService({ ...options, networks: [a.config] });
    await first.caughtUp();
    await first.stop();
    const service = await startService({ ...options, networks: [a.config, b.config] });
    try {
      const { clientId } = await service.accounts.ensureDevAccount();
      const owner = '0x' + (0x100000).toString(16).padStart(40, '0');
      const url = `${service.url}/nft/v1/ethereum/${a.config.network}/accounts/${owner}/tokens?clientId=${clientId}&size=15`;
      const probe = async (more) => {
        const ms = [];
        while (more(ms)) {
          const t = performance.now();
          const res = await fetch(url);
          const body = await res.json();
          if (!res.ok || body.data.length === 0)
            throw new Error(`listing of A answered ${res.status} with ${body.data?.length ?? 0} tokens`);
          ms.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 20));
        }
        return ms.sort((x, y) => x - y);
      };
      let caughtUp = false;
      const t0 = performance.now();
      const bDone = service.networks[1].caughtUp().then(() => (caughtUp = true));
      const during = await probe(() => !caughtUp);
      await bDone;
      const bMs = performance.now() - t0;
      const after = await probe((ms) => ms.length < Math.max(50, during.length));
      return { during, after, bMs };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(label, r) {
  const each = r.ms.length > 1 ? ` (A ${(r.ms[0] / 1000).toFixed(2)} s, B ${(r.ms[1] / 1000).toFixed(2)} s)` : '';
  const anvils = r.anvilS.map((s) => s.toFixed(1)).join(' + ');
  console.log(
    `${label.padEnd(32)} ${r.blocks} blocks, ${r.transfers} transfers caught up in ${(r.allMs / 1000).toFixed(2)} s${each} ` +
      `(service started in ${r.startedMs.toFixed(0)} ms); ` +
      `cpu: service ${r.serviceS.toFixed(1)} s (${(r.serviceS / (r.allMs / 1000)).toFixed(2)} cores; main thread ` +
      `busy ${Math.round(r.mainThread * 100)}%, event loop delay p99 ${r.stallMs.p99.toFixed(0)} ms, ` +
      `max ${r.stallMs.max.toFixed(0)} ms) = ${((r.serviceS * 1000) / r.blocks).toFixed(0)} ms per ` +
      `block, ${((r.serviceS * 1e6) / r.transfers).toFixed(0)} ms per 1,000 transfers; anvil ${anvils} s`,
  );
}

const anvils = [];
try {
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cores (the service, both anvils and this bench share them); ` +
      `per network ${N} mints then ${N} transfers, ${PER_TX} per transaction; ${ROUNDS} alternating rounds`,
  );
  const arts = compileSolidity({ 'B.sol': SOURCE }, { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris' }).contracts['B.sol'];
  for (const chainId of [31337, 31338]) anvils.push(await startAnvil({ gasLimit: 40_000_000, blockTimeSeconds: 1, chainId }));
  const [a, b] = await Promise.all([
    chainWithHistory(anvils[0], 31337, 'local', arts, N),
    chainWithHistory(anvils[1], 31338, 'local-2', arts, N),
  ]);
  report('warm-up: A alone (not counted)', await catchUp([a]));
  const ratios = { together: [], aWithin: [], cpuPerBlock: [], cpuPerBlockWithAnvils: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    // Odd rounds start with A alone, even rounds with both: drift over the run hits both alike.
    const order = round % 2 === 1 ? ['alone', 'together'] : ['together', 'alone'];
    const r = {};
    for (const what of order) {
      r[what] = await catchUp(what === 'alone' ? [a] : [a, b]);
      report(`round ${round}: ${what === 'alone' ? 'A alone' : 'A and B at once'}`, r[what]);
    }
    const perBlock = (x, withAnvils) => (x.serviceS + (withAnvils ? x.anvilS.reduce((s, y) => s + y, 0) : 0)) / x.blocks;
    ratios.together.push(r.together.allMs / r.alone.allMs);
    ratios.aWithin.push(r.together.ms[0] / r.alone.ms[0]);
    ratios.cpuPerBlock.push(perBlock(r.together, false) / perBlock(r.alone, false));
    ratios.cpuPerBlockWithAnvils.push(perBlock(r.together, true) / perBlock(r.alone, true));
  }
  console.log(
    `ratio (A and B at once)/(A alone), until every network caught up: median ${median(ratios.together).toFixed(2)} ` +
      `(rounds ${list(ratios.together)}) (expected <= ~2.0: twice the work on the same 2 shared cores, each network its ` +
      `share)`,
  );
  console.log(
    `ratio A within two/A alone, A's own catch-up: median ${median(ratios.aWithin).toFixed(2)} ` +
      `(rounds ${list(ratios.aWithin)}) (expected <= ~2.0, and near the ratio above: A waits for nothing of B's but the ` +
      `cores)`,
  );
  const { during, after, bMs } = await listingWhileOtherCatchesUp(a, b);
  const at = (xs, p) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];
  const stats = (xs) =>
    `p50 ${at(xs, 0.5).toFixed(1)} ms, p99 ${at(xs, 0.99).toFixed(1)} ms, max ${xs.at(-1).toFixed(1)} ms over ${xs.length} requests`;
  console.log(
    `listing of A while a running service catches up over B (${(bMs / 1000).toFixed(2)} s): ${stats(during)}; after B caught up: ${stats(after)}`,
  );
  console.log(
    `ratio listing of A while B catches up/after: p99 ${(at(during, 0.99) / at(after, 0.99)).toFixed(1)}, ` +
      `p50 ${(at(during, 0.5) / at(after, 0.5)).toFixed(1)} (A's requests wait for B's index writes on the one main thread)`,
  );
  console.log(
    `ratio service cpu per block, two networks/one: median ${median(ratios.cpuPerBlock).toFixed(2)} ` +
      `(rounds ${list(ratios.cpuPerBlock)}); with the anvils' cpu: ${median(ratios.cpuPerBlockWithAnvils).toFixed(2)} ` +
      `(expected ~1.0: a second network costs its own blocks and nothing more)`,
  );
} finally {
  for (const x of anvils) await x.stop();
}
