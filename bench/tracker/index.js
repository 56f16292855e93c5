// Tracker benchmark: 10,000 tracked transactions mined 1,000 per block on anvil; delivery latency from the block's
// arrival to the SDK's `message` (p50/p99) and acked messages/s, against a baseline that polls
// eth_getTransactionReceipt per transaction per block, measured in the same run; then the same tracker phase on a
// service whose store is PostgreSQL (a throwaway one), and each store's receipt p99 as a multiple of the node's own
// time to serve that receipt's block, measured right after the tracker delivered the block (the box's speed drifts over
// a run; the figure measured once after the phase is printed beside it). Beside it, the figure's floor on the same box:
// a client that only fetches each block's receipts the same way, scored the same (fetchOnlyPhase). Needs
// `npx tsc -p tsconfig.build.json`.
// Before the measured blocks, --warmup blocks (default 2) of the same shape run through the same service and are reported
// apart: the first blocks after start measure the JIT compiling the receipt path and the node's cold caches, not the
// steady state a running service is in.
// Usage: node bench/tracker/index.js [--txs 10000] [--per-block 1000] [--warmup 2] [--json] [--trace] [--sqlite-only]
// `--networks 2 [--rounds 2]` runs only twoNetworks() below: the same load on network A of a two-network service, alone
// and while network B carries it too.
// --trace prints each block's mining time and its last receipt's latency; with TXDESK_TRACKER_TRACE=1 TXDESK_LOG=info
// the service prints, on the same clock, when it saw the head and when each receipt chunk arrived and was delivered.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startThrowawayPostgres } from '../lib/throwaway-postgres.js';
import { broadcast, cpuMs, numberArg, pct, rpc, rpcBatch, signTransfers, sleep } from '../lib/chain-load.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
if (!existsSync(join(root, 'dist/sdk/index.js')) || !existsSync(join(root, 'dist/cli/index.js'))) {
  process.stderr.write('bench/tracker needs the build: run `npx tsc -p tsconfig.build.json` (or `npm run build`) first.\n');
  process.exit(1);
}
const { startAnvil } = await import(join(root, 'dist/devchain/devchain.js'));
const { deriveDevAccounts } = await import(join(root, 'dist/devchain/dev-accounts.js'));
const { TransactionTracker } = await import(join(root, 'dist/sdk/index.js'));

const args = process.argv.slice(2);
const arg = (name, fallback) => numberArg(args, name, fallback);
const TOTAL = arg('txs', 10_000);
const PER_BLOCK = arg('per-block', 1_000);
const SENDERS = 10;
const BLOCKS = Math.ceil(TOTAL / PER_BLOCK);
const WARMUP = arg('warmup', 2);
const log = (m) => process.stderr.write(`[bench:tracker] ${m}\n`);

/** With `secondNodeUrl`, the service serves ethereum/local (the default) at `nodeUrl` and ethereum/local-2 there. */
async function startServiceProcess(nodeUrl, dataDir, databaseUrl, secondNodeUrl) {
  // TXDESK_BENCH_SERVICE_NODE_ARGS="--cpu-prof" profiles the service process.
  const nodeArgs = (process.env.TXDESK_BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const store = databaseUrl ? ['--database', databaseUrl] : [];
  const nodes = secondNodeUrl
    ? ['--network', `ethereum/local=${nodeUrl}`, '--network', `ethereum/local-2=${secondNodeUrl}`]
    : ['--node', nodeUrl];
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      join(root, 'bin/txdesk.js'),
      'service',
      ...nodes,
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--open-signup',
      '--json',
      ...store,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TXDESK_LOG: process.env.TXDESK_LOG ?? 'silent' },
    },
  );
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`txdesk service exited (${code})`)));
  });
  return { child, serviceUrl: JSON.parse(line).serviceUrl };
}

async function mineOne(url) {
  await rpc(url, 'evm_mine', []);
  return performance.now();
}

/**
 * `txs` holds WARMUP blocks' worth of transactions first, mined (lowest nonces) before the measured ones. `on` names
 * the service's network the node belongs to and the subscription (each phase its own).
 */
async function trackerPhase(nodeUrl, serviceUrl, clientId, txs, pids, on = { network: 'local', subscriptionId: 'bench' }) {
  const tracker = new TransactionTracker(clientId, { platform: 'ethereum', network: on.network, url: serviceUrl });
  const sub = tracker.subscribe('transaction', { subscriptionId: on.subscriptionId, ackTimeout: 600_000 });
  sub.on('error', (e) => log(`sdk error: ${e.message}`));
  await sub.ready;
  const blockArrival = new Map();
  // A message can beat evm_mine's own answer to the bench; it is settled (as 0 ms) once the arrival is known.
  const early = new Map();
  const atArrival = (n, now, record) => {
    const t0 = blockArrival.get(n);
    if (t0 !== undefined) return record(Math.max(0, now - t0));
    early.set(n, [...(early.get(n) ?? []), () => record(Math.max(0, now - blockArrival.get(n)))]);
  };
  const receiptLatency = [];
  /** Measured blocks: the node's own time to serve the block's receipts, right after the tracker delivered them. */
  const nodeTimeByBlock = new Map();
  const serviceCpuDuringNodeTime = [];
  // Blocks below this are warm-up blocks: their latencies are kept apart (set once the first block is about to be mined).
  let measuredFrom = Infinity;
  const warmupLast = new Map();
  const confirmationLatency = [];
  const perBlockLatency = new Map();
  let acked = 0;
  /** The block loop waits for `target` acks. */
  let ackWaiter = null;
  let received = 0;
  let firstMessageAt = null;
  let lastAckAt = 0;
  const cpuAt = () => {
    const own = process.cpuUsage();
    return { node: cpuMs(pids.node), service: cpuMs(pids.service), client: (own.user + own.system) / 1000 };
  };
  // CPU each process spent from just before a block is mined until its last receipt reached the SDK: who competed
  // for the two cores while the block's receipts were on their way.
  const cpuBeforeMining = new Map();
  const receiptsSeen = new Map();
  const receiptWindowCpu = [];
  sub.on('message', (m) => {
    const now = performance.now();
    received++;
    firstMessageAt ??= now;
    if (m.data.type === 'confirmation' && m.data.result.blockNumber >= measuredFrom) {
      // Due when the next block arrived (confirmation: 1).
      atArrival(m.data.result.blockNumber + 1, now, (ms) => confirmationLatency.push(ms));
    }
    if (m.data.type === 'receipt' && m.data.result.blockNumber < measuredFrom) {
      const n = m.data.result.blockNumber;
      atArrival(n, now, (ms) => warmupLast.set(n, Math.max(ms, warmupLast.get(n) ?? 0)));
    } else if (m.data.type === 'receipt') {
      const n = m.data.result.blockNumber;
      receiptsSeen.set(n, (receiptsSeen.get(n) ?? 0) + 1);
      if (receiptsSeen.get(n) === PER_BLOCK && cpuBeforeMining.has(n)) {
        const [a, z] = [cpuBeforeMining.get(n), cpuAt()];
        receiptWindowCpu.push({ node: z.node - a.node, service: z.service - a.service, client: z.client - a.client });
      }
      atArrival(n, now, (ms) => {
        receiptLatency.push(ms);
        const list = perBlockLatency.get(n) ?? [];
        list.push(ms);
        perBlockLatency.set(n, list);
      });
    }
    m.ack().then(() => {
      acked++;
      lastAckAt = performance.now();
      if (ackWaiter && acked >= ackWaiter.target) ackWaiter.resolve();
    });
  });
  log(`tracking ${txs.length} hashes`);
  await Promise.all(txs.map((t) => tracker.trackTransaction(t.hash, { timeout: 3_600_000, confirmation: 1 })));
  await sleep(1500);

  const bursts = [];
  const expectTotal = txs.length * 2;
  const rounds = Math.ceil(txs.length / PER_BLOCK);
  measuredFrom = Number.parseInt(await rpc(nodeUrl, 'eth_blockNumber', []), 16) + 1 + WARMUP;
  let cpuStart = cpuAt();
  for (let b = 0; b <= rounds; b++) {
    if (b === WARMUP) cpuStart = cpuAt();
    const before = acked;
    firstMessageAt = null;
    const head = Number.parseInt(await rpc(nodeUrl, 'eth_blockNumber', []), 16);
    cpuBeforeMining.set(head + 1, cpuAt());
    const t0 = await mineOne(nodeUrl);
    blockArrival.set(head + 1, t0);
    for (const settle of early.get(head + 1) ?? []) settle();
    early.delete(head + 1);
    // This block's receipts plus the previous block's confirmations.
    const expected = Math.min(expectTotal, before + (b < rounds ? PER_BLOCK : 0) + (b > 0 ? PER_BLOCK : 0));
    const deadline = Date.now() + 60_000;
    // Woken by the ack that completes the round (no polling: the bench must not compete for the cores it measures).
    if (acked < Math.min(expected, expectTotal)) {
      let timer;
      await Promise.race([
        new Promise((resolve) => (ackWaiter = { target: Math.min(expected, expectTotal), resolve })),
        new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
      ]);
      clearTimeout(timer);
      ackWaiter = null;
    }
    if (args.includes('--trace'))
      log(
        `block ${head + 1}: mined at ${Math.round(performance.timeOrigin + t0) % 100000}, last receipt ` +
          `+${Math.round(Math.max(...(perBlockLatency.get(head + 1) ?? [0])))} ms, ` +
          `p99 ${Math.round(pct(perBlockLatency.get(head + 1) ?? [], 99))}`,
      );
    if (b >= WARMUP)
      bursts.push({ messages: acked - before, ms: lastAckAt - t0, deliveryMs: firstMessageAt === null ? 0 : lastAckAt - firstMessageAt });
    if (b >= WARMUP && b < rounds) {
      // The node's own time for this block, measured now: the same node state and the same moment of the box as the
      // tracker's delivery (a virtual machine's speed drifts over a run). The service has nothing left to do for the
      // block (every ack is stored); its CPU meanwhile is reported, so a busy service would show.
      await sleep(100);
      const { transactions } = await rpc(nodeUrl, 'eth_getBlockByNumber', ['0x' + (head + 1).toString(16), false]);
      const serviceBefore = cpuMs(pids.service);
      nodeTimeByBlock.set(head + 1, await nodeTimeForBlock(nodeUrl, transactions));
      serviceCpuDuringNodeTime.push(cpuMs(pids.service) - serviceBefore);
    }
    await sleep(300);
  }
  const cpuEnd = cpuAt();
  const perBlockCpu = (k) => (cpuStart[k] === null || cpuEnd[k] === null ? NaN : (cpuEnd[k] - cpuStart[k]) / (rounds - WARMUP + 1));
  const blockP99 = [...perBlockLatency.values()].map((l) => pct(l, 99));
  // Each receipt's latency as a multiple of its own block's node time.
  const overOwnBlock = [...perBlockLatency].flatMap(([n, l]) => l.map((ms) => ms / nodeTimeByBlock.get(n)));
  const windowCpu = (k) => receiptWindowCpu.reduce((n, w) => n + w[k], 0) / receiptWindowCpu.length;
  await tracker.close();
  const msgs = bursts.reduce((n, b) => n + b.messages, 0);
  const ms = bursts.reduce((n, b) => n + b.ms, 0);
  const deliveryMs = bursts.reduce((n, b) => n + b.deliveryMs, 0);
  return {
    receipts: receiptLatency.length,
    messages: received,
    acked,
    p50: pct(receiptLatency, 50),
    p99: pct(receiptLatency, 99),
    worstBlockP99: Math.max(...blockP99),
    /** p99 of (receipt latency / the node's own time for that receipt's block, measured right after it). */
    p99OverOwnBlock: pct(overOwnBlock, 99),
    /** Each block's last receipt over that block's node time, in block order. */
    blockLastOverOwn: [...perBlockLatency].map(([n, l]) => Math.max(...l) / nodeTimeByBlock.get(n)),
    nodeTimeByBlock: [...nodeTimeByBlock.values()],
    serviceCpuDuringNodeTimeMs: serviceCpuDuringNodeTime.reduce((a, x) => a + x, 0) / serviceCpuDuringNodeTime.length,
    /** Each block's last receipt at the SDK (ms after the block), in block order: how much p99 moves between blocks. */
    blockLast: [...perBlockLatency.values()].map((l) => Math.max(...l)),
    /** The same for the warm-up blocks, which count nowhere else. */
    warmupBlockLast: [...warmupLast.values()],
    confirmationP50: pct(confirmationLatency, 50),
    confirmationP99: pct(confirmationLatency, 99),
    /** CPU ms per block round (receipts + the previous block's confirmations, and their acks), by process. */
    cpuPerBlockMs: { node: perBlockCpu('node'), service: perBlockCpu('service'), client: perBlockCpu('client') },
    /** CPU ms by process from just before mining until the block's last receipt reached the SDK (mean over blocks). */
    cpuReceiptWindowMs: { node: windowCpu('node'), service: windowCpu('service'), client: windowCpu('client') },
    /** Messages acked per second of delivery: from a burst's first message to its last ack. */
    ackedPerSecond: (msgs / deliveryMs) * 1000,
    /** The same counted from the block's arrival, so it includes fetching the receipts. */
    ackedPerSecondFromBlock: (msgs / ms) * 1000,
  };
}

/**
 * ms the node alone needs to serve these receipts the way the tracker asks (batches of 100, 4 at a time);
 * `onBatch(n)` is called as each batch of n receipts arrives.
 */
async function nodeTimeForBlock(nodeUrl, hashes, onBatch = () => {}) {
  const t0 = performance.now();
  const chunks = [];
  for (let j = 0; j < hashes.length; j += 100) chunks.push(hashes.slice(j, j + 100));
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++];
      await rpcBatch(
        nodeUrl,
        chunk.map((h) => ['eth_getTransactionReceipt', [h]]),
      );
      onBatch(chunk.length);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return performance.now() - t0;
}

/**
 * The floor of the headline figure, on the same chain and box: a client that only fetches each block's receipts the
 * tracker's way (the block's hashes, then the batches above) as soon as the block is mined, and is scored exactly as
 * the tracker is (each receipt's latency over its block's node time, measured right after). It stores and delivers
 * nothing, so what it scores above 1.0x is the block lookup and the measure's own noise: two timings of the same work
 * on a virtual machine's two shared cores. `txs` holds WARMUP blocks' worth first (not scored).
 */
async function fetchOnlyPhase(nodeUrl, txs) {
  const overOwnBlock = [];
  const blockLastOverOwn = [];
  const blocks = Math.ceil(txs.length / PER_BLOCK);
  for (let b = 0; b < blocks; b++) {
    const head = Number.parseInt(await rpc(nodeUrl, 'eth_blockNumber', []), 16);
    const t0 = await mineOne(nodeUrl);
    const { transactions } = await rpc(nodeUrl, 'eth_getBlockByNumber', ['0x' + (head + 1).toString(16), false]);
    const latency = [];
    await nodeTimeForBlock(nodeUrl, transactions, (n) => {
      const ms = performance.now() - t0;
      for (let i = 0; i < n; i++) latency.push(ms);
    });
    await sleep(100);
    const nodeMs = await nodeTimeForBlock(nodeUrl, transactions);
    if (b >= WARMUP) {
      for (const ms of latency) overOwnBlock.push(ms / nodeMs);
      blockLastOverOwn.push(Math.max(...latency) / nodeMs);
    }
    await sleep(300);
  }
  return { p99OverOwnBlock: pct(overOwnBlock, 99), blockLastOverOwn };
}

/** The node's time per block of `txs` again, after the tracker phase (the figure earlier runs were compared with). */
async function nodeFloor(nodeUrl, txs) {
  const times = [];
  for (let i = 0; i < txs.length; i += PER_BLOCK)
    times.push(
      await nodeTimeForBlock(
        nodeUrl,
        txs.slice(i, i + PER_BLOCK).map((t) => t.hash),
      ),
    );
  return { p50: pct(times, 50), max: Math.max(...times) };
}

/** The baseline: on every block, one eth_getTransactionReceipt per still-unmined transaction (32 in parallel). */
async function baselinePhase(nodeUrl, txs) {
  const open = new Set(txs.map((t) => t.hash));
  const latency = [];
  let requests = 0;
  let busyMs = 0;
  for (let b = 0; b < BLOCKS && open.size > 0; b++) {
    const t0 = await mineOne(nodeUrl);
    const queue = [...open];
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const h = queue[next++];
        requests++;
        const r = await rpc(nodeUrl, 'eth_getTransactionReceipt', [h]);
        if (r) {
          latency.push(performance.now() - t0);
          open.delete(h);
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    busyMs += performance.now() - t0;
    await sleep(300);
  }
  return {
    receipts: latency.length,
    requests,
    p50: pct(latency, 50),
    p99: pct(latency, 99),
    receiptsPerSecond: (latency.length / busyMs) * 1000,
  };
}

/** One tracker phase on a fresh chain and service (SQLite, or PostgreSQL at `databaseUrl`), with the node's floor. */
async function measureStore(databaseUrl, withBaseline) {
  const anvil = await startAnvil({ gasLimit: PER_BLOCK * 21_000, accounts: SENDERS, blockTimeSeconds: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-tracker-'));
  let service;
  try {
    await rpc(anvil.url, 'evm_setIntervalMining', [0]);
    await rpc(anvil.url, 'evm_setAutomine', [false]);
    service = await startServiceProcess(anvil.url, dataDir, databaseUrl);
    const signup = await fetch(`${service.serviceUrl}/users/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password 123', name: 'Bench', organization: 'txdesk' }),
    });
    const { clientId } = await signup.json();
    const keys = deriveDevAccounts(SENDERS).map((a) => a.privateKey);
    const nonces = new Array(SENDERS).fill(0);

    log('signing');
    const warm = signTransfers(keys, nonces, WARMUP * PER_BLOCK);
    const first = signTransfers(keys, nonces, TOTAL);
    const second = withBaseline ? signTransfers(keys, nonces, TOTAL) : [];
    const third = withBaseline ? signTransfers(keys, nonces, WARMUP * PER_BLOCK + TOTAL) : [];
    log(`broadcasting (tracker phase, ${databaseUrl ? 'PostgreSQL' : 'SQLite'})`);
    await broadcast(anvil.url, [...warm, ...first]);
    const tracker = await trackerPhase(anvil.url, service.serviceUrl, clientId, [...warm, ...first], {
      node: anvil.pid,
      service: service.child.pid,
    });
    const floor = await nodeFloor(anvil.url, first);
    let baseline = null;
    let fetchOnly = null;
    if (withBaseline) {
      log('broadcasting (baseline phase)');
      await broadcast(anvil.url, second);
      baseline = await baselinePhase(anvil.url, second);
      log('broadcasting (fetch-only floor)');
      await broadcast(anvil.url, third);
      fetchOnly = await fetchOnlyPhase(anvil.url, third);
    }
    return { tracker, floor, baseline, fetchOnly };
  } finally {
    if (service) {
      service.child.kill('SIGTERM');
      await new Promise((r) => service.child.once('exit', r));
    }
    await anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** min, median and max of ratios, e.g. "1.12x .. 1.35x (median) .. 1.62x over 10 blocks". */
function spread(ratios) {
  const r = [...ratios].sort((a, b) => a - b);
  return `${r[0].toFixed(2)}x .. ${pct(r, 50).toFixed(2)}x (median) .. ${r.at(-1).toFixed(2)}x over ${r.length} blocks`;
}

/** min, median and max of ms values, e.g. "112 .. 124 (median) .. 150 ms". */
function spreadMs(values) {
  const r = [...values].sort((a, b) => a - b);
  return `${r[0].toFixed(0)} .. ${pct(r, 50).toFixed(0)} (median) .. ${r.at(-1).toFixed(0)} ms`;
}

/**
 * `--networks 2`: the tracker phase on network A of one service serving two networks (ethereum/local on chain 31337 and
 * ethereum/local-2 on chain 31338, each its own anvil), alone and while network B carries the same load at the same
 * time, in alternating rounds (`--rounds`, default 2). Prints A's receipt latency and acked msgs/s with B loaded over
 * without, and the CPU per receipt delivered of the service, the anvils and this bench (every network's subscriber).
 */
async function twoNetworks() {
  if (arg('networks', 2) !== 2) {
    log('--networks takes 2 (network A alone against A and B at once)');
    process.exit(1);
  }
  const rounds = arg('rounds', 2);
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : String(x));
  const median = (xs) => {
    const s = [...xs].sort((x, y) => x - y);
    return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-tracker-'));
  const chains = [];
  let service;
  try {
    for (const [chainId, network] of [
      [31337, 'local'],
      [31338, 'local-2'],
    ]) {
      const anvil = await startAnvil({ gasLimit: PER_BLOCK * 21_000, accounts: SENDERS, blockTimeSeconds: 1, chainId });
      chains.push({ anvil, chainId: BigInt(chainId), network, nonces: new Array(SENDERS).fill(0) });
      await rpc(anvil.url, 'evm_setIntervalMining', [0]);
      await rpc(anvil.url, 'evm_setAutomine', [false]);
    }
    const [a, b] = chains;
    service = await startServiceProcess(a.anvil.url, dataDir, null, b.anvil.url);
    const signup = await fetch(`${service.serviceUrl}/users/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password 123', name: 'Bench', organization: 'txdesk' }),
    });
    const { clientId } = await signup.json();
    const keys = deriveDevAccounts(SENDERS).map((x) => x.privateKey);
    let phases = 0;
    /** The same load on each chain of `on` at once; CPU ms per receipt delivered over the whole phase, by process. */
    const phase = async (on) => {
      phases++;
      log(`signing and broadcasting (phase ${phases}: ${on.map((c) => c.network).join(' and ')})`);
      const txs = on.map((c) => signTransfers(keys, c.nonces, WARMUP * PER_BLOCK + TOTAL, c.chainId));
      await Promise.all(on.map((c, i) => broadcast(c.anvil.url, txs[i])));
      const before = { service: cpuMs(service.child.pid), nodes: chains.map((c) => cpuMs(c.anvil.pid)), client: process.cpuUsage() };
      const results = await Promise.all(
        on.map((c, i) =>
          trackerPhase(
            c.anvil.url,
            service.serviceUrl,
            clientId,
            txs[i],
            { node: c.anvil.pid, service: service.child.pid },
            { network: c.network, subscriptionId: `bench-${phases}` },
          ),
        ),
      );
      const client = process.cpuUsage(before.client);
      results.forEach((r, i) => {
        if (r.receipts !== TOTAL) throw new Error(`${on[i].network}: ${r.receipts} of ${TOTAL} receipts delivered`);
      });
      // Every transaction of the phase, warm-up blocks included, got its receipt and its confirmation.
      const receipts = txs.reduce((n, t) => n + t.length, 0);
      const nodes = chains.reduce((n, c, i) => n + cpuMs(c.anvil.pid) - before.nodes[i], 0);
      return {
        a: results[0],
        b: results[1] ?? null,
        cpu: {
          service: (cpuMs(service.child.pid) - before.service) / receipts,
          nodes: nodes / receipts,
          client: (client.user + client.system) / 1000 / receipts,
        },
      };
    };
    const line = (r) =>
      `receipt p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms (${r.p99OverOwnBlock.toFixed(2)}x the node's own time for the ` +
      `block), ${f(r.ackedPerSecond)} acked msgs/s while delivering`;
    log(`${TOTAL} transactions per network and phase, ${PER_BLOCK} per block, ${rounds} alternating rounds`);
    const ratios = { p50: [], p99: [], acked: [], overOwn: [], serviceCpu: [], allCpu: [] };
    for (let round = 1; round <= rounds; round++) {
      // Odd rounds start with A alone, even rounds with both: drift over the run hits both alike.
      const order = round % 2 === 1 ? ['alone', 'together'] : ['together', 'alone'];
      const r = {};
      for (const what of order) {
        r[what] = await phase(what === 'alone' ? [a] : [a, b]);
        const x = r[what];
        console.log(`round ${round}, ${what === 'alone' ? 'A alone (B idle) ' : 'A while B is loaded'}: A ${line(x.a)}`);
        if (x.b) console.log(`round ${round}, ${'B at the same time'.padEnd(19)}: B ${line(x.b)}`);
        console.log(
          `round ${round}, ${'cpu per receipt'.padEnd(19)}: service ${x.cpu.service.toFixed(3)} ms, ` +
            `anvils ${x.cpu.nodes.toFixed(3)} ms, bench client ${x.cpu.client.toFixed(3)} ms (each with its ` +
            `confirmation; ${os.cpus().length} cores)`,
        );
      }
      const sum = (c) => c.service + c.nodes + c.client;
      ratios.p50.push(r.together.a.p50 / r.alone.a.p50);
      ratios.p99.push(r.together.a.p99 / r.alone.a.p99);
      ratios.acked.push(r.together.a.ackedPerSecond / r.alone.a.ackedPerSecond);
      ratios.overOwn.push(r.together.a.p99OverOwnBlock / r.alone.a.p99OverOwnBlock);
      ratios.serviceCpu.push(r.together.cpu.service / r.alone.cpu.service);
      ratios.allCpu.push(sum(r.together.cpu) / sum(r.alone.cpu));
    }
    const show = (xs) => `median ${median(xs).toFixed(2)} (rounds ${xs.map((x) => x.toFixed(2)).join(', ')})`;
    console.log(
      `ratio    A with B loaded/A alone: receipt p50 ${show(ratios.p50)}, p99 ${show(ratios.p99)} (expected <= ~2.0: B ` +
        `doubles the work on the same 2 shared cores, A gets its share)`,
    );
    console.log(`ratio    A with B loaded/A alone: acked msgs/s ${show(ratios.acked)} (expected >= ~0.5)`);
    console.log(
      `ratio    A with B loaded/A alone: p99 over A's node time for the block ${show(ratios.overOwn)} (the node slows down ` +
        `too; ~1.0 if the service adds no delay of its own)`,
    );
    console.log(
      `ratio    cpu per receipt with B loaded/alone: service ${show(ratios.serviceCpu)}, service + anvils + bench ` +
        `client ${show(ratios.allCpu)} (expected ~1.0: B's receipts cost their own CPU and nothing more)`,
    );
  } finally {
    if (service) {
      service.child.kill('SIGTERM');
      await new Promise((r) => (service.child.exitCode !== null ? r() : service.child.once('exit', r)));
    }
    for (const c of chains) await c.anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  log(`${TOTAL} transactions, ${PER_BLOCK} per block, ${SENDERS} senders`);
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : String(x));
  const { tracker, floor, baseline, fetchOnly } = await measureStore(null, true);
  const result = {
    transactions: TOTAL,
    perBlock: PER_BLOCK,
    tracker,
    nodeFloorMs: floor,
    baseline,
    fetchOnly,
    ratios: {
      p50: baseline.p50 / tracker.p50,
      p99: baseline.p99 / tracker.p99,
      p99OverOwnBlock: tracker.p99OverOwnBlock,
      p99OverNode: tracker.p99 / floor.p50,
    },
    targets: { p99Under100ms: tracker.worstBlockP99 <= 100, ackedPerSecondOver5000: tracker.ackedPerSecond >= 5000 },
  };
  console.log(
    `tracker  receipts ${tracker.receipts}/${TOTAL}: latency p50 ${f(tracker.p50)} ms, p99 ${f(tracker.p99)} ms (worst ` +
      `block p99 ${f(tracker.worstBlockP99)} ms); ${f(tracker.ackedPerSecond)} acked msgs/s while ` +
      `delivering, ${f(tracker.ackedPerSecondFromBlock)}/s counted from block arrival (${tracker.acked} acked)`,
  );
  console.log(
    `tracker  warm-up blocks before these (not counted): last receipt at ${tracker.warmupBlockLast.map((ms) => `+${f(ms)} ms`).join(', ') || 'none'}`,
  );
  console.log(
    `tracker  confirmations: latency p50 ${f(tracker.confirmationP50)} ms, p99 ${f(tracker.confirmationP99)} ms (from the ` +
      `arrival of the block that makes them due)`,
  );
  const c = tracker.cpuPerBlockMs;
  console.log(
    `cpu      per block round: anvil ${f(c.node)} ms (with the node-time measurement after the block), ` +
      `service ${f(c.service)} ms (tracker and indexer), bench client ${f(c.client)} ms`,
  );
  const w = tracker.cpuReceiptWindowMs;
  console.log(
    `cpu      from mining a block to its last receipt at the SDK: anvil ${f(w.node)} ms (mining included), ` +
      `service ${f(w.service)} ms, bench client ${f(w.client)} ms, on 2 cores`,
  );
  console.log(
    `node     serving one block's ${PER_BLOCK} receipts takes anvil ${spreadMs(tracker.nodeTimeByBlock)} measured right ` +
      `after each block (service CPU meanwhile ${f(tracker.serviceCpuDuringNodeTimeMs)} ms), ${f(floor.p50)} ms (p50; ` +
      `max ${f(floor.max)} ms) after the tracker phase: a floor under the tracker's latency`,
  );
  console.log(
    `baseline receipts ${baseline.receipts}/${TOTAL}: latency p50 ${f(baseline.p50)} ms, p99 ${f(baseline.p99)} ` +
      `ms; ${f(baseline.receiptsPerSecond)} receipts/s from ${baseline.requests} eth_getTransactionReceipt calls`,
  );
  console.log(`ratio    baseline/tracker latency: p50 x${f(result.ratios.p50)}, p99 x${f(result.ratios.p99)}`);
  console.log(
    `ratio    SQLite: receipt p99 is ${tracker.p99OverOwnBlock.toFixed(2)}x the node's own time for the receipt's block ` +
      `(target <= 1.3x); ${result.ratios.p99OverNode.toFixed(2)}x the p50 measured after the phase`,
  );
  console.log(`ratio    SQLite, each block's last receipt over that block's node time: ${spread(tracker.blockLastOverOwn)}`);
  console.log(
    `floor    a client that only fetches each block's receipts the tracker's way, scored the same: ` +
      `p99 ${fetchOnly.p99OverOwnBlock.toFixed(2)}x (each block's last receipt ${spread(fetchOnly.blockLastOverOwn)}); the ` +
      `tracker's p99 is ${(tracker.p99OverOwnBlock / fetchOnly.p99OverOwnBlock).toFixed(2)}x this floor`,
  );
  console.log(
    `targets  p99 <= 100 ms per 1,000-tx block: ${result.targets.p99Under100ms ? 'met' : 'MISSED'}; >= 5,000 acked ` +
      `msgs/s: ${result.targets.ackedPerSecondOver5000 ? 'met' : 'MISSED'}`,
  );
  if (!args.includes('--sqlite-only')) {
    const pg = await startThrowawayPostgres('tracker');
    try {
      const onPg = await measureStore(pg.url, false);
      result.postgres = {
        tracker: onPg.tracker,
        nodeFloorMs: onPg.floor,
        p99OverOwnBlock: onPg.tracker.p99OverOwnBlock,
        p99OverNode: onPg.tracker.p99 / onPg.floor.p50,
      };
      console.log(
        `postgres receipts ${onPg.tracker.receipts}/${TOTAL}: latency p50 ${f(onPg.tracker.p50)} ms, ` +
          `p99 ${f(onPg.tracker.p99)} ms; ${f(onPg.tracker.ackedPerSecond)} acked msgs/s; ` +
          `node ${spreadMs(onPg.tracker.nodeTimeByBlock)} per block (${f(onPg.floor.p50)} ms after the phase)`,
      );
      console.log(`ratio    PostgreSQL, each block's last receipt over that block's node time: ${spread(onPg.tracker.blockLastOverOwn)}`);
      console.log(
        `ratio    PostgreSQL: receipt p99 is ${onPg.tracker.p99OverOwnBlock.toFixed(2)}x the node's own time for the ` +
          `receipt's block (${result.postgres.p99OverNode.toFixed(2)}x the p50 after the phase); its p99 ` +
          `is ${(onPg.tracker.p99 / tracker.p99).toFixed(2)}x SQLite's in this run`,
      );
    } finally {
      await pg.stop();
    }
  }
  if (args.includes('--json')) console.log(JSON.stringify(result));
}

await (args.includes('--networks') ? twoNetworks() : main());
