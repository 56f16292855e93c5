// The node watch against real anvil nodes: failover when a node dies, stalls or lags, no flapping back, a wrong chain
// that stops the network with one line, recovery from every node being down, and a node that pushes back (HTTP 429)
// kept in use, its Retry-After honoured, until its back-pressure has lasted the limit.
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEV_CHAIN_ID,
  DEV_CHAIN_ID_2,
  startAnvil,
  type RunningAnvil,
  type StartAnvilOptions,
} from '../../../src/devchain/anvil-process.js';
import { jsonRpcCall } from '../../../src/lib/json-rpc.js';
import type { Logger } from '../../../src/lib/log.js';
import { redactNodeUrl } from '../../../src/service/network/node-choice.js';
import { watchNodes, type CurrentNode, type NodeWatch, type NodeWatchOptions } from '../../../src/service/network/node-watch.js';
import { startRpcFaults, type RpcFaults } from '../../support/faults/fault-proxy.js';
import { waitFor } from '../../support/poll.js';

const anvils: RunningAnvil[] = [];
const proxies: RpcFaults[] = [];
const stopped = new Set<number>();
const watches: NodeWatch[] = [];

afterEach(async () => {
  for (const pid of stopped) resume(pid);
  stopped.clear();
  await Promise.all(watches.splice(0).map((w) => w.stop()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(anvils.splice(0).map((a) => a.stop()));
});

async function anvil(opts: StartAnvilOptions = {}): Promise<RunningAnvil> {
  const a = await startAnvil(opts);
  anvils.push(a);
  return a;
}

/** A logger that keeps every line, for asserting what a person would read. */
function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log: Logger = {
    debug() {},
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
    child: () => log,
  };
  return { log, lines };
}

function watch(urls: string[], more: Partial<NodeWatchOptions> = {}): NodeWatch & { lines: string[]; changes: (CurrentNode | null)[] } {
  const { log, lines } = capturingLogger();
  const w = watchNodes({ urls, expectedChainId: DEV_CHAIN_ID, probeMs: 100, timeoutMs: 1500, log, label: 'ethereum/test', ...more });
  const changes: (CurrentNode | null)[] = [];
  w.onChange((c) => changes.push(c));
  watches.push(w);
  return Object.assign(w, { lines, changes });
}

function pause(pid: number): void {
  process.kill(pid, 'SIGSTOP');
  stopped.add(pid);
}

function resume(pid: number): void {
  try {
    process.kill(pid, 'SIGCONT');
  } catch {
    // already gone
  }
  stopped.delete(pid);
}

describe('node watch (real anvil)', () => {
  it('moves to the second node when the first is killed, and tells its listeners', async () => {
    const [a, b] = await Promise.all([anvil(), anvil()]);
    const w = watch([a.url, b.url]);
    expect(await w.ready()).toBe(DEV_CHAIN_ID);
    expect(w.current()).toEqual({ url: a.url, index: 0 });
    await a.stop();
    await waitFor('the watch to move to node 2', () => w.current()?.index === 1, { timeoutMs: 10_000 });
    expect(w.changes.at(-1)).toEqual({ url: b.url, index: 1 });
    expect(w.report()).toMatchObject({ state: 'serving', inUse: 1, chainId: DEV_CHAIN_ID });
    expect(w.report().reason).toContain('refused the connection');
    expect(w.errorCounts().refused).toBeGreaterThan(0);
    expect(w.lines.filter((l) => l.startsWith('warn'))).toEqual([
      `warn ethereum/test: Switched from node 1 (${a.url}) to node 2 (${b.url}) because node 1 (${a.url}) refused the connection.`,
    ]);
  });

  it('does the same for nodes given as ws:// URLs', async () => {
    const [a, b] = await Promise.all([anvil(), anvil()]);
    const ws = (x: RunningAnvil) => x.url.replace('http://', 'ws://');
    const w = watch([ws(a), ws(b)]);
    await w.ready();
    expect(w.current()?.index).toBe(0);
    await a.stop();
    await waitFor('the watch to move to node 2 over ws', () => w.current()?.index === 1, { timeoutMs: 10_000 });
    expect(w.report().nodes[0]!.problem).toBe('refused');
  });

  it('leaves a stalled node on timeout and does not flap back when it resumes', async () => {
    const [a, b] = await Promise.all([anvil(), anvil()]);
    const w = watch([a.url, b.url]);
    await w.ready();
    pause(a.pid);
    await waitFor('the watch to leave the stalled node', () => w.current()?.index === 1, { timeoutMs: 10_000 });
    expect(w.report().nodes[0]!.problem).toBe('timeout');
    expect(w.report().reason).toContain('did not answer in time');
    resume(a.pid);
    await waitFor('node 1 to answer again', () => w.report().nodes[0]!.problem === null && w.report().nodes[0]!.head !== null, {
      timeoutMs: 10_000,
    });
    // Several probe periods with node 1 healthy: the watch stays on node 2.
    const probesBefore = w.errorCounts().timeout;
    await new Promise((r) => setTimeout(r, 1000));
    expect(w.errorCounts().timeout).toBe(probesBefore);
    expect(w.current()?.index).toBe(1);
    expect(w.changes).toEqual([
      { url: a.url, index: 0 },
      { url: b.url, index: 1 },
    ]);
  });

  it('leaves a node that lags behind the others', async () => {
    const [a, b] = await Promise.all([anvil(), anvil()]);
    const w = watch([a.url, b.url], { maxLagBlocks: 5 });
    await w.ready();
    await jsonRpcCall(b.url, 'anvil_mine', ['0x14']); // 20 blocks ahead of node 1
    await waitFor('the watch to leave the lagging node', () => w.current()?.index === 1, { timeoutMs: 10_000 });
    expect(w.report().nodes[0]!.problem).toBe('lagging');
    expect(w.report().reason).toMatch(/node 1 \(.*\) is \d+ blocks behind the best node \(more than 5\)/);
    // Counted per probe of the lagging node; its next probe comes after the one of node 2 that made the switch.
    await waitFor('a probe of node 1 counted as lagging', () => w.errorCounts().lagging > 0, { timeoutMs: 10_000 });
  });

  it('stops the network when its only node is on the wrong chain, with exactly one line', async () => {
    const a = await anvil({ chainId: DEV_CHAIN_ID });
    const w = watch([a.url], { expectedChainId: DEV_CHAIN_ID_2, label: 'ethereum/local-2' });
    await w.firstRound();
    expect(w.report()).toMatchObject({ state: 'wrong-chain', inUse: null, chainId: DEV_CHAIN_ID_2 });
    expect(w.current()).toBeNull();
    await waitFor('several probes of the wrong chain', () => w.errorCounts()['wrong-chain'] >= 5, { timeoutMs: 10_000 });
    expect(w.lines).toEqual([
      `warn ethereum/local-2: the node at ${a.url} is on chain ${DEV_CHAIN_ID}, not ${DEV_CHAIN_ID_2} as configured; this ` +
        `network is stopped until it is fixed.`,
    ]);
    // One change: the state (starting -> wrong-chain), no node in use before or after; the network pauses on it.
    expect(w.changes).toEqual([null]);
  });

  it('adopts the chain of node 1 when none is configured', async () => {
    const [a, b] = await Promise.all([anvil({ chainId: DEV_CHAIN_ID_2 }), anvil({ chainId: DEV_CHAIN_ID })]);
    const w = watch([a.url, b.url], { expectedChainId: undefined });
    expect(await w.ready()).toBe(DEV_CHAIN_ID_2);
    await w.firstRound();
    expect(w.current()?.index).toBe(0);
    expect(w.report().nodes[1]!.problem).toBe('wrong-chain');
  });

  it('is unreachable when every node is down, and serves again when one comes back', async () => {
    const [a, b] = await Promise.all([anvil(), anvil()]);
    const w = watch([a.url, b.url]);
    await w.ready();
    await Promise.all([a.stop(), b.stop()]);
    await waitFor('the network to be unreachable', () => w.report().state === 'unreachable', { timeoutMs: 10_000 });
    expect(w.current()).toBeNull();
    expect(w.changes.at(-1)).toBeNull();
    await anvil({ port: b.port });
    await waitFor('the network to serve again', () => w.report().state === 'serving', { timeoutMs: 10_000 });
    expect(w.current()).toEqual({ url: b.url, index: 1 });
    expect(w.lines.some((l) => l === `warn ethereum/test: Using node 2 (${b.url}) because node 1 (${a.url}) refused the connection.`)).toBe(
      true,
    );
  });

  it('keeps a node that pushes back in use, probes it only after its Retry-After, and fails it only after the limit', async () => {
    const faults = await startRpcFaults((await anvil()).url);
    proxies.push(faults);
    const w = watch([faults.url], { backPressureLimitMs: 3_000 });
    await w.ready();
    faults.pushBack({ share: 1, retryAfterS: 1 });
    const first = await waitFor('a first 429', () => (faults.pushedBack() > 0 ? Date.now() : null), { timeoutMs: 10_000 });
    const requests = faults.requests();
    // Probes every 100 ms would send ~16 requests in 800 ms; paused by Retry-After: 1, at most the probe's other call.
    await new Promise((r) => setTimeout(r, 800));
    expect(faults.requests() - requests).toBeLessThanOrEqual(1);
    expect(w.report()).toMatchObject({ state: 'serving', inUse: 0 });
    expect(w.report().nodes[0]!.problem).toBeNull();
    // Halved from the probes' recent rate (two calls per probe).
    expect(w.report().nodes[0]!.requestsPerSecond).toBeGreaterThanOrEqual(1);
    expect(w.report().nodes[0]!.throttledSince).toBeGreaterThanOrEqual(first - 1_000);
    expect(w.current()).not.toBeNull();

    await waitFor('the node counted as failing after the limit', () => w.report().state === 'unreachable', { timeoutMs: 15_000 });
    expect(Date.now() - first).toBeGreaterThanOrEqual(2_900);
    expect(w.report().nodes[0]!.problem).toBe('rate-limited');
    expect(w.report().reason).toMatch(
      /^No node can be used: node 1 \(.*\) has asked to slow down \(HTTP 429 or a capacity error\) for \d+ s without answering\.$/,
    );
    expect(w.errorCounts()['rate-limited']).toBeGreaterThan(0);
    expect(w.errorCounts().error).toBe(0);

    faults.pushBack(null);
    await waitFor('the node in use again once it answers', () => w.report().state === 'serving', { timeoutMs: 15_000 });
    expect(w.report().nodes[0]).toMatchObject({ problem: null, throttledSince: null });
    expect(w.lines.filter((l) => /asked to slow down \d+ times? \(HTTP 429/.test(l))).toHaveLength(1);
  });

  it('takes a share of "exceeded its capacity" answers for pacing, never for an error', async () => {
    const faults = await startRpcFaults((await anvil()).url);
    proxies.push(faults);
    const w = watch([faults.url]);
    await w.ready();
    faults.pushBack({ share: 0.5, as: 'rpc-error', seed: 7 });
    await waitFor('several capacity errors', () => faults.pushedBack() >= 6, { timeoutMs: 20_000 });
    expect(w.report().state).toBe('serving');
    expect(w.errorCounts().error).toBe(0);
    expect(w.report().nodes[0]!.requestsPerSecond).not.toBeNull();
  });

  it('stops idempotently, and ready() rejects when stopped first', async () => {
    const w = watch(['http://127.0.0.1:1']);
    const ready = w.ready();
    await w.firstRound();
    expect(w.report().state).toBe('unreachable');
    await Promise.all([w.stop(), w.stop()]);
    await expect(ready).rejects.toThrow(/stopped/);
  });
});

describe('redactNodeUrl', () => {
  it('keeps scheme, host and port; drops userinfo, path and query', () => {
    expect(redactNodeUrl('https://user:secret@eth.example.com:8443/v2/KEY?apikey=x')).toBe('https://eth.example.com:8443');
    expect(redactNodeUrl('wss://mainnet.example.io/ws/v3/KEY')).toBe('wss://mainnet.example.io');
    expect(redactNodeUrl('not a url')).not.toContain('not a url');
  });
});
