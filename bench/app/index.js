// bench/app: the app core on the dev chain. (1) Time from a transaction becoming stuck (the tracker's `pending`) to
// its replacement being mined, against the block time and against a transaction that needs no replacement, measured
// in the same run. (2) POST /api/tx throughput with the store on disk, against the node's own eth_sendRawTransaction
// rate and the SQLite store's insert rate on the same machine. (3) The randomized fault run (test/support/faults/fault-run.js):
// blocks from each fault to the settling of the nonces it hit, p50/p99 per fault kind, against send -> mined in a
// fault-free run of the same app in the same run. (4) eth_sendTransaction through /rpc against eth_sendRawTransaction of
// pre-signed transactions straight to anvil. (5) Under congestion, blocks from an ethers script's send to its receipt
// through txdesk against the same script sending straight to the node at the same first fee.
import autocannon from 'autocannon';
import { FetchRequest, isError, JsonRpcProvider, Wallet } from 'ethers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../../dist/core/create-core.js';
import { openTxStore } from '../../dist/core/adapters/sqlite/tx-store-sqlite.js';
import { startDevService } from '../../dist/service/index.js';
import { silentLogger } from '../../dist/lib/log.js';
import { sessionCookieName, sessionCookieValue } from '../../dist/core/adapters/http/app-server-auth.js';
import { startRpcFaults } from '../../test/support/faults/fault-proxy.js';
import { blocksToSettle, FAULT_KINDS, runFaultRun } from '../../test/support/faults/fault-run.js';

const BLOCK_TIME_S = 1;
const STUCK_TXS = Number(process.env.BENCH_APP_STUCK ?? 12);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_APP_SECONDS ?? 5);
const FAULT_TXS = Number(process.env.BENCH_APP_FAULT_TXS ?? 50);
const FAULT_SEED = Number(process.env.BENCH_APP_FAULT_SEED ?? 7);
// BENCH_APP_ONLY=rpc measures only what a tool gets from /rpc (parts 4 and 5).
const RPC_CONNECTIONS = 8;
const RPC_TXS = Number(process.env.BENCH_APP_RPC_TXS ?? 1500);
const TOOL_TXS = Number(process.env.BENCH_APP_TOOL_TXS ?? 12);
const MINED_WITHIN_BLOCKS = 20;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (ms) => `${Math.round(ms)} ms`;

async function withCore(dev, policy, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-app-'));
  const wallet = Wallet.createRandom();
  await dev.devchain.fund(wallet.address, 1000n * 10n ** 18n);
  const core = createCore({
    env: {
      NODE_ENDPOINT: dev.devchain.nodeUrl,
      TXDESK_SERVICE_URL: dev.service.url,
      CLIENT_ID: dev.clientId,
      PRIVATE_KEY: wallet.privateKey,
    },
    dataDir: dir,
    policy,
    http: { port: 0, rendererDir: join(dir, 'none') },
    log: silentLogger,
  });
  const rt = await core.start();
  try {
    return await fn(core, rt.appUrl, wallet, { authorization: `Bearer ${readFileSync(rt.apiTokenFile, 'utf8').trim()}` });
  } finally {
    await core.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sends `n` transactions and times, per nonce, stuck -> replacement mined, and send -> mined for unstuck ones. */
async function stuckToMined(dev, policy, n) {
  return withCore(dev, policy, async (core, appUrl, _wallet, auth) => {
    const sentAt = new Map();
    const pendingAt = new Map(); // nonce -> first pending
    const minedAt = new Map(); // nonce -> { at, attempt }
    core.api.onTransactionChanged((r) => {
      const now = performance.now();
      if (r.status === 'pending' && !pendingAt.has(r.nonce)) pendingAt.set(r.nonce, now);
      if ((r.status === 'receipt' || r.status === 'confirmation') && !minedAt.has(r.nonce))
        minedAt.set(r.nonce, { at: now, attempt: r.attempt });
    });
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${appUrl}/api/tx`, { method: 'POST', headers: auth });
      const rec = await res.json();
      sentAt.set(rec.nonce, performance.now());
    }
    const until = Date.now() + 180_000;
    while (minedAt.size < n && Date.now() < until) await sleep(200);
    const stuck = [];
    const direct = [];
    for (const [nonce, m] of minedAt) {
      if (m.attempt > 0 && pendingAt.has(nonce)) stuck.push(m.at - pendingAt.get(nonce));
      else direct.push(m.at - sentAt.get(nonce));
    }
    return { stuck, direct, mined: minedAt.size };
  });
}

/** The fault run against a `txdesk serve` child, and a fault-free run of the same size as its baseline. */
async function faultFigures(dev) {
  const node = await startRpcFaults(dev.devchain.nodeUrl);
  const script = fileURLToPath(new URL('../../test/support/app/core-serve-child.mjs', import.meta.url));
  const run = async (faultRate, transactions) => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-faults-'));
    const wallet = Wallet.createRandom();
    await dev.devchain.fund(wallet.address, 10n ** 18n);
    const env = {
      ...process.env,
      NODE_ENDPOINT: node.url,
      TXDESK_SERVICE_URL: dev.service.url,
      CLIENT_ID: dev.clientId,
      PLATFORM: dev.service.platform,
      NETWORK: dev.service.network,
      PRIVATE_KEY: wallet.privateKey,
      TXDESK_DATA_DIR: dir,
      TXDESK_LOG: 'silent',
    };
    try {
      return await runFaultRun({
        seed: FAULT_SEED,
        transactions,
        faultRate,
        nodeUrl: dev.devchain.nodeUrl,
        node,
        env,
        script,
        policy: { timeoutMs: 2_000, confirmations: 2 },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    const t0 = performance.now();
    const base = blocksToSettle(await run(0, Math.max(10, Math.round(FAULT_TXS / 3)))).send;
    const baseP50 = pct(base, 50);
    console.log(
      `baseline  send -> nonce mined, no faults (1 gwei, replaced when stuck): p50 ${baseP50} blocks  p99 ${pct(base, 99)} blocks  (${base.length} txs)`,
    );
    const faulted = await run(undefined, FAULT_TXS);
    const by = blocksToSettle(faulted);
    console.log(
      `fault run: ${FAULT_TXS} txs, seed ${FAULT_SEED}, ${faulted.faults.length} faults, ${faulted.starts - 1} SIGKILLs, ` +
        `every nonce settled in ${((performance.now() - t0) / 1000).toFixed(0)} s (both runs)`,
    );
    for (const k of FAULT_KINDS) {
      const xs = by[k];
      if (!xs.length) continue;
      console.log(
        `  ${k.padEnd(13)} fault -> nonce mined: p50 ${pct(xs, 50)} blocks  p99 ${pct(xs, 99)} blocks  (${xs.length} ` +
          `nonces)  p50 ratio to the baseline: ${(pct(xs, 50) / Math.max(1, baseP50)).toFixed(2)}x`,
      );
    }
  } finally {
    await node.close();
  }
}

async function main() {
  const dev = await startDevService({ port: 0, congestion: 'high', blockTimeSeconds: BLOCK_TIME_S, log: silentLogger });
  try {
    console.log(`dev chain block time: ${BLOCK_TIME_S * 1000} ms (the floor for "replacement mined" is one block after pending)`);
    if (process.env.BENCH_APP_ONLY === 'rpc') return await toolFigures(dev);

    // Baseline: a transaction priced above the congestion load is mined without any replacement.
    const base = await stuckToMined(dev, { initialFeeWei: String(3n * 10n ** 9n), timeoutMs: 10_000, confirmations: 1 }, 6);
    const baseP50 = pct(base.direct, 50);
    console.log(
      `baseline  send -> mined, no replacement needed (3 gwei):  p50 ${fmt(baseP50)}  p90 ${fmt(pct(base.direct, 90))}  (${base.direct.length} txs)`,
    );

    const r = await stuckToMined(dev, { timeoutMs: 2_000, confirmations: 1 }, STUCK_TXS);
    if (r.stuck.length === 0) throw new Error('no transaction got stuck; is the congestion load running?');
    const p50 = pct(r.stuck, 50);
    console.log(
      `stuck (tracker pending) -> replacement mined:              p50 ${fmt(p50)}  p90 ${fmt(pct(r.stuck, 90))}  ` +
        `max ${fmt(Math.max(...r.stuck))}  (${r.stuck.length} of ${STUCK_TXS} txs were stuck)`,
    );
    console.log(
      `  ratio to block time: ${(p50 / (BLOCK_TIME_S * 1000)).toFixed(2)} blocks (p50); ratio to the no-replacement baseline: ${(p50 / baseP50).toFixed(2)}x`,
    );

    if (FAULT_TXS > 0) await faultFigures(dev);

    // Throughput of POST /api/tx (sign, write-ahead store on disk, broadcast, track) with congestion off.
    dev.devchain.setCongestion('off');
    await withCore(dev, { timeoutMs: 60_000, confirmations: 1 }, async (_core, appUrl, wallet, auth) => {
      const result = await autocannon({
        url: `${appUrl}/api/tx`,
        method: 'POST',
        headers: auth,
        connections: 4,
        duration: THROUGHPUT_SECONDS,
      });
      const ok = result['2xx'];
      console.log(
        `POST /api/tx: ${(ok / THROUGHPUT_SECONDS).toFixed(0)} tx/s created  p50 ${result.latency.p50} ms  ` +
          `p99 ${result.latency.p99} ms  (${ok} ok, ${result.non2xx} non-2xx, 4 connections, ${THROUGHPUT_SECONDS} s)`,
      );

      // Baseline 1: the node alone, sequential eth_sendRawTransaction of pre-signed transactions (the core is serial per nonce too).
      const other = Wallet.createRandom();
      await dev.devchain.fund(other.address, 10n ** 18n);
      const raws = [];
      for (let i = 0; i < 300; i++)
        raws.push(
          await other.signTransaction({
            chainId: 31337,
            nonce: i,
            to: other.address,
            value: 0n,
            gasLimit: 21000n,
            gasPrice: 10n ** 9n,
            type: 0,
          }),
        );
      const t0 = performance.now();
      for (const raw of raws) {
        await fetch(dev.devchain.nodeUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }),
        });
      }
      const nodeRate = raws.length / ((performance.now() - t0) / 1000);
      console.log(
        `baseline  node eth_sendRawTransaction alone (sequential): ${nodeRate.toFixed(0)} tx/s  -> POST /api/tx ` +
          `is ${(ok / THROUGHPUT_SECONDS / nodeRate).toFixed(2)}x of it`,
      );

      // Baseline 2: the store alone, one write-ahead insert (record + raw + event) per transaction, on disk.
      const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-store-'));
      const store = openTxStore(join(dir, 'tx.db'));
      const n = 5000;
      const t1 = performance.now();
      for (let i = 0; i < n; i++) {
        const hash = `0x${i.toString(16).padStart(64, '0')}`;
        const now = new Date().toISOString();
        store.insert(
          {
            transactionHash: hash,
            from: wallet.address.toLowerCase(),
            nonce: i,
            gasPrice: '1000000000',
            txType: 'legacy',
            to: wallet.address.toLowerCase(),
            value: '0',
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
          raws[0],
          [{ kind: 'signed', summary: 'Signed.', detail: {} }],
        );
      }
      const storeRate = n / ((performance.now() - t1) / 1000);
      store.close();
      rmSync(dir, { recursive: true, force: true });
      console.log(
        `baseline  SQLite store insert alone (WAL, on disk):        ${storeRate.toFixed(0)} tx/s  -> the store ` +
          `is ${(storeRate / (ok / THROUGHPUT_SECONDS)).toFixed(0)}x faster than the whole POST`,
      );
    });

    await toolFigures(dev);
  } finally {
    await dev.stop();
  }
}

/**
 * autocannon POSTing `n` JSON-RPC requests, the i-th body made by `body(i)`, RPC_CONNECTIONS at a time; returns the
 * requests answered without error per second of the whole run.
 */
async function rpcRate(url, headers, n, body, anvilPid) {
  let i = 0;
  let errors = 0;
  const cpu0 = process.cpuUsage();
  const anvil0 = cpuMsOf(anvilPid);
  const t0 = performance.now();
  const result = await autocannon({
    url,
    method: 'POST',
    connections: RPC_CONNECTIONS,
    amount: n,
    requests: [
      {
        setupRequest: (req) => ({ ...req, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body(i++)) }),
        onResponse: (status, text) => void (status !== 200 || text.includes('"error"') ? errors++ : 0),
      },
    ],
  });
  const seconds = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(cpu0);
  // CPU per request: this process (txdesk's core and data service, and autocannon) and anvil, from /proc.
  const perTx = { self: (own.user + own.system) / 1000 / n, anvil: (cpuMsOf(anvilPid) - anvil0) / n };
  return { rate: (result['2xx'] - errors) / seconds, errors, p50: result.latency.p50, p99: result.latency.p99, perTx };
}

/** CPU milliseconds a process has used (user + system), from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * (4) eth_sendTransaction through /rpc (checks, approval gate, nonce, signing, write-ahead commit, broadcast, tracking)
 * against eth_sendRawTransaction of transactions signed beforehand, straight to anvil, at the same concurrency.
 */
async function rpcThroughput(dev) {
  dev.devchain.setCongestion('off');
  await withCore(dev, { timeoutMs: 60_000, confirmations: 1 }, async (_core, appUrl, wallet, auth) => {
    const to = Wallet.createRandom().address;
    // A configured network: the first request is approved with a standing rule, as a person would for a busy tool.
    await allowTool(appUrl, auth, { from: wallet.address, to, value: '0x1', gas: '0x5208' });
    const tool = await rpcRate(
      `${appUrl}/rpc`,
      auth,
      RPC_TXS,
      (i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_sendTransaction',
        params: [{ from: wallet.address, to, value: '0x1', gas: '0x5208' }],
      }),
      dev.devchain.anvilPid,
    );
    const other = Wallet.createRandom();
    await dev.devchain.fund(other.address, 10n ** 18n);
    const raws = [];
    for (let i = 0; i < RPC_TXS; i++) {
      raws.push(await other.signTransaction({ chainId: 31337, nonce: i, to, value: 1n, gasLimit: 21000n, gasPrice: 10n ** 9n, type: 0 }));
    }
    const bare = await rpcRate(
      dev.devchain.nodeUrl,
      {},
      RPC_TXS,
      (i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [raws[i % raws.length]] }),
      dev.devchain.anvilPid,
    );
    const cpu = (r) => `CPU per tx: this process ${r.perTx.self.toFixed(2)} ms, anvil ${r.perTx.anvil.toFixed(2)} ms`;
    console.log(
      `/rpc eth_sendTransaction: ${tool.rate.toFixed(0)} tx/s  p50 ${tool.p50} ms  p99 ${tool.p99} ms  (${tool.errors} ` +
        `errors, ${RPC_TXS} requests, ${RPC_CONNECTIONS} connections); ${cpu(tool)}`,
    );
    console.log(
      `baseline  anvil eth_sendRawTransaction of pre-signed txs:  ${bare.rate.toFixed(0)} tx/s  p50 ${bare.p50} ms  ` +
        `(${bare.errors} errors); ${cpu(bare)}  -> /rpc is ${(tool.rate / bare.rate).toFixed(2)}x of it`,
    );
  });
}

/** (4) and (5): what a tool gets from /rpc. */
async function toolFigures(dev) {
  await rpcThroughput(dev);
  dev.devchain.setCongestion('high');
  await toolSendToReceipt(dev);
}

/** Sends one eth_sendTransaction and approves it through the app page's session with a rule large enough for the run. */
async function allowTool(appUrl, auth, tx) {
  const port = Number(new URL(appUrl).port);
  const cookie = `${sessionCookieName(port)}=${sessionCookieValue(auth.authorization.slice('Bearer '.length))}`;
  const sent = fetch(`${appUrl}/rpc`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendTransaction', params: [tx] }),
  });
  for (;;) {
    const [waiting] = await (await fetch(`${appUrl}/api/approvals`, { headers: { cookie } })).json();
    if (waiting) {
      await fetch(`${appUrl}/api/approvals/${waiting.id}`, {
        method: 'POST',
        headers: { cookie, origin: appUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ approve: true, allowPerDayWei: String(10n ** 30n) }),
      });
      break;
    }
    await sleep(20);
  }
  const answer = await (await sent).json();
  if (answer.error) throw new Error(`the approved request failed: ${answer.error.message}`);
}

/**
 * (5) Under high congestion, blocks from an ethers script's send to its receipt: through txdesk's /rpc (replaced
 * until mined), against the same library sending the same call straight to the node at the same 1 gwei first fee
 * (which may never be mined): how many of N were mined within 20 blocks for each.
 */
async function toolSendToReceipt(dev) {
  const n = TOOL_TXS;
  const node = new JsonRpcProvider(dev.devchain.nodeUrl, undefined, { staticNetwork: true, pollingInterval: 250 });
  try {
    const windowEnds = async (from) => {
      while ((await node.getBlockNumber()) - from <= MINED_WITHIN_BLOCKS) await sleep(250);
      return null;
    };
    await withCore(dev, { timeoutMs: 2_000, confirmations: 1 }, async (_core, appUrl, wallet, auth) => {
      await allowTool(appUrl, auth, { from: wallet.address, to: wallet.address, value: '0x0' });
      const request = new FetchRequest(`${appUrl}/rpc`);
      request.setHeader('Authorization', auth.authorization);
      const viaTxdesk = new JsonRpcProvider(request, undefined, { staticNetwork: true, pollingInterval: 250 });
      const signer = await viaTxdesk.getSigner();
      const direct = Wallet.createRandom().connect(node);
      await dev.devchain.fund(direct.address, 10n ** 18n);
      const to = Wallet.createRandom().address;
      const run = async (send) => {
        const results = await Promise.all(
          Array.from({ length: n }, async (_, i) => {
            await sleep(i * 300);
            const from = await node.getBlockNumber();
            const tx = await send(i);
            // The library's own wait(), as docs/app.md tells a tool author: a reprice by txdesk is the call mined.
            const mined = tx.wait().catch((e) => (isError(e, 'TRANSACTION_REPLACED') && e.reason === 'repriced' ? e.receipt : null));
            const receipt = await Promise.race([mined, windowEnds(from)]);
            return receipt && receipt.blockNumber - from <= MINED_WITHIN_BLOCKS ? receipt.blockNumber - from : null;
          }),
        );
        return results.filter((b) => b !== null);
      };
      const throughTxdesk = await run(() => signer.sendTransaction({ to, value: 1n }));
      const startNonce = await node.getTransactionCount(direct.address, 'pending');
      const straight = await run((i) => direct.sendTransaction({ to, value: 1n, gasPrice: 10n ** 9n, type: 0, nonce: startNonce + i }));
      const fmtBlocks = (xs) => (xs.length ? `p50 ${pct(xs, 50)} blocks  p99 ${pct(xs, 99)} blocks` : 'none');
      console.log(`ethers send -> receipt under high congestion, 1 gwei first fee, ${n} txs:`);
      console.log(
        `  through txdesk /rpc (replaced when stuck): ${throughTxdesk.length} of ${n} mined within ${MINED_WITHIN_BLOCKS} blocks, ${fmtBlocks(throughTxdesk)}`,
      );
      console.log(
        `  straight to the node:                      ${straight.length} of ${n} mined within ${MINED_WITHIN_BLOCKS} blocks, ${fmtBlocks(straight)}`,
      );
      // Straight sends never mined are still being watched: stop that before the providers go.
      viaTxdesk.removeAllListeners();
      node.removeAllListeners();
      viaTxdesk.destroy();
    });
  } finally {
    // Not destroyed: a poll still in flight would reject inside ethers, unhandled; with no listeners left it ends.
    node.removeAllListeners();
  }
}

// Exits when done: a library's wait() on a transaction never mined (the straight sends) keeps timers of its own.
main()
  .then(() => process.exit(0))
  .catch((e) => {
    console.error(`bench/app could not measure: ${e.stack ?? e.message}`);
    process.exit(1);
  });
