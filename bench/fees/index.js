// bench/fees: how well four fee strategies get transactions mined on the dev chain's simulated market (`--congestion
// market`: EIP-1559 base fee, calm/rush/spike load with seeded tips), one run, the same arrival schedule for each.
// Strategies, each from its own funded account: txdesk's market policy (speed normal), txdesk's seed preset, an ethers
// v6 Wallet with its defaults (getFeeData) and a viem wallet client with its defaults (estimateFeesPerGas); ethers and
// viem are never replaced, as their users get. Per strategy and phase: blocks to inclusion p50/p95/max, the share not
// mined within 20 blocks, replacements per transaction, and the price paid over the cheapest price its block included.
// BENCH_FEES_CYCLES (default 3) market cycles of 60 blocks; a send every BENCH_FEES_EVERY (default 3) blocks.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { createWalletClient, defineChain, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createCore } from '../../dist/core/create-core.js';
import { phaseAt } from '../../dist/devchain/devchain.js';
import { silentLogger } from '../../dist/lib/log.js';
import { startDevService } from '../../dist/service/index.js';

const CYCLES = Number(process.env.BENCH_FEES_CYCLES ?? 3);
const EVERY = Number(process.env.BENCH_FEES_EVERY ?? 3);
const WITHIN = 20;
const PHASES = ['calm', 'rush', 'spike'];
const ETH = 10n ** 18n;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (m) => console.error(`[fees] ${m}`);
const pct = (xs, p) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

const dev = await startDevService({ port: 0, congestion: 'market', blockTimeSeconds: 1, secondChain: false, log: silentLogger });
const nodeUrl = dev.devchain.nodeUrl;
const schedule = dev.devchain.market?.schedule;
if (!schedule) throw new Error('this dev chain has no market schedule: build the current sources (npm run build).');
const rpc = async (method, params = []) => {
  const res = await fetch(nodeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
};
const head = async () => Number(BigInt(await rpc('eth_blockNumber')));
const to = '0x' + 'fe'.repeat(20);

/** A txdesk core on the dev chain with `policy`, from a funded key of its own; sends through POST /api/tx. */
async function txdeskStrategy(name, policy) {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-fees-'));
  const wallet = Wallet.createRandom();
  await dev.devchain.fund(wallet.address, 1000n * ETH);
  const core = createCore({
    env: {
      NODE_ENDPOINT: nodeUrl,
      TXDESK_SERVICE_URL: dev.service.url,
      CLIENT_ID: dev.clientId,
      PRIVATE_KEY: wallet.privateKey,
      TXDESK_KEYCHAIN: 'off',
    },
    dataDir: dir,
    policy: { confirmations: 1, maxReplacements: 20, maxFeeWei: String(1000n * 10n ** 9n), ...policy },
    http: { port: 0, rendererDir: join(dir, 'none') },
    log: silentLogger,
  });
  const rt = await core.start();
  const headers = { authorization: `Bearer ${readFileSync(rt.apiTokenFile, 'utf8').trim()}`, 'content-type': 'application/json' };
  const api = async (method, path, body) =>
    (await fetch(`${rt.appUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json();
  return {
    name,
    async send() {
      const r = await api('POST', '/api/tx', { to, value: '1' });
      if (!r.transactionHash) throw new Error(`${name}: ${JSON.stringify(r)}`);
      return { nonce: r.nonce };
    },
    /** The mined attempt of the nonce (hash, attempt), or null while none is. */
    async mined(sent) {
      const records = (await api('GET', '/api/tx')).filter((r) => r.nonce === sent.nonce);
      const m = records.find((r) => r.status === 'receipt' || r.status === 'confirmation');
      return m ? { hash: m.transactionHash, replacements: m.attempt } : null;
    },
    async stop() {
      await core.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A library sending straight to the node with its own default fees; never replaced. */
async function libraryStrategy(name, makeSend) {
  const wallet = Wallet.createRandom();
  await dev.devchain.fund(wallet.address, 1000n * ETH);
  const { send, stop } = await makeSend(wallet.privateKey);
  return {
    name,
    async send() {
      return { hash: await send() };
    },
    async mined(sent) {
      const r = await rpc('eth_getTransactionReceipt', [sent.hash]);
      return r ? { hash: sent.hash, replacements: 0 } : null;
    },
    stop,
  };
}

const ethersStrategy = () =>
  libraryStrategy('ethers v6 defaults', async (key) => {
    const provider = new JsonRpcProvider(nodeUrl, undefined, { staticNetwork: true, pollingInterval: 250 });
    const wallet = new Wallet(key, provider);
    // The nonce kept here: sends overlap, and ethers reads the pending count each time.
    let nonce = await provider.getTransactionCount(wallet.address, 'pending');
    return {
      send: async () => (await wallet.sendTransaction({ to, value: 1n, nonce: nonce++ })).hash,
      stop: async () => provider.destroy(),
    };
  });

const viemStrategy = () =>
  libraryStrategy('viem defaults', async (key) => {
    const chainId = Number(BigInt(await rpc('eth_chainId')));
    const chain = defineChain({
      id: chainId,
      name: 'dev',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [nodeUrl] } },
    });
    const account = privateKeyToAccount(key);
    const client = createWalletClient({ account, chain, transport: http(nodeUrl) }).extend(publicActions);
    let nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
    return { send: async () => client.sendTransaction({ to, value: 1n, nonce: nonce++ }), stop: async () => {} };
  });

/** What a transaction paid per gas in a block with base fee `base`. */
const paid = (tx, base) => {
  const price = BigInt(tx.gasPrice ?? '0x0');
  if (tx.maxFeePerGas === undefined || tx.type === '0x0') return price;
  const max = BigInt(tx.maxFeePerGas);
  const tip = BigInt(tx.maxPriorityFeePerGas);
  return max < base + tip ? max : base + tip;
};

/** The price a mined transaction paid over the cheapest price its block included. */
async function overCheapest(hash) {
  const r = await rpc('eth_getTransactionReceipt', [hash]);
  const block = await rpc('eth_getBlockByNumber', [r.blockNumber, true]);
  const base = BigInt(block.baseFeePerGas ?? '0x0');
  const prices = block.transactions.map((t) => paid(t, base));
  const cheapest = prices.reduce((a, b) => (b < a ? b : a));
  const mine = paid(
    block.transactions.find((t) => t.hash === hash),
    base,
  );
  return { block: Number(BigInt(r.blockNumber)), ratio: Number((mine * 10_000n) / cheapest) / 10_000 };
}

const strategies = [
  await txdeskStrategy('txdesk market (normal)', { pricing: 'market', speed: 'normal', timeoutMs: 600_000 }),
  await txdeskStrategy('txdesk seed preset', { pricing: 'seed', timeoutMs: 10_000 }),
  await ethersStrategy(),
  await viemStrategy(),
];

// Start at the next cycle's first calm block, so every run sees the same phases in the same order.
const cycle = schedule.calm + schedule.rush + schedule.spike;
let start = (await head()) + 1;
start += (cycle - (start % cycle)) % cycle;
log(
  `waiting for block ${start} (cycle of ${cycle} blocks: ${schedule.calm} calm, ${schedule.rush} rush, ${schedule.spike} ` +
    `spike); ${CYCLES} cycles, a send every ${EVERY} blocks`,
);
while ((await head()) < start) await sleep(200);

const sends = [];
const end = start + CYCLES * cycle;
let lastSent = -1;
while (true) {
  const b = await head();
  if (b >= end) break;
  if (b !== lastSent && (b - start) % EVERY === 0) {
    lastSent = b;
    const phase = phaseAt(b + 1, schedule);
    const results = await Promise.all(strategies.map(async (s) => ({ s, sent: await s.send() })));
    for (const { s, sent } of results) sends.push({ strategy: s.name, phase, atBlock: b, sent, mined: null });
  }
  await sleep(150);
}
log(`${sends.length} transactions sent; waiting up to ${WITHIN} blocks for each`);
const giveUp = end + WITHIN + 2;
while ((await head()) < giveUp && sends.some((x) => !x.mined)) {
  for (const x of sends.filter((y) => !y.mined)) {
    const s = strategies.find((y) => y.name === x.strategy);
    const m = await s.mined(x.sent);
    if (m) x.mined = { ...m, ...(await overCheapest(m.hash)) };
  }
  await sleep(500);
}

const rows = [];
for (const s of strategies) {
  for (const phase of PHASES) {
    const xs = sends.filter((x) => x.strategy === s.name && x.phase === phase);
    if (xs.length === 0) continue;
    const blocks = xs.filter((x) => x.mined).map((x) => x.mined.block - x.atBlock);
    const within = xs.filter((x) => x.mined && x.mined.block - x.atBlock <= WITHIN).length;
    const ratios = xs.filter((x) => x.mined).map((x) => x.mined.ratio);
    rows.push({
      strategy: s.name,
      phase,
      n: xs.length,
      p50: pct(blocks, 50),
      p95: pct(blocks, 95),
      max: blocks.length ? Math.max(...blocks) : null,
      notMined: `${Math.round((100 * (xs.length - within)) / xs.length)}%`,
      replacements: (xs.reduce((a, x) => a + (x.mined?.replacements ?? 0), 0) / xs.length).toFixed(2),
      paidP50: pct(ratios, 50)?.toFixed(2) ?? '-',
      paidP95: pct(ratios, 95)?.toFixed(2) ?? '-',
    });
  }
}
console.log(
  `bench/fees ${new Date().toISOString().slice(0, 10)}, ${CYCLES} cycles, a send every ${EVERY} blocks per strategy; blocks ` +
    `to inclusion counted from the head when sent`,
);
console.log('| strategy | phase | n | blocks p50 | p95 | max | not mined in 20 | replacements/tx | paid / cheapest in block p50 | p95 |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.strategy} | ${r.phase} | ${r.n} | ${r.p50 ?? '-'} | ${r.p95 ?? '-'} | ${r.max ?? '-'} | ${r.notMined} ` +
      `| ${r.replacements} | ${r.paidP50} | ${r.paidP95} |`,
  );

for (const s of strategies) await s.stop();
await dev.stop();
process.exit(0);
