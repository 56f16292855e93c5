// One data service on two dev chains with different chain ids: listings per network that match each chain, the
// tracker SDK on the second network, refusals that list the networks served, and one node going away while the
// other network goes on (its node reached through a TCP proxy that can refuse, as a stopped node does).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, JsonRpcProvider, Wallet } from 'ethers';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_CHAIN_ID, DEV_CHAIN_ID_2, startDevchain, type Devchain } from '../../../src/devchain/devchain.js';
import { silentLogger, type Logger } from '../../../src/lib/log.js';
import { TransactionTracker, type TrackerMessage } from '@txdesk/tracker';
import { startService, type RunningService } from '../../../src/service/index.js';
import { startTcpProxy, type TcpProxy } from '../../support/faults/fault-proxy.js';
import { DEV_KEYS, sendTransfer } from '../../support/service/tracker-harness.js';
import { waitFor } from '../../support/poll.js';

let chains: Devchain[] = [];
let proxies: TcpProxy[] = [];
let service: RunningService;
let clientId: string;
let dataDir: string;
const trackers: TransactionTracker[] = [];
const erc721 = new Interface(['function balanceOf(address) view returns (uint256)']);

beforeAll(async () => {
  chains = await Promise.all(
    [DEV_CHAIN_ID, DEV_CHAIN_ID_2].map((chainId) => startDevchain({ chainId, blockTimeSeconds: 1, progress: false, log: silentLogger })),
  );
  proxies = await Promise.all(chains.map((c) => startTcpProxy(c.nodeUrl)));
  dataDir = mkdtempSync(join(tmpdir(), 'txdesk-networks-'));
  service = await startService({
    networks: [
      { platform: 'ethereum', network: 'local', nodeUrls: [proxies[0]!.url], chainId: DEV_CHAIN_ID, indexerLag: 0 },
      { platform: 'ethereum', network: 'local-2', nodeUrls: [proxies[1]!.url], chainId: DEV_CHAIN_ID_2, indexerLag: 0 },
    ],
    dataDir,
    port: 0,
    openSignup: true,
    minAckTimeoutMs: 300,
    probeMs: 200,
    probeTimeoutMs: 1_000,
    log: silentLogger,
  });
  clientId = (
    await service.accounts.createAccount({
      email: 'networks@example.com',
      password: 'correct horse battery staple',
      name: 'Networks',
      organization: 'txdesk tests',
    })
  ).clientId;
}, 120_000);

afterAll(async () => {
  for (const t of trackers) await t.close();
  await service?.stop();
  for (const p of proxies) await p.close();
  for (const c of chains) await c.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const get = async (path: string) => {
  const res = await fetch(service.url + path);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};
const tokensOf = (prefix: string, owner: string, query = '') => get(`${prefix}/accounts/${owner}/tokens?clientId=${clientId}${query}`);
const tiles = (c: Devchain) => c.collections.find((x) => x.kind === 'full')!.address;
async function balanceOnChain(c: Devchain, owner: string): Promise<number> {
  const provider = new JsonRpcProvider(c.nodeUrl, undefined, { staticNetwork: true });
  try {
    return Number(
      erc721.decodeFunctionResult(
        'balanceOf',
        await provider.call({ to: tiles(c), data: erc721.encodeFunctionData('balanceOf', [owner]) }),
      )[0],
    );
  } finally {
    provider.destroy();
  }
}
/** One sample of the service's /metrics, read with a real Prometheus text parser; undefined when absent. */
async function metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample?.value === undefined ? undefined : Number(sample.value);
}
const net = (network: string) => ({ platform: 'ethereum', network });

const tileCount = async (prefix: string, owner: string) =>
  (await tokensOf(prefix, owner, `&contractAddresses=${tiles(chains[0]!)}`)).body.pagination?.totalCount;

function tracker(network: string): TransactionTracker {
  const t = new TransactionTracker(clientId, { platform: 'ethereum', network, url: service.url, minAckTimeout: 300, maxBackoffMs: 500 });
  trackers.push(t);
  return t;
}

/** Sends a transfer on `chain` and resolves with the receipt message the tracker of `network` delivers for it. */
async function trackOn(chain: Devchain, network: string, key: string): Promise<TrackerMessage> {
  const t = tracker(network);
  const seen: TrackerMessage[] = [];
  const sub = t.subscribe('transaction', { subscriptionId: `s-${network}-${seen.length}-${Math.random()}`, ackTimeout: 10_000 });
  sub.on('message', (m) => {
    seen.push(m);
    void m.ack();
  });
  await sub.ready;
  const provider = new JsonRpcProvider(chain.nodeUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  try {
    const tx = await sendTransfer(new Wallet(key, provider), { chainId: chain.chainId });
    await t.trackTransaction(tx.hash, { timeout: 60_000, confirmation: 1 });
    return await waitFor(
      `a receipt on ${network}`,
      () => seen.find((m) => m.data.type === 'receipt' && m.data.result.transactionHash === tx.hash),
      { timeoutMs: 30_000 },
    );
  } finally {
    provider.destroy();
  }
}

describe('one service, two networks', () => {
  it('lists both networks with their chain ids, the first as the default', async () => {
    const { status, body } = await get('/nft/v1/networks');
    expect(status).toBe(200);
    expect(body.data.map((n: any) => [n.platform, n.network, n.chainId, n.default, n.state])).toEqual([
      ['ethereum', 'local', DEV_CHAIN_ID, true, 'serving'],
      ['ethereum', 'local-2', DEV_CHAIN_ID_2, false, 'serving'],
    ]);
    const health = await get('/health');
    expect(health.body.chainId).toBe(DEV_CHAIN_ID);
    expect(health.body.networks.map((n: any) => [n.network, n.node.inUse, n.roles])).toEqual([
      ['local', 0, ['indexer-leader', 'watcher-leader']],
      ['local-2', 0, ['indexer-leader', 'watcher-leader']],
    ]);
  });

  it('lists the same address differently per network, each matching its chain; page links keep the network', async () => {
    const owner = Wallet.createRandom().address.toLowerCase();
    await chains[0]!.giveTokens(owner, 2);
    await chains[1]!.giveTokens(owner, 5);
    await waitFor(
      'both listings',
      async () => (await tileCount('/nft/v1/ethereum/local-2', owner)) === 5 && (await tileCount('/nft/v1/ethereum/local', owner)) === 2,
      { timeoutMs: 30_000 },
    );
    expect(await balanceOnChain(chains[0]!, owner)).toBe(2);
    expect(await balanceOnChain(chains[1]!, owner)).toBe(5);
    // The seed's path is the default network's.
    expect((await tokensOf('/nft/v1', owner)).body.data).toEqual((await tokensOf('/nft/v1/ethereum/local', owner)).body.data);
    const page = await tokensOf('/nft/v1/ethereum/local-2', owner, '&size=2');
    expect(page.body.data).toHaveLength(2);
    expect(page.body.pagination.nextUrl).toContain(`/nft/v1/ethereum/local-2/accounts/${owner}/tokens?page=1&size=2`);
    const seedPage = await tokensOf('/nft/v1', owner, '&size=1');
    expect(seedPage.body.pagination.nextUrl).toContain(`${service.url}/nft/v1/accounts/${owner}/tokens?page=1&size=1`);
  });

  it('tracks a transaction on the second network through the SDK', async () => {
    const receipt = await trackOn(chains[1]!, 'local-2', DEV_KEYS[9]!);
    expect(receipt.data.result.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('refuses a network it does not serve, listing those it does', async () => {
    const t = tracker('local-3');
    await expect(t.connect()).rejects.toThrow('This service does not track ethereum/local-3; it tracks ethereum/local, ethereum/local-2');
    const listing = await tokensOf('/nft/v1/ethereum/local-3', '0x' + '1'.repeat(40));
    expect(listing.status).toBe(404);
    expect(listing.body.error.message).toBe(
      'This service does not serve ethereum/local-3; it serves ethereum/local, ethereum/local-2 (GET /nft/v1/networks lists them).',
    );
  });

  it('reports a network whose node stops as unreachable while the other goes on, and catches up with nothing skipped', async () => {
    const owner = Wallet.createRandom().address.toLowerCase();
    await chains[1]!.giveTokens(owner, 1);
    await waitFor('the first token', async () => (await tileCount('/nft/v1/ethereum/local-2', owner)) === 1, { timeoutMs: 30_000 });

    await proxies[1]!.down();
    await waitFor('local-2 unreachable', async () => (await get('/nft/v1/networks')).body.data[1].state === 'unreachable', {
      timeoutMs: 10_000,
    });
    // The listing answers from what is indexed, and says that no node can be used and how far behind it may be.
    const stale = await tokensOf('/nft/v1/ethereum/local-2', owner);
    expect(stale.status).toBe(200);
    expect(stale.body.pagination.totalCount).toBe(1);
    expect(stale.headers.get('txdesk-network-state')).toBe('unreachable');
    expect(Number(stale.headers.get('txdesk-indexed-block'))).toBeGreaterThan(0);
    expect(Number(stale.headers.get('txdesk-indexed-behind'))).toBeGreaterThanOrEqual(0);
    const health = (await get('/health')).body.networks[1];
    expect(health.state).toBe('unreachable');
    // No head is seen while the node is away; a write already read before it went may still land: never more behind.
    expect(health.indexedBehindBlocks).toBeLessThanOrEqual(Number(stale.headers.get('txdesk-indexed-behind')));
    expect(await metric('txdesk_network_up', net('local-2'))).toBe(0);
    expect(await metric('txdesk_network_up', net('local'))).toBe(1);
    expect(await metric('txdesk_node_errors_total', { ...net('local-2'), kind: 'refused' })).toBeGreaterThan(0);

    // Meanwhile the chain goes on (minted straight at the node, not through the proxy), and so does the other network.
    await chains[1]!.giveTokens(owner, 3);
    await chains[0]!.giveTokens(owner, 1);
    await waitFor('local indexing on', async () => (await tileCount('/nft/v1/ethereum/local', owner)) === 1, { timeoutMs: 30_000 });
    await trackOn(chains[0]!, 'local', DEV_KEYS[10]!);
    expect((await get('/nft/v1/networks')).body.data[0].state).toBe('serving');

    await proxies[1]!.up();
    await waitFor('local-2 caught up', async () => (await tileCount('/nft/v1/ethereum/local-2', owner)) === 4, { timeoutMs: 30_000 });
    expect(await balanceOnChain(chains[1]!, owner)).toBe(4);
    expect((await get('/nft/v1/networks')).body.data[1].state).toBe('serving');
    // The index lag on /metrics follows the node back: the head seen again, the blocks mined meanwhile indexed.
    const head = Number(await new JsonRpcProvider(chains[1]!.nodeUrl, undefined, { staticNetwork: true }).getBlockNumber());
    await waitFor(
      'local-2 lag back to 0',
      async () =>
        ((await metric('txdesk_indexed_block', net('local-2'))) ?? 0) >= head &&
        (await metric('txdesk_index_lag_blocks', net('local-2'))) === 0,
      { timeoutMs: 20_000 },
    );
    expect(await metric('txdesk_network_up', net('local-2'))).toBe(1);
  });

  it('stops a network whose node is on another chain with one line naming it, and serves the others', async () => {
    const lines: string[] = [];
    const log: Logger = { info: () => {}, warn: (m) => void lines.push(m), error: (m) => void lines.push(m), child: () => log };
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-networks-wrong-'));
    const mixed = await startService({
      networks: [
        { platform: 'ethereum', network: 'local', nodeUrls: [chains[0]!.nodeUrl], chainId: DEV_CHAIN_ID, indexerLag: 0 },
        // Configured as chain 31337, but its only node is the chain 31338 one.
        { platform: 'ethereum', network: 'wrong', nodeUrls: [chains[1]!.nodeUrl], chainId: DEV_CHAIN_ID, indexerLag: 0 },
      ],
      dataDir: dir,
      port: 0,
      probeMs: 200,
      log,
    });
    try {
      const list = (await (await fetch(`${mixed.url}/nft/v1/networks`)).json()) as any;
      expect(list.data.map((n: any) => [n.network, n.state])).toEqual([
        ['local', 'serving'],
        ['wrong', 'wrong-chain'],
      ]);
      await new Promise((r) => setTimeout(r, 1_000));
      const about = lines.filter((l) => l.includes('ethereum/wrong'));
      expect(about).toHaveLength(1);
      expect(about[0]).toContain(`is on chain ${DEV_CHAIN_ID_2}, not ${DEV_CHAIN_ID}`);
      const own = (
        await mixed.accounts.createAccount({
          email: 'wrong@example.com',
          password: 'correct horse battery staple',
          name: 'W',
          organization: 'txdesk tests',
        })
      ).clientId;
      const refused = await fetch(`${mixed.url}/nft/v1/ethereum/wrong/accounts/${'0x' + '2'.repeat(40)}/tokens?clientId=${own}`);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as any).error.message).toMatch(
        /^The network ethereum\/wrong is stopped \(.*is on chain 31338, not 31337/,
      );
      expect((await fetch(`${mixed.url}/nft/v1/accounts/${'0x' + '2'.repeat(40)}/tokens?clientId=${own}`)).status).toBe(200);
    } finally {
      await mixed.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops a network whose stored state belongs to another chain, naming the file', async () => {
    const lines: string[] = [];
    const log: Logger = { info: () => {}, warn: (m) => void lines.push(m), error: (m) => void lines.push(m), child: () => log };
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-networks-identity-'));
    const once = (nodeUrl: string) =>
      startService({
        networks: [{ platform: 'ethereum', network: 'local', nodeUrls: [nodeUrl], indexerLag: 0 }],
        dataDir: dir,
        port: 0,
        probeMs: 200,
        log,
      });
    try {
      await (await once(chains[0]!.nodeUrl)).stop();
      // The same data dir, now pointed at the other chain: refused at start, since no network could be served.
      await expect(once(chains[1]!.nodeUrl)).rejects.toThrow(
        `No network could be started: ethereum/local: its stored state belongs to ethereum/local (chain ${DEV_CHAIN_ID}) ` +
          `but its node is on chain ${DEV_CHAIN_ID_2}; the operator must fix the node URL or the store and restart`,
      );
      // The log names the file; what clients can see does not.
      expect(
        lines.filter(
          (l) =>
            l ===
            `ethereum/local: service.sqlite in ${dir} holds the state of ethereum/local (chain ${DEV_CHAIN_ID}), but this ` +
              `network's node is on chain ${DEV_CHAIN_ID_2}; point the network at a node of chain ${DEV_CHAIN_ID}, or give ` +
              `it a fresh data dir or database.`,
        ),
      ).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pauses the indexer when its node comes back on another chain, and resumes when the right chain answers again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-networks-swap-'));
    let node = await startTcpProxy(chains[0]!.nodeUrl);
    const port = node.port;
    const one = await startService({
      networks: [{ platform: 'ethereum', network: 'local', nodeUrls: [node.url], indexerLag: 0 }],
      dataDir: dir,
      port: 0,
      probeMs: 150,
      probeTimeoutMs: 1_000,
      log: silentLogger,
    });
    const own = (
      await one.accounts.createAccount({
        email: 'swap@example.com',
        password: 'correct horse battery staple',
        name: 'S',
        organization: 'txdesk tests',
      })
    ).clientId;
    const owner = Wallet.createRandom().address.toLowerCase();
    const count = async () =>
      ((await (await fetch(`${one.url}/nft/v1/accounts/${owner}/tokens?clientId=${own}`)).json()) as any).pagination?.totalCount;
    try {
      await chains[0]!.giveTokens(owner, 1);
      await waitFor('the first token', async () => (await count()) === 1, { timeoutMs: 30_000 });
      // The same address now answers for chain 31338: a node replaced by one of another chain.
      await node.down(); // cuts the open connections too
      await node.close();
      // Gone first, then back on another chain: the pause must follow the change of state alone, the node in use
      // (none) staying the same (a swap fast enough to skip the gap changed both at once and hid that).
      await waitFor('the node noticed gone', () => one.networks[0]!.state() === 'unreachable', { timeoutMs: 30_000 });
      node = await startTcpProxy(chains[1]!.nodeUrl, port);
      await waitFor('the other chain noticed', () => one.networks[0]!.state() === 'wrong-chain', { timeoutMs: 30_000 });
      await waitFor('the indexer paused', () => one.networks[0]!.indexerStatus().headBlock === 0, { timeoutMs: 30_000 });
      await chains[1]!.giveTokens(owner, 2);
      // Mined while paused, on the wrong chain: never indexed (the count below stays at chain 31337's two).

      await node.down();
      await node.close();
      node = await startTcpProxy(chains[0]!.nodeUrl, port);
      await chains[0]!.giveTokens(owner, 1);
      await waitFor('indexing on the right chain again', async () => one.networks[0]!.state() === 'serving' && (await count()) === 2, {
        timeoutMs: 30_000,
      });
      expect(await balanceOnChain(chains[0]!, owner)).toBe(2);
    } finally {
      await one.stop();
      await node.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
