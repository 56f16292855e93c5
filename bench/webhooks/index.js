// Webhooks benchmark (issue 36): the same receipts delivered by webhook and over the WebSocket in one run.
//
// What it measures: a service on anvil (as bench/tracker: automine off, 1,000 transfers per block, blocks mined by
// the bench) with one clientId that has both a webhook (to a local receiver: node:http on 127.0.0.1, in a worker
// thread, answering 200 at once) and an SDK subscription that acks every message as it arrives, so the WebSocket is
// never held back by its one-message-in-flight-per-transaction rule. Every tracked transaction's receipt (and, with
// --confirmation 1, its confirmation) therefore reaches the bench by both channels. Per round (--txs transactions,
// --per-block to a block, blocks mined one at a time, each waited for on both channels):
// - each receipt's delay from its block's arrival (evm_mine answered: bench/tracker's origin) to the webhook's arrival
//   at the receiver and to the SDK's `message`: p50 and p99 of each, and webhook/WebSocket as ratios;
// - deliveries per second at the receiver: a burst's deliveries (a block's receipts plus the previous block's
//   confirmations) over the time from its first to its last delivery, summed over the round's bursts; the WebSocket's
//   messages per second over the same bursts beside it;
// - how long after the block the first webhook delivery came (the deliverer's wake-up);
// - a control round beside each round (order alternating; --no-control skips it): a second clientId without webhooks
//   gets the same load by WebSocket alone. It shows what a webhook costs the WebSocket subscribers of the same service,
//   and the service's CPU per webhook delivery (the round with the webhook less the round without).
// No timing is asserted and it is not part of `npm test`; it exits non-zero only when it could not measure (a message
// missing after 120 s).
//
// The service runs as its own process (service.js: the compiled startService with allowPrivateWebhooks, because the
// CLI cannot lift the per-clientId webhook limit, 50 deliveries/s by default; --rate 50 measures with that limit).
// Needs the build: `npx tsc -p tsconfig.build.json` (or `npm run build`).
// Usage: node bench/webhooks/index.js [--rounds 3] [--txs 2000] [--per-block 1000] [--confirmation 1] [--warmup 1]
//                                     [--rate 0] [--no-control] [--json] [--trace]
//        npm run bench -- webhooks      (the defaults)
// --trace prints each block's burst on both channels. TXDESK_BENCH_SERVICE_NODE_ARGS="--cpu-prof
// --cpu-prof-dir=/tmp/prof" profiles the service process.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { broadcast, cpuMs, numberArg, pct, rpc, signTransfers, sleep } from '../lib/chain-load.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const f of ['dist/sdk/index.js', 'dist/service/index.js', 'dist/service/webhooks/webhook-service.js', 'dist/devchain/devchain.js']) {
  if (!existsSync(join(root, f))) {
    process.stderr.write(
      `bench/webhooks needs the build (${f} is missing): run \`npx tsc -p tsconfig.build.json\` (or \`npm run build\`) first.\n`,
    );
    process.exit(1);
  }
}
const { startAnvil } = await import(join(root, 'dist/devchain/devchain.js'));
const { deriveDevAccounts } = await import(join(root, 'dist/devchain/dev-accounts.js'));
const { TransactionTracker } = await import(join(root, 'dist/sdk/index.js'));

const args = process.argv.slice(2);
const arg = (name, fallback) => numberArg(args, name, fallback);
const ROUNDS = arg('rounds', 3);
const TXS = arg('txs', 2_000);
const PER_BLOCK = arg('per-block', 1_000);
const CONFIRMATION = arg('confirmation', 1);
const WARMUP = arg('warmup', 1);
const RATE = arg('rate', 0);
/** Also rounds in which a second clientId, without webhooks, gets the same load by WebSocket alone. */
const CONTROL = !args.includes('--no-control');
const SENDERS = 10;
const WAIT_MS = 120_000;
const log = (m) => process.stderr.write(`[bench:webhooks] ${m}\n`);
const trace = args.includes('--trace');

/** One clock for this thread and the receiver's worker thread. */
const now = () => performance.timeOrigin + performance.now();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
};
const blockNo = (v) => (typeof v === 'string' ? Number.parseInt(v, v.startsWith('0x') ? 16 : 10) : Number(v));

async function startServiceProcess(nodeUrl, dataDir) {
  const nodeArgs = (process.env.TXDESK_BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(root, 'bench/webhooks/service.js'), JSON.stringify({ nodeUrl, dataDir, rate: RATE })],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TXDESK_LOG: process.env.TXDESK_LOG ?? 'silent' },
    },
  );
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
  });
  return { child, serviceUrl: JSON.parse(line).serviceUrl };
}

async function startReceiver() {
  const worker = new Worker(new URL('./receiver.js', import.meta.url));
  const port = await new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', function first(m) {
      if (m.kind !== 'listening') return;
      worker.off('message', first);
      resolve(m.port);
    });
  });
  return { worker, url: `http://127.0.0.1:${port}/hook` };
}

/** Arrivals by channel, in arrival order, and a waiter woken by each arrival (no polling on the bench's cores). */
const arrivals = { hook: [], ws: [], wsAlone: [] };
let waiter = null;
const wake = () => {
  if (waiter?.done()) {
    const w = waiter;
    waiter = null;
    w.resolve(true);
  }
};
function waitUntil(done, ms) {
  if (done()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiter = null;
      resolve(false);
    }, ms);
    waiter = {
      done,
      resolve: (v) => {
        clearTimeout(timer);
        resolve(v);
      },
    };
  });
}

/**
 * One round: tracks `txs` (already broadcast), mines their blocks and CONFIRMATION more one at a time, waiting after
 * each until both channels have what it made due. Returns the round's figures.
 */
async function round(ctx, txs, alone = false) {
  const { nodeUrl, pids } = ctx;
  const tracker = alone ? ctx.aloneTracker : ctx.tracker;
  // Alone: the second clientId, which has no webhook; its messages are counted as the WebSocket's (and none by webhook).
  const wsList = alone ? arrivals.wsAlone : arrivals.ws;
  const from = { hook: arrivals.hook.length, ws: wsList.length };
  await Promise.all(txs.map((t) => tracker.trackTransaction(t.hash, { timeout: 3_600_000, confirmation: CONFIRMATION })));
  await sleep(1500);
  const blockArrival = new Map();
  const bursts = [];
  const blocks = Math.ceil(txs.length / PER_BLOCK);
  const cpu = () => ({
    service: cpuMs(pids.service),
    node: cpuMs(pids.node),
    bench: ((u) => (u.user + u.system) / 1000)(process.cpuUsage()),
  });
  const cpuBefore = cpu();
  let missing = null;
  for (let b = 0; b < blocks + CONFIRMATION; b++) {
    const receipts = Math.min(txs.length, (b + 1) * PER_BLOCK);
    const confirmations = CONFIRMATION > 0 ? Math.min(txs.length, Math.max(0, b + 1 - CONFIRMATION) * PER_BLOCK) : 0;
    const expected = receipts + confirmations;
    const before = { hook: arrivals.hook.length, ws: wsList.length };
    const head = Number.parseInt(await rpc(nodeUrl, 'eth_blockNumber', []), 16);
    await rpc(nodeUrl, 'evm_mine', []);
    const t0 = now();
    blockArrival.set(head + 1, t0);
    const ok = await waitUntil(
      () => (alone || arrivals.hook.length - from.hook >= expected) && wsList.length - from.ws >= expected,
      WAIT_MS,
    );
    if (!ok) {
      missing =
        `block ${head + 1}: ${arrivals.hook.length - from.hook} webhook deliveries and ${wsList.length - from.ws} ` +
        `WebSocket messages of ${expected} after ${WAIT_MS / 1000} s`;
      break;
    }
    const hooks = arrivals.hook.slice(before.hook);
    const ws = wsList.slice(before.ws);
    const span = (xs) =>
      xs.length === 0
        ? { n: 0, first: NaN, last: NaN }
        : { n: xs.length, first: Math.min(...xs.map((x) => x.at)), last: Math.max(...xs.map((x) => x.at)) };
    const burst = { block: head + 1, t0, hook: span(hooks), ws: span(ws) };
    bursts.push(burst);
    if (trace) {
      log(
        `block ${head + 1}: webhook ${burst.hook.n} from +${(burst.hook.first - t0).toFixed(0)} to +${(burst.hook.last - t0).toFixed(0)} ms; ` +
          `WebSocket ${burst.ws.n} from +${(burst.ws.first - t0).toFixed(0)} to +${(burst.ws.last - t0).toFixed(0)} ms`,
      );
    }
    await sleep(300);
  }
  const cpuAfter = cpu();
  if (missing) throw new Error(`could not measure: ${missing}`);

  const hooks = arrivals.hook.slice(from.hook);
  const ws = wsList.slice(from.ws);
  /** Delay of each message from the arrival of the block that made it due; by (hash, type) for pairing. */
  const delays = (list) => {
    const byKey = new Map();
    const receipt = [];
    const confirmation = [];
    for (const m of list) {
      const due = m.type === 'receipt' ? m.blockNumber : m.type === 'confirmation' ? m.blockNumber + CONFIRMATION : null;
      const t0 = blockArrival.get(due);
      if (t0 === undefined) continue;
      const ms = Math.max(0, m.at - t0);
      const key = `${m.hash}/${m.type}`;
      if (byKey.has(key)) continue; // a second delivery of the same message (at least once): the first one counts
      byKey.set(key, ms);
      (m.type === 'receipt' ? receipt : confirmation).push(ms);
    }
    return { byKey, receipt, confirmation };
  };
  const h = delays(hooks);
  const w = delays(ws);
  // The same receipt by both channels: how much later the webhook had it.
  const later = [];
  for (const [key, ms] of h.byKey) if (key.endsWith('/receipt') && w.byKey.has(key)) later.push(ms - w.byKey.get(key));
  const ids = new Set();
  let duplicates = 0;
  for (const x of hooks) {
    if (ids.has(x.deliveryId)) duplicates++;
    ids.add(x.deliveryId);
  }
  const sum = (xs, f) => xs.reduce((n, x) => n + f(x), 0);
  const rate = (k) => (sum(bursts, (b) => b[k].n) / sum(bursts, (b) => (b[k].n > 1 ? b[k].last - b[k].first : 0))) * 1000;
  const deliveries = hooks.length;
  return {
    transactions: txs.length,
    webhookDeliveries: deliveries,
    webSocketMessages: ws.length,
    duplicates,
    retries: hooks.filter((x) => x.attempt > 1).length,
    unsigned: hooks.filter((x) => !x.signed).length,
    paired: later.length,
    webhook: {
      p50: pct(h.receipt, 50),
      p99: pct(h.receipt, 99),
      max: Math.max(...h.receipt),
      confirmationP50: pct(h.confirmation, 50),
      confirmationP99: pct(h.confirmation, 99),
    },
    webSocket: {
      p50: pct(w.receipt, 50),
      p99: pct(w.receipt, 99),
      max: Math.max(...w.receipt),
      confirmationP50: pct(w.confirmation, 50),
      confirmationP99: pct(w.confirmation, 99),
    },
    webhookLaterP50: pct(later, 50),
    webhookLaterP99: pct(later, 99),
    ratioP50: pct(h.receipt, 50) / pct(w.receipt, 50),
    ratioP99: pct(h.receipt, 99) / pct(w.receipt, 99),
    webhookPerSecond: rate('hook'),
    webSocketPerSecond: rate('ws'),
    /** ms from a block's arrival to the first webhook delivery it made due (per burst), and the same for the WebSocket. */
    firstWebhookMs: bursts.map((b) => b.hook.first - b.t0),
    firstWebSocketMs: bursts.map((b) => b.ws.first - b.t0),
    bursts: bursts.map((b) => ({
      block: b.block,
      webhook: b.hook.n,
      webhookSpanMs: b.hook.last - b.hook.first,
      webSocketSpanMs: b.ws.last - b.ws.first,
    })),
    /** CPU ms per webhook delivery, over the round (the service's includes the WebSocket's work for the same messages). */
    cpuMs: {
      service: cpuAfter.service - cpuBefore.service,
      node: cpuAfter.node - cpuBefore.node,
      bench: cpuAfter.bench - cpuBefore.bench,
    },
  };
}

async function main() {
  log(
    `${ROUNDS} rounds of ${TXS} transactions, ${PER_BLOCK} per block, confirmation ${CONFIRMATION}, ${WARMUP} warm-up ` +
      `block(s); webhook limit ${RATE > 0 ? `${RATE}/s per clientId` : 'lifted'}; ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
  );
  const anvil = await startAnvil({ gasLimit: PER_BLOCK * 21_000, accounts: SENDERS, blockTimeSeconds: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-webhooks-'));
  let service;
  let receiver;
  const trackers = [];
  try {
    await rpc(anvil.url, 'evm_setIntervalMining', [0]);
    await rpc(anvil.url, 'evm_setAutomine', [false]);
    service = await startServiceProcess(anvil.url, dataDir);
    receiver = await startReceiver();
    receiver.worker.on('message', (m) => {
      if (m.kind !== 'arrivals') return;
      for (const a of m.list) arrivals.hook.push({ ...a, blockNumber: blockNo(a.blockNumber) });
      wake();
    });

    /** A clientId of its own (one sign-up each), with an SDK subscription whose messages go to `list`, acked at once. */
    const client = async (email, list) => {
      const signup = await fetch(`${service.serviceUrl}/users/v1/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'bench password 123', name: 'Bench', organization: 'txdesk' }),
      });
      const { clientId, jwtToken } = await signup.json();
      const t = new TransactionTracker(clientId, { platform: 'ethereum', network: 'local', url: service.serviceUrl });
      trackers.push(t);
      const sub = t.subscribe('transaction', { subscriptionId: 'bench', ackTimeout: 600_000 });
      sub.on('error', (e) => log(`sdk error: ${e.message}`));
      await sub.ready;
      sub.on('message', (m) => {
        const at = now();
        list.push({
          at,
          type: m.data.type,
          hash: String(m.data.result?.transactionHash ?? '').toLowerCase(),
          blockNumber: blockNo(m.data.result?.blockNumber),
        });
        void m.ack();
        wake();
      });
      return { clientId, session: jwtToken, tracker: t };
    };
    const main = await client('bench@example.com', arrivals.ws);
    // Managing webhooks needs a credential of the account (its session here), not the clientId alone.
    const created = await fetch(`${service.serviceUrl}/tracker/v1/webhooks?clientId=${encodeURIComponent(main.clientId)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${main.session}` },
      body: JSON.stringify({ url: receiver.url }),
    });
    const hook = await created.json();
    if (created.status !== 201) throw new Error(`could not create the webhook (${created.status}): ${JSON.stringify(hook)}`);
    log(`webhook ${hook.id} -> ${receiver.url}`);
    const alone = CONTROL ? await client('bench-alone@example.com', arrivals.wsAlone) : null;

    const keys = deriveDevAccounts(SENDERS).map((a) => a.privateKey);
    const nonces = new Array(SENDERS).fill(0);
    const ctx = {
      nodeUrl: anvil.url,
      tracker: main.tracker,
      aloneTracker: alone?.tracker,
      pids: { service: service.child.pid, node: anvil.pid },
    };
    const batch = async (n) => {
      const txs = signTransfers(keys, nonces, n);
      await broadcast(anvil.url, txs);
      return txs;
    };
    if (WARMUP > 0) {
      const r = await round(ctx, await batch(WARMUP * PER_BLOCK));
      log(`warm-up (not counted): webhook receipt p50 ${r.webhook.p50.toFixed(1)} ms, WebSocket ${r.webSocket.p50.toFixed(1)} ms`);
      if (alone) await round(ctx, await batch(WARMUP * PER_BLOCK), true);
    }
    const results = [];
    for (let i = 1; i <= ROUNDS; i++) {
      // With the control, odd rounds start with it and even rounds end with it: drift on the box hits both alike.
      const order = !alone ? ['both'] : i % 2 === 1 ? ['alone', 'both'] : ['both', 'alone'];
      const r = {};
      for (const what of order) {
        log(
          `round ${i}: ${TXS} transactions, ${what === 'both' ? 'webhook and WebSocket (one clientId)' : 'WebSocket alone (a clientId without webhooks)'}`,
        );
        r[what] = await round(ctx, await batch(TXS), what === 'alone');
      }
      results.push({ ...r.both, alone: r.alone ?? null });
    }
    report(results);
  } finally {
    for (const t of trackers) await t.close().catch(() => {});
    if (service) {
      service.child.kill('SIGTERM');
      await new Promise((r) => (service.child.exitCode !== null ? r() : service.child.once('exit', r)));
    }
    if (receiver) {
      receiver.worker.postMessage('stop');
      await receiver.worker.terminate().catch(() => {});
    }
    await anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(results) {
  const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const control = results[0].alone !== null;
  const head = ['round', 'hook p50', 'hook p99', 'WS p50', 'WS p99', 'ratio p50', 'ratio p99', 'hooks/s', 'WS msgs/s', '1st hook'];
  if (control) head.push('alone p50', 'alone p99', 'cpu/hook');
  const row = (cells) => cells.map((c, i) => String(c).padStart(i === 0 ? 5 : 10)).join(' ');
  console.log(
    `webhooks: ${TXS} transactions per round, ${PER_BLOCK} per block, confirmation ${CONFIRMATION}, webhook ` +
      `limit ${RATE > 0 ? `${RATE}/s` : 'lifted'}; receipt delays in ms from the block's arrival`,
  );
  console.log(row(head));
  /** Service CPU ms per webhook delivery: the round with the webhook less the WebSocket-alone round, per delivery. */
  const cpuPerHook = (r) => (r.alone ? (r.cpuMs.service - r.alone.cpuMs.service) / r.webhookDeliveries : NaN);
  results.forEach((r, i) => {
    const cells = [
      i + 1,
      f(r.webhook.p50),
      f(r.webhook.p99),
      f(r.webSocket.p50),
      f(r.webSocket.p99),
      `${f(r.ratioP50, 2)}x`,
      `${f(r.ratioP99, 2)}x`,
      f(r.webhookPerSecond, 0),
      f(r.webSocketPerSecond, 0),
      f(median(r.firstWebhookMs), 0),
    ];
    if (control) cells.push(f(r.alone.webSocket.p50), f(r.alone.webSocket.p99), f(cpuPerHook(r), 3));
    console.log(row(cells));
  });
  const m = (fn) => median(results.map(fn));
  const range = (fn, d = 1) => {
    const xs = results.map(fn).sort((a, b) => a - b);
    return `${f(xs[0], d)}-${f(xs.at(-1), d)}`;
  };
  console.log(
    `median   webhook receipt p50 ${f(m((r) => r.webhook.p50))} ms, p99 ${f(m((r) => r.webhook.p99))} ms; WebSocket (same ` +
      `receipts) p50 ${f(m((r) => r.webSocket.p50))} ms, p99 ${f(m((r) => r.webSocket.p99))} ms; ` +
      `ratio webhook/WebSocket p50 ${f(
        m((r) => r.ratioP50),
        2,
      )}x (${range((r) => r.ratioP50, 2)}), p99 ${f(
        m((r) => r.ratioP99),
        2,
      )}x (${range((r) => r.ratioP99, 2)})`,
  );
  console.log(
    `median   ${f(
      m((r) => r.webhookPerSecond),
      0,
    )} webhook deliveries/s at the receiver (${range((r) => r.webhookPerSecond, 0)}), ${f(
      m((r) => r.webSocketPerSecond),
      0,
    )} WebSocket msgs/s over the same bursts; ` +
      `the same receipt came by webhook after the WebSocket by p50 ${f(m((r) => r.webhookLaterP50))} ms, ` +
      `p99 ${f(m((r) => r.webhookLaterP99))} ms; first webhook delivery ${f(
        m((r) => median(r.firstWebhookMs)),
        0,
      )} ms after the block (WebSocket ${f(
        m((r) => median(r.firstWebSocketMs)),
        0,
      )} ms)`,
  );
  console.log(
    `median   confirmations: webhook p50 ${f(m((r) => r.webhook.confirmationP50))} ms, ` +
      `p99 ${f(m((r) => r.webhook.confirmationP99))} ms; WebSocket p50 ${f(m((r) => r.webSocket.confirmationP50))} ms, ` +
      `p99 ${f(m((r) => r.webSocket.confirmationP99))} ms`,
  );
  if (control) {
    console.log(
      `control  WebSocket alone (a clientId without webhooks, same load, alternating rounds): receipt ` +
        `p50 ${f(m((r) => r.alone.webSocket.p50))} ms, p99 ${f(m((r) => r.alone.webSocket.p99))} ms; ` +
        `the WebSocket beside a webhook over alone: p50 ${f(
          m((r) => r.webSocket.p50 / r.alone.webSocket.p50),
          2,
        )}x, p99 ${f(
          m((r) => r.webSocket.p99 / r.alone.webSocket.p99),
          2,
        )}x; ` +
        `webhook over WebSocket alone: p50 ${f(
          m((r) => r.webhook.p50 / r.alone.webSocket.p50),
          2,
        )}x, p99 ${f(
          m((r) => r.webhook.p99 / r.alone.webSocket.p99),
          2,
        )}x`,
    );
    console.log(
      `cpu      service per webhook delivery (round with the webhook less the round without, per delivery): ` +
        `median ${f(m(cpuPerHook), 3)} ms (${range(cpuPerHook, 3)}); ` +
        `service per round with/without: ${results.map((r) => `${f(r.cpuMs.service, 0)}/${f(r.alone.cpuMs.service, 0)}`).join(', ')} ms`,
    );
  }
  console.log(
    `checks   ${results.map((r) => `${r.webhookDeliveries}/${r.webSocketMessages}`).join(', ')} webhook/WebSocket messages per round; ` +
      `${results.reduce((n, r) => n + r.duplicates, 0)} duplicate deliveries, ${results.reduce((n, r) => n + r.retries, 0)} ` +
      `retries, ${results.reduce((n, r) => n + r.unsigned, 0)} unsigned`,
  );
  console.log(
    `cpu      per round with the webhook (ms): ${results
      .map((r) => `service ${f(r.cpuMs.service, 0)}, anvil ${f(r.cpuMs.node, 0)}, bench ${f(r.cpuMs.bench, 0)}`)
      .join('; ')} (${os.cpus().length} cores)`,
  );
  if (args.includes('--json'))
    console.log(JSON.stringify({ transactions: TXS, perBlock: PER_BLOCK, confirmation: CONFIRMATION, rate: RATE, rounds: results }));
}

await main();
