// A randomized fault run against the app (a `txdesk serve`-like child process) on a congested dev chain: a seeded
// PRNG mixes sends with node refusals, dropped transactions, reorganisations, node restarts that lose the pool, and
// SIGKILLs of the app; then it waits until every nonce settles. Shared by the fault-run test and bench/app, which
// reads the blocks from each fault to the settling of the nonces it hit. Plain ESM, with fault-run.d.ts.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { stallAwareDeadline } from '../poll.js';
import { prng } from '../prng.js';
import { waitFor } from '../poll.js';

export const FAULT_KINDS = ['refusal', 'drop', 'drop-all', 'reorg', 'node-restart', 'app-kill'];
/** The deepest reorganisation the run makes (anvil_reorg depth 1 to this). */
export const MAX_REORG_DEPTH = 3;
const REFUSALS = ['txpool is full', 'exceeds block gas limit', 'insufficient funds for gas * price + value'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function rpcCall(url, method, params = []) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * Starts the app child (`script` prints one ready JSON line) and resolves with its URL and a way to kill it. Its
 * stderr is appended to `log`, which one run shares across restarts.
 */
async function startApp(script, env, policy, log) {
  const child = spawn(process.execPath, [script, JSON.stringify(policy)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', (b) => log.push(String(b)));
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the app exited (${code}) before ready:\n${log.join('').slice(-3000)}`)));
  });
  const exited = new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
  const ready = JSON.parse(line);
  return {
    url: ready.apiUrl,
    auth: { authorization: `Bearer ${readFileSync(ready.apiTokenFile, 'utf8').trim()}` },
    log,
    async kill(signal = 'SIGKILL') {
      child.kill(signal);
      await exited;
    },
  };
}

/**
 * Runs the fault mix. `o`: { seed, transactions, nodeUrl (the real node, for anvil_* calls), node (startRpcFaults
 * proxy the app uses), env (the app's environment, pointing at the proxy), script, policy, settleTimeoutMs, faultRate
 * (share of steps that are faults, default 0.38; 0 for a fault-free baseline) }.
 * Returns the acknowledged hashes, the final records, every fault with the block it happened at and the nonces open
 * then, and the number of app starts.
 */
export async function runFaultRun(o) {
  const rnd = prng(o.seed);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  // Faults come from a shuffled deck of every kind, so each kind happens about equally often in any run.
  let deck = [];
  const nextFault = () => {
    if (deck.length === 0)
      deck = FAULT_KINDS.map((k) => [rnd(), k])
        .sort((a, b) => a[0] - b[0])
        .map(([, k]) => k);
    return deck.pop();
  };
  const head = async () => Number(BigInt(await rpcCall(o.nodeUrl, 'eth_blockNumber')));
  // A reorganisation rebuilds state from its fork block: what the caller set up just before (the sender's funds, set
  // with anvil_setBalance) would vanish with it, and the run would test an empty account. Start below every reorg.
  const setUpAt = await head();
  await waitFor(
    `block ${setUpAt + MAX_REORG_DEPTH + 1} (the set-up below any reorganisation)`,
    async () => (await head()) > setUpAt + MAX_REORG_DEPTH,
    { timeoutMs: 60_000, everyMs: 200 },
  );
  const acknowledged = new Set();
  const faults = [];
  const sends = [];
  const faultRate = o.faultRate ?? 0.38;
  const log = [];
  let app = await startApp(o.script, o.env, o.policy, log);
  let starts = 1;
  const list = async () => await (await fetch(`${app.url}/api/tx`, { headers: app.auth })).json();
  const openNonces = async () => {
    const recs = await list().catch(() => []);
    const done = new Set(recs.filter((r) => r.status === 'receipt' || r.status === 'confirmation').map((r) => r.nonce));
    return [...new Set(recs.map((r) => r.nonce))].filter((n) => !done.has(n));
  };
  const note = async (kind) => faults.push({ kind, block: await head(), nonces: await openNonces() });

  while (acknowledged.size < o.transactions) {
    const roll = rnd();
    if (roll >= faultRate) {
      const res = await fetch(`${app.url}/api/tx`, { method: 'POST', headers: app.auth }).catch(() => null);
      if (res?.status === 201) {
        const rec = await res.json();
        acknowledged.add(rec.transactionHash);
        sends.push({ nonce: rec.nonce, block: await head() });
      }
    } else {
      const kind = nextFault();
      await note(kind);
      if (kind === 'refusal') o.node.refuseSends(1 + Math.floor(rnd() * 3), pick(REFUSALS));
      else if (kind === 'drop') {
        const open = (await list()).filter((r) => !r.status || r.status === 'pending');
        if (open.length) await rpcCall(o.nodeUrl, 'anvil_dropTransaction', [pick(open).transactionHash]);
      } else if (kind === 'drop-all') await rpcCall(o.nodeUrl, 'anvil_dropAllTransactions');
      else if (kind === 'reorg') await rpcCall(o.nodeUrl, 'anvil_reorg', [1 + Math.floor(rnd() * MAX_REORG_DEPTH), []]);
      else if (kind === 'node-restart') {
        // What the app sees of a node restart: connections refused for a while, then a node with an empty pool.
        await o.node.down();
        await rpcCall(o.nodeUrl, 'anvil_dropAllTransactions');
        await sleep(500 + rnd() * 2_500);
        await o.node.up();
      } else {
        await app.kill('SIGKILL');
        log.push('--- app killed (SIGKILL) and started again ---\n');
        app = await startApp(o.script, o.env, o.policy, log);
        starts++;
      }
    }
    await sleep(50 + rnd() * 600);
  }

  const deadline = stallAwareDeadline(o.settleTimeoutMs ?? 240_000);
  // The chain's head while waiting: a failure says whether blocks kept coming.
  let lastHead = { block: -1, since: Date.now() };
  try {
    for (;;) {
      const recs = await list();
      const open = unsettledNonces(recs);
      if (open.size === 0) {
        await app.kill('SIGTERM');
        return { acknowledged, records: recs, faults, sends, starts };
      }
      const block = await head().catch(() => -1);
      if (block !== lastHead.block) lastHead = { block, since: Date.now() };
      if (deadline.passed()) {
        await app.kill('SIGTERM');
        const chain = `head block ${lastHead.block}, unchanged for ${Math.round((Date.now() - lastHead.since) / 1000)} s`;
        throw new Error(
          `${open.size} nonce(s) never settled: ${[...open].join(', ')}; ${chain}\n${whyOpen(recs, open, faults, log.join(''))}`,
        );
      }
      await sleep(500);
    }
  } finally {
    deadline.stop();
  }
}

/**
 * What a failed run shows: the records of the lowest open nonce (the one the others wait for), the faults that found
 * it open, what the app logged about it, and the log's tail.
 */
function whyOpen(records, open, faults, log) {
  const lowest = Math.min(...open);
  const hitBy = faults.filter((f) => f.nonces.includes(lowest)).map((f) => `${f.kind}@${f.block}`);
  const recs = records
    .filter((r) => r.nonce === lowest)
    .map((r) =>
      JSON.stringify({
        hash: r.transactionHash,
        status: r.status,
        gasPrice: r.gasPrice,
        replaces: r.replaces,
        replacedBy: r.replacedBy,
        problem: r.problem,
      }),
    );
  const lines = log.split('\n').filter((l) => l.includes(`nonce ${lowest}`) || /watchdog|block \d+:/.test(l));
  return [
    `records of nonce ${lowest}:`,
    ...recs,
    `faults while it was open: ${hitBy.join(' ') || 'none'}`,
    `log about it:`,
    ...lines.slice(-40),
    'log tail:',
    log.slice(-2500),
  ].join('\n');
}

/** The nonces of `records` that no confirmed record settles yet (every nonce settled: an empty set). */
export function unsettledNonces(records) {
  const open = new Set(records.map((r) => r.nonce));
  for (const r of records) if (r.status === 'confirmation') open.delete(r.nonce);
  return open;
}

/**
 * Blocks from each fault to the mining of every nonce it found open, per fault kind, and (`send`) from each send to
 * the mining of its nonce, from the final records.
 */
export function blocksToSettle(run) {
  const minedAt = new Map();
  for (const r of run.records) if (r.status === 'confirmation') minedAt.set(r.nonce, Number(r.data.blockNumber));
  const out = Object.fromEntries(['send', ...FAULT_KINDS].map((k) => [k, []]));
  for (const f of run.faults) for (const n of f.nonces) if (minedAt.has(n)) out[f.kind].push(Math.max(0, minedAt.get(n) - f.block));
  for (const s of run.sends) if (minedAt.has(s.nonce)) out.send.push(Math.max(0, minedAt.get(s.nonce) - s.block));
  return out;
}
