// bench/rpc: what a tool pays for txdesk as its signer. An ethers v6 JsonRpcSigner sending through `txdesk serve`'s
// /rpc, against an ethers Wallet connected straight to the same node sending the same transaction (it too reads the
// nonce, estimates gas, reads the fees, signs and sends), in one run on the embedded dev chain with congestion off:
// latency of sequential sends (p50/p99 of sendTransaction until it returns the hash), transactions per second with
// many sends at once, and CPU per send of the tool's process, of txdesk's and of anvil. Beside them, the floors measured
// in the same run, between the sequential turns: a round trip through txdesk's HTTP server that does no work
// (eth_chainId) and a read forwarded to the node against the same read sent straight; and the write-ahead commit alone.
// The two senders take turns (A B B A ...) so that a drift of the box's speed over the run falls on both.
// Usage: node bench/rpc/index.js [--sequential 60] [--concurrent 64] [--rounds 2] [--block 10]
// Needs the build (`npx tsc -p tsconfig.build.json`). TXDESK_BENCH_SERVE_NODE_ARGS="--cpu-prof" profiles txdesk.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FetchRequest, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { cpuMs, numberArg, pct, rpc, sleep } from '../lib/chain-load.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
if (!existsSync(join(root, 'dist/cli/index.js'))) {
  process.stderr.write('bench/rpc needs the build: run `npx tsc -p tsconfig.build.json` (or `npm run build`) first.\n');
  process.exit(1);
}

const args = process.argv.slice(2);
const SEQUENTIAL = numberArg(args, 'sequential', 60);
const CONCURRENT = numberArg(args, 'concurrent', 64);
const ROUNDS = numberArg(args, 'rounds', 2);
/** Sequential sends per turn: small enough to alternate often, large enough for /proc's 10 ms CPU ticks. */
const BLOCK = numberArg(args, 'block', 10);
const WARMUP = 5;
/** Samples of each floor round trip after each pair of sequential turns. */
const FLOOR_SAMPLES = 20;
const log = (m) => process.stderr.write(`[bench:rpc] ${m}\n`);
const ms = (x) => `${x.toFixed(1)} ms`;

/** `txdesk serve` on the embedded dev chain (congestion off) as its own process, as a tool meets it. */
async function startServe(dataDir) {
  const nodeArgs = (process.env.TXDESK_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(root, 'bin/txdesk.js'), 'serve', '--json', '--port', '0', '--congestion', 'off', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TXDESK_KEYCHAIN: 'off', TXDESK_LOG: process.env.TXDESK_LOG ?? 'silent' },
    },
  );
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`txdesk serve exited (${code}) before it was ready`)));
  });
  const ready = JSON.parse(line);
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { child, ready, stop };
}

/** The anvil of chain `chainId` among `pid`'s descendants (the embedded network runs two), or null. */
function anvilOf(pid, chainId) {
  const children = (p) => {
    try {
      return readdirSync(`/proc/${p}/task`).flatMap((t) =>
        readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
      );
    } catch {
      return [];
    }
  };
  const queue = children(pid);
  while (queue.length) {
    const p = queue.shift();
    const argv = (() => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      } catch {
        return [];
      }
    })();
    if (/\/anvil$/.test(argv[0] ?? '') && argv[argv.indexOf('--chain-id') + 1] === String(chainId)) return p;
    queue.push(...children(p));
  }
  return null;
}

/** Waits until every transaction of `addresses` is mined, so no turn starts with the other's work still in the pool. */
async function drained(nodeUrl, addresses) {
  const until = Date.now() + 60_000;
  for (;;) {
    const counts = await Promise.all(
      addresses.flatMap((a) => [
        rpc(nodeUrl, 'eth_getTransactionCount', [a, 'latest']),
        rpc(nodeUrl, 'eth_getTransactionCount', [a, 'pending']),
      ]),
    );
    if (counts.every((c, i) => i % 2 === 1 || c === counts[i + 1])) return;
    if (Date.now() > until) throw new Error('transactions still pending after 60 s');
    await sleep(100);
  }
}

/** CPU ms so far of the tool (this process), txdesk and anvil. */
function cpuNow(pids) {
  const own = process.cpuUsage();
  return { tool: (own.user + own.system) / 1000, txdesk: cpuMs(pids.txdesk), anvil: cpuMs(pids.anvil) };
}

/** One sender's totals over its turns: latencies, sends, seconds and CPU ms. */
const tally = () => ({ latencies: [], sends: 0, seconds: 0, cpu: { tool: 0, txdesk: 0, anvil: 0 } });

/** Runs `fn` as one turn of `sender`, adding its sends, wall time and CPU to the sender's tally. */
async function turn(t, pids, sends, fn) {
  const cpu0 = cpuNow(pids);
  const t0 = performance.now();
  await fn();
  t.seconds += (performance.now() - t0) / 1000;
  const cpu1 = cpuNow(pids);
  // A process whose CPU could not be read (no /proc, anvil not found) stays NaN: reported as n/a, not as 0.
  for (const k of Object.keys(t.cpu)) t.cpu[k] += cpu0[k] === null || cpu1[k] === null ? NaN : cpu1[k] - cpu0[k];
  t.sends += sends;
}

/** One call of `f` timed into `latencies`: for a send, from the call to the response that carries the hash. */
async function timed(latencies, f) {
  const t0 = performance.now();
  const out = await f();
  latencies.push(performance.now() - t0);
  return out;
}

/** p50 of `n` calls of `fn`, one after another. */
async function p50Of(n, fn) {
  const xs = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  return pct(xs, 50);
}

/** The write-ahead commit alone: one insert (record, signed bytes, event) into a store on disk, p50. */
async function storeCommitP50(raw) {
  const { openTxStore } = await import(join(root, 'dist/core/adapters/sqlite/tx-store-sqlite.js'));
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-rpc-store-'));
  const store = openTxStore(join(dir, 'tx.db'));
  try {
    let i = 0;
    return await p50Of(500, async () => {
      const hash = `0x${(i++).toString(16).padStart(64, '0')}`;
      const now = new Date().toISOString();
      const from = '0x000000000000000000000000000000000000beef';
      store.insert(
        {
          transactionHash: hash,
          from,
          nonce: i,
          gasPrice: '1000000000',
          txType: 'eip1559',
          to: from,
          value: '1',
          input: '0x',
          gasLimit: '21000',
          data: {},
          replaces: null,
          replacedBy: null,
          attempt: 0,
          kind: 'generate',
          problem: null,
          createdAt: now,
          updatedAt: now,
        },
        raw,
        [{ kind: 'signed', summary: 'Signed.', detail: {} }],
      );
    });
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-rpc-'));
  const serve = await startServe(dataDir);
  const providers = [];
  try {
    const { ready } = serve;
    const pids = { txdesk: serve.child.pid, anvil: anvilOf(serve.child.pid, ready.chainId) };
    if (!pids.anvil) log('anvil process not found: its CPU is not reported');
    const token = readFileSync(ready.apiTokenFile, 'utf8').trim();

    // The tool's side as docs/app.md shows it, and the Wallet with the same provider options. ethers shares identical
    // requests made within 250 ms, which would hand a Wallet sending one transfer after another the same nonce twice
    // (and spare both senders the repeated estimate): off for both, so each send does all of its work.
    const options = { staticNetwork: true, cacheTimeout: -1 };
    const request = new FetchRequest(`${ready.apiUrl}/rpc`);
    request.setHeader('Authorization', `Bearer ${token}`);
    const viaTxdesk = new JsonRpcProvider(request, undefined, options);
    const node = new JsonRpcProvider(ready.nodeUrl, undefined, options);
    providers.push(viaTxdesk, node);
    const signer = await viaTxdesk.getSigner();
    const wallet = Wallet.createRandom().connect(node);
    await rpc(ready.nodeUrl, 'anvil_setBalance', [wallet.address, `0x${(10n ** 21n).toString(16)}`]);
    const to = Wallet.createRandom().address;
    const tx = { to, value: 1n };
    const senders = {
      rpc: { addr: signer.address, send: () => signer.sendTransaction(tx), many: () => signer, seq: tally(), con: tally() },
      wallet: {
        addr: wallet.address,
        send: () => wallet.sendTransaction(tx),
        many: () => new NonceManager(wallet),
        seq: tally(),
        con: tally(),
      },
    };
    const both = [senders.rpc.addr, senders.wallet.addr];
    log(
      `txdesk ${ready.apiUrl} (pid ${pids.txdesk}), node ${ready.nodeUrl} (anvil pid ${pids.anvil}); txdesk signs ` +
        `as ${signer.address}, the Wallet is ${wallet.address}`,
    );

    // Warm-up, not counted: network detection, connections, the JIT.
    for (const s of Object.values(senders)) for (let i = 0; i < WARMUP; i++) await s.send();
    await drained(ready.nodeUrl, both);

    // Sequential: turns of BLOCK sends, in the order A B B A A B ..., and after each pair of turns samples of the
    // floor's round trips, so that they see the box as the sends did. Plain fetch, not the providers: an ethers
    // provider holds every call 10 ms to batch it.
    const auth = { authorization: `Bearer ${token}` };
    const floor = { hop: [], forwarded: [], straight: [] };
    const order = (i) => (i % 2 === 0 ? [senders.rpc, senders.wallet] : [senders.wallet, senders.rpc]);
    for (let i = 0; i < Math.ceil(SEQUENTIAL / BLOCK); i++) {
      for (const s of order(i)) {
        const n = Math.min(BLOCK, SEQUENTIAL - i * BLOCK);
        await turn(s.seq, pids, n, async () => {
          for (let j = 0; j < n; j++) await timed(s.seq.latencies, s.send);
        });
        await drained(ready.nodeUrl, both);
      }
      for (let j = 0; j < FLOOR_SAMPLES; j++) {
        await timed(floor.hop, () => rpc(`${ready.apiUrl}/rpc`, 'eth_chainId', [], auth));
        await timed(floor.forwarded, () => rpc(`${ready.apiUrl}/rpc`, 'eth_blockNumber', [], auth));
        await timed(floor.straight, () => rpc(ready.nodeUrl, 'eth_blockNumber', []));
      }
    }

    // At once: CONCURRENT sends started together, ROUNDS rounds each, alternating who goes first.
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of order(r)) {
        const sender = s.many();
        await turn(s.con, pids, CONCURRENT, () =>
          Promise.all(Array.from({ length: CONCURRENT }, () => timed(s.con.latencies, () => sender.sendTransaction(tx)))),
        );
        await drained(ready.nodeUrl, both);
      }
    }

    const commit = await storeCommitP50(
      await wallet.signTransaction({
        to,
        value: 1n,
        nonce: 0,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 1n,
        chainId: ready.chainId,
      }),
    );
    report(senders, { hop: pct(floor.hop, 50), forwarded: pct(floor.forwarded, 50), straight: pct(floor.straight, 50), commit });
  } finally {
    for (const p of providers) p.destroy();
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The figures and their ratios. txdesk's process also hosts the embedded data service and dev chains, which work on
 * every block whoever sends: its CPU per /rpc send is also given net of what it used per second during the Wallet's
 * turns. The latency floor is an estimate: the Wallet's p50 plus what the design adds, from round trips measured here
 * with a plain client: each of the tool's 4 requests (block number, estimate, send, lookup) goes through txdesk (a
 * forwarded read minus the same read sent straight), one more node round trip for txdesk's checks before signing,
 * and the commit before the broadcast.
 */
function report({ rpc: r, wallet: w }, floors) {
  const p50 = (t) => pct(t.latencies, 50);
  const p99 = (t) => pct(t.latencies, 99);
  const rate = (t) => t.sends / t.seconds;
  const perSend = (t, k) => (Number.isNaN(t.cpu[k]) ? 'n/a' : (t.cpu[k] / t.sends).toFixed(2));
  const cpuLine = (t) => `tool ${perSend(t, 'tool')}, txdesk ${perSend(t, 'txdesk')}, anvil ${perSend(t, 'anvil')} ms`;
  const background = (w.seq.cpu.txdesk + w.con.cpu.txdesk) / (w.seq.seconds + w.con.seconds);
  const net = (t) => ((t.cpu.txdesk - background * t.seconds) / t.sends).toFixed(2);
  const floor = p50(w.seq) + 4 * (floors.forwarded - floors.straight) + floors.straight + floors.commit;
  console.log(`sequential, ${r.seq.sends} sends each (turns of ${BLOCK}, alternating):`);
  console.log(
    `  /rpc   JsonRpcSigner.sendTransaction: p50 ${ms(p50(r.seq))}  p99 ${ms(p99(r.seq))};  CPU per send: ${cpuLine(r.seq)} ` +
      `(txdesk net of its background: ${net(r.seq)})`,
  );
  console.log(`  Wallet straight to the node:         p50 ${ms(p50(w.seq))}  p99 ${ms(p99(w.seq))};  CPU per send: ${cpuLine(w.seq)}`);
  console.log(
    `  -> latency p50 /rpc over Wallet: ${(p50(r.seq) / p50(w.seq)).toFixed(2)}x (goal <= 1.15x); ` +
      `p99 ${(p99(r.seq) / p99(w.seq)).toFixed(2)}x; floor (estimated) ${ms(floor)} = ${(floor / p50(w.seq)).toFixed(2)}x`,
  );
  console.log(`${CONCURRENT} at once, ${ROUNDS} rounds each (alternating who goes first):`);
  console.log(
    `  /rpc   ${rate(r.con).toFixed(0)} tx/s  (p50 ${ms(p50(r.con))} under load);  CPU per send: ${cpuLine(r.con)} (txdesk ` +
      `net of its background: ${net(r.con)})`,
  );
  console.log(
    `  Wallet ${rate(w.con).toFixed(0)} tx/s  (p50 ${ms(p50(w.con))} under load, NonceManager);  CPU per send: ${cpuLine(w.con)}`,
  );
  console.log(`  -> throughput /rpc over Wallet: ${(rate(r.con) / rate(w.con)).toFixed(2)}x (goal >= 0.75x)`);
  console.log(
    `txdesk's background (embedded data service and dev chains) during the Wallet's turns: ${background.toFixed(0)} ms CPU per second`,
  );
  console.log('floors measured in the same run (p50; the round trips between the sequential turns):');
  console.log(
    `  a /rpc round trip that does no work (eth_chainId): ${ms(floors.hop)};  eth_blockNumber through ` +
      `/rpc ${ms(floors.forwarded)} against straight to the node ${ms(floors.straight)}`,
  );
  console.log(`  the write-ahead commit alone (SQLite on disk): ${ms(floors.commit)}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`bench/rpc could not measure: ${e.stack ?? e.message}`);
    process.exit(1);
  },
);
