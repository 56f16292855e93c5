// Back-pressure is not failure (issue 45, item 5). A node that answers like a hosted provider, behind the fault proxy:
// HTTP 429 with Retry-After on one request in five, eth_getLogs over more than LOG_RANGE blocks or answering more than
// LOG_RESULTS logs refused (the indexer learns both limits and stays below them: a few refusals, not one in two). The
// service is started as a new user would (`--node`, the one-network short form) while every request still draws a 429:
// it waits instead of exiting, then catches up the whole history, and a client reading listings every 200 ms gets an
// answer every time: 503 only before anything is indexed, then 200, each exactly the listing at the block its
// Txdesk-Indexed-Block header names. Then the node goes away: the listing still answers from the index, saying so; and
// a service started again while the node is away answers from its stored index at once.
//
// The history is TOKENS mints and TOKENS moves of the same tokens: 2 x TOKENS transfers, 100,000 as the issue asks
// (TXDESK_BACK_PRESSURE_TOKENS sets TOKENS). Measured on the 2-core dev box: 113-115 s of catch-up (honouring the
// node's Retry-After: 1 on 64-69 of 389-433 requests is most of it), about 125 s and 30 CPU-s for the file now that the
// history is written in ~2 s. Most of its time is the node's pauses, in which the other test files use the cores. The
// line this test prints gives each run's figures; docs/deploy.md ("Back-pressure is not failure") has them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import type { Logger } from '../../../src/lib/log.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { BULK_PER_TX, bulkOwner, writeBulkHistory, type BulkHistory } from '../../support/chain/bulk-history.js';
import { startRpcFaults, type RpcFaults } from '../../support/faults/fault-proxy.js';
import { waitFor } from '../../support/poll.js';

const TOKENS = Number(process.env.TXDESK_BACK_PRESSURE_TOKENS ?? 50_000);
const OWNERS = 1_000;
/** The widest eth_getLogs the node answers; the history starts after empty blocks, over which the span grows past it. */
const LOG_RANGE = 8;
/**
 * The most logs one eth_getLogs may answer: one and a half blocks of the history (BULK_PER_TX transfers each, fewer
 * when the history is smaller), so a range holding two of its blocks is refused and one holding one is not.
 */
const LOG_RESULTS = (Math.min(TOKENS, BULK_PER_TX) * 3) / 2;
/**
 * Refusals the indexer may draw while it learns the two limits (each costs a request and a step; the ranges read ahead
 * with a span about to be refused are refused with it). Measured 8 to 12 over 10,000 to 100,000 transfers; without
 * the memory every sparse stretch (the empty blocks before the history, the gaps between its phases) doubles into the
 * range limit every other read.
 */
const MOST_LOG_REFUSALS = 20;
/** Owner 3 holds tokens 3, 1003, ... after the mints; the moves (shift 7) take them to owner 10 and bring it 996, 1996, ... */
const WATCHED = [3, 10];

let anvil: RunningAnvil;
let history: BulkHistory;
let node: RpcFaults;
const dirs: string[] = [];
const services: RunningService[] = [];

beforeAll(async () => {
  anvil = await startAnvil({ gasLimit: 40_000_000, blockTimeSeconds: 1 });
  await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x40'] }),
  });
  const t0 = Date.now();
  history = await writeBulkHistory(anvil.url, TOKENS, OWNERS);
  console.log(`back-pressure test: ${2 * TOKENS} transfers written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  node = await startRpcFaults(anvil.url);
}, 600_000);

afterAll(async () => {
  for (const s of services) await s.stop();
  await node?.close();
  await anvil?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log: Logger = {
    info: (m) => void lines.push(m),
    warn: (m) => void lines.push(m),
    error: (m) => void lines.push(m),
    child: () => log,
  };
  return { log, lines };
}

interface Answer {
  at: number;
  owner: number;
  status: number;
  state: string | null;
  block: number | null;
  behind: number | null;
  body: { data?: { id: string; owner: string; balance: string; contract: { address: string } }[]; pagination?: { totalCount: number } };
}

/** Reads that met a reset kept-alive socket and were sent again (see read). */
let resets = 0;

/**
 * Reads owner `i`'s listing (ids ascending, one page holds them all). A request written on a kept-alive socket just as
 * the server closes it for idleness meets a reset, and is sent again, as browsers do: the client and the service share
 * this process, so a loaded machine that stops it for 5 s makes the server's idle timer and the next read due at once.
 */
async function read(service: RunningService, clientId: string, i: number): Promise<Answer> {
  const url = `${service.url}/nft/v1/accounts/${bulkOwner(i)}/tokens?clientId=${clientId}&size=200&order_by=token_id&order_direction=asc`;
  const res = await fetch(url).catch((e: unknown) => {
    if ((e as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw e;
    resets++;
    return fetch(url);
  });
  const header = (name: string) => (res.headers.get(name) === null ? null : Number(res.headers.get(name)));
  return {
    at: Date.now(),
    owner: i,
    status: res.status,
    state: res.headers.get('txdesk-network-state'),
    block: header('txdesk-indexed-block'),
    behind: header('txdesk-indexed-behind'),
    body: (await res.json()) as Answer['body'],
  };
}

/** The answer is the listing of its owner at the block it names (no block named: nothing indexed yet), exactly. */
function expectExact(a: Answer): void {
  expect(a.status).toBe(200);
  const want = a.block === null ? [] : history.holdings(a.owner, a.block);
  expect(a.body.pagination!.totalCount).toBe(want.length);
  expect(a.body.data!.map((t) => BigInt(t.id))).toEqual(want);
  for (const t of a.body.data!) expect([t.owner, t.balance, t.contract.address]).toEqual([bulkOwner(a.owner), '1', history.contract]);
}

it('starts on a node that pushes back, catches up, and answers every listing exactly the whole time', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-back-pressure-'));
  dirs.push(dataDir);
  const { log, lines } = capturingLogger();
  node.limitLogRange(LOG_RANGE);
  node.limitLogResults(LOG_RESULTS);
  // Every request draws a 429 at first: before item 5 the service exited 1 here.
  node.pushBack({ share: 1, retryAfterS: 1, seed: 45 });
  const starting = startService({ nodeUrl: node.url, dataDir, port: 0, log });
  await waitFor('the start-up waiting for the node', () => lines.some((l) => l.includes('the service waits for it and tries again')), {
    timeoutMs: 30_000,
  });
  node.pushBack({ share: 0.2, retryAfterS: 1, seed: 45 });
  const t0 = Date.now();
  const service = await starting;
  services.push(service);
  const { clientId } = await service.accounts.createAccount({
    email: 'pressure@example.com',
    password: 'correct horse battery staple',
    name: 'P',
    organization: 'txdesk tests',
  });

  // A client reading a listing every 200 ms, the whole time.
  const answers: Answer[] = [];
  let reading = true;
  const reader = (async () => {
    for (let k = 0; reading; k++) {
      answers.push(await read(service, clientId, WATCHED[k % WATCHED.length]!));
      await new Promise((r) => setTimeout(r, 200));
    }
  })();

  const last = history.moveBlocks.at(-1)!;
  await waitFor('the catch-up through the pushing-back node', () => service.indexerStatus().indexedBlock >= last, {
    timeoutMs: 600_000,
    everyMs: 200,
  });
  const catchUpS = (Date.now() - t0) / 1000;
  // A few more reads at the head.
  await new Promise((r) => setTimeout(r, 2_000));
  reading = false;
  await reader;

  // 503 only while nothing was indexed; from the first 200 on, every answer is 200 and exact.
  const firstOk = answers.findIndex((a) => a.status === 200);
  expect(firstOk).toBeGreaterThanOrEqual(0);
  for (const a of answers.slice(0, firstOk)) {
    expect(a.status).toBe(503);
    expect(a.block).toBeNull();
  }
  for (const a of answers.slice(firstOk)) expectExact(a);
  expect(answers.slice(firstOk).every((a) => a.block === null || (a.behind !== null && a.behind >= 0))).toBe(true);
  // The reads saw the index move (not one snapshot), and the node's faults were met.
  expect(new Set(answers.map((a) => a.block)).size).toBeGreaterThan(3);
  expect(node.pushedBack()).toBeGreaterThan(10);
  expect(node.logRangeRefusals()).toBeGreaterThan(0);
  expect(node.logRangeRefusals(), 'eth_getLogs refusals: the span learns the limits instead of doubling into them').toBeLessThanOrEqual(
    MOST_LOG_REFUSALS,
  );
  console.log(
    `back-pressure test: caught up ${2 * TOKENS} transfers in ${catchUpS.toFixed(1)} s through a node answering 429 ` +
      `to ${node.pushedBack()} of ${node.requests()} requests ` +
      `(${node.logRangeRefusals()} eth_getLogs refused for their range or size); ${answers.length} listing reads (${resets} ` +
      `sent again after a reset kept-alive socket), ${firstOk} of them 503 before the first block was indexed, the rest ` +
      `200 and exact`,
  );

  // Serving, its node without a problem: polled, since a machine that stops this process past the probe timeout (3 s)
  // makes one probe a timeout for a moment, which is no back-pressure taken for failure.
  const net = await waitFor(
    'the network serving with its node and no problem',
    async () => {
      const n = ((await (await fetch(`${service.url}/health`)).json()) as any).networks[0];
      return n.state === 'serving' && n.node.nodes[0].problem === null ? n : undefined;
    },
    { timeoutMs: 30_000, everyMs: 200 },
  );
  expect(net.node.nodes[0].backPressure).toBeGreaterThan(0);
  expect(net.indexedBehindBlocks).toBeGreaterThanOrEqual(0);
  // Back-pressure is never taken for an error (a timeout while the machine stood still is another matter).
  expect(lines.filter((l) => /answered with an error|without answering/.test(l))).toEqual([]);
  const metrics = await (await fetch(`${service.url}/metrics`)).text();
  expect(metrics).toMatch(
    /txdesk_node_back_pressure_total\{platform="ethereum",network="local",index="0",url="http:\/\/127\.0\.0\.1:\d+"\} [1-9]/,
  );

  // The whole index, by the contract's listing and a sample of owners.
  const contract = (await (await fetch(`${service.url}/nft/v1/contracts/${history.contract}?clientId=${clientId}`)).json()) as {
    totalSupply: number;
  };
  expect(contract.totalSupply).toBe(TOKENS);
  for (const i of [0, 1, 499, 996, 999]) expectExact(await read(service, clientId, i));

  // The node goes away: the listing answers from the index and says so; /health says how far behind it may be.
  await node.down();
  await waitFor('the network unreachable', () => service.networks[0]!.state() === 'unreachable', { timeoutMs: 30_000 });
  const away = await read(service, clientId, 10);
  expectExact(away);
  expect(away.state).toBe('unreachable');
  const awayHealth = ((await (await fetch(`${service.url}/health`)).json()) as any).networks[0];
  expect(awayHealth.state).toBe('unreachable');
  // No head is seen while the node is away; a write already read before it went may still land: never more behind.
  expect(awayHealth.indexedBehindBlocks).toBeLessThanOrEqual(away.behind!);
  expect(Date.parse(awayHealth.headSeenAt)).toBeLessThanOrEqual(Date.now());
  await node.up();
  await waitFor('the network serving again', () => service.networks[0]!.state() === 'serving', { timeoutMs: 30_000 });

  // Started again while the node is away (no chain id to wait for with a configured network): the stored index answers.
  await service.stop();
  services.pop();
  await node.down();
  const again = await startService({
    networks: [{ platform: 'ethereum', network: 'local', nodeUrls: [node.url], chainId: 31337 }],
    dataDir,
    port: 0,
    log: capturingLogger().log,
  });
  services.push(again);
  // Starting (its node may still be in the pause the last 429 asked for) or unreachable (refused): either way, the index.
  const first = await read(again, clientId, 3);
  expectExact(first);
  expect(['starting', 'unreachable']).toContain(first.state);
  expect(first.block).toBeGreaterThanOrEqual(last);
  await waitFor('the restarted network unreachable', () => again.networks[0]!.state() === 'unreachable', { timeoutMs: 30_000 });
  const stored = await read(again, clientId, 10);
  expectExact(stored);
  expect(stored.state).toBe('unreachable');
  await node.up();
  // The catch-up's wait above allows 600 s (279 s was measured once on a box busy with other runs); the default 300 s
  // per test would cut it first.
}, 900_000);
