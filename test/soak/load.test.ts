// A bounded load test on loopback (stops by itself after TXDESK_SOAK_LOAD_SECONDS, 60 by default): the listing API
// (autocannon, 16 connections, 7 valid and 5 invalid request shapes) and the tracker (20 WebSocket clients, a mix of
// heartbeats, tracking, acks and malformed frames) at the same time against one data service process.
// Prints throughput, latency p50/p99, errors and the service's memory before and after as a table.
import { createRequire } from 'node:module';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MB,
  killAllChildren,
  rssOf,
  spawnService,
  tempDir,
  type ChildProc,
  type ServiceInfo,
} from '../support/faults/reliability-procs.js';

const SECONDS = Number(process.env.TXDESK_SOAK_LOAD_SECONDS ?? 60);
const WS_CLIENTS = 20;
const WS_INTERVAL_MS = 20;
const dir = tempDir('txdesk-soak-load-');
let svc: ChildProc<ServiceInfo>;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

beforeAll(async () => {
  // Rate limiting off: the figure is the service's capacity, not the per-client allowance (tested in test/reliability).
  svc = await spawnService({ mode: 'dev', dataDir: dir.path, blockTimeSeconds: 1, rateLimitPerMinute: 0 });
});

afterAll(async () => {
  await svc?.stop();
  killAllChildren();
  dir.remove();
});

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Tracker load: each client sends one request every WS_INTERVAL_MS and times the answer by id. */
async function trackerLoad(
  url: string,
  untilMs: number,
): Promise<{ sent: number; answered: number; errorsAnswered: number; unanswered: number; closed: number; rtts: number[] }> {
  const rtts: number[] = [];
  let sent = 0;
  let answered = 0;
  let errorsAnswered = 0;
  let closed = 0;
  const outstanding = new Map<string, number>();
  const clients = await Promise.all(
    Array.from(
      { length: WS_CLIENTS },
      (_, c) =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(url);
          ws.on('message', (d) => {
            const frames = ([] as any[]).concat(JSON.parse(String(d)));
            for (const f of frames) {
              const key = `${c}:${f.id}`;
              const at = outstanding.get(key);
              if (at === undefined) continue;
              outstanding.delete(key);
              rtts.push(performance.now() - at);
              answered++;
              if (f.error) errorsAnswered++;
            }
          });
          ws.on('close', () => closed++);
          ws.once('open', () => resolve(ws));
          ws.once('error', reject);
        }),
    ),
  );
  let id = 0;
  const hex = () => `0x${Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')}`;
  clients.forEach((ws, c) =>
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tracker_subscribe', params: [`load-${c}`, 'transaction', null] })),
  );
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (Date.now() >= untilMs) {
        clearInterval(timer);
        resolve();
        return;
      }
      clients.forEach((ws, c) => {
        if (ws.readyState !== WebSocket.OPEN) return;
        const n = ++id;
        const r = n % 50;
        let frame: string;
        // 1 in 50 tracks a (never mined) hash, 4 in 50 ack unknown ids, 10 in 50 are malformed, the rest heartbeats.
        if (r === 0)
          frame = JSON.stringify({
            jsonrpc: '2.0',
            id: n,
            method: 'track_transaction',
            params: [hex(), { confirmation: 1, timeout: 60_000 }],
          });
        else if (r <= 4) frame = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'ack', params: [`no-such-ack-${n}`] });
        else if (r <= 8) frame = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'track_transaction', params: ['0x1234', 'x'] });
        else if (r <= 12) frame = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'no_such_method', params: [] });
        else if (r <= 14) frame = JSON.stringify({ jsonrpc: '1.0', id: n, method: 'HEARTBEAT' });
        else frame = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'HEARTBEAT', params: [] });
        outstanding.set(`${c}:${n}`, performance.now());
        ws.send(frame);
        sent++;
      });
    }, WS_INTERVAL_MS);
  });
  // Give the last answers a moment, then count what never came back.
  const drainUntil = Date.now() + 5_000;
  while (outstanding.size > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 50));
  const unanswered = outstanding.size;
  const closedDuringRun = closed;
  for (const ws of clients) ws.close();
  return { sent, answered, errorsAnswered, unanswered, closed: closedDuringRun, rtts: rtts.sort((a, b) => a - b) };
}

describe(`load on loopback for ${SECONDS} s`, () => {
  it('listing API and tracker stay correct under sustained valid and invalid load; memory returns to a bounded level', async () => {
    const base = svc.info.serviceUrl;
    const cid = svc.info.clientId;
    const contract = svc.info.collections![0]!.address.toLowerCase();
    const first = (await (await fetch(`${base}/nft/v1/contracts/${contract}/tokens?clientId=${cid}&size=1`)).json()) as {
      data: { owner: string }[];
    };
    const owner = first.data[0]!.owner;
    const memBefore = await svc.memory();
    const rssBefore = rssOf(svc.info.pid);

    const valid = [
      `/nft/v1/accounts/${owner}/tokens?clientId=${cid}`,
      `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&page=1&size=5&order_by=token_id&order_direction=asc`,
      `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&size=200&order_by=contract_address`,
      `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&contractAddresses=${contract}&order_direction=ASC`,
      `/nft/v1/contracts/${contract}/tokens?clientId=${cid}&page=2&size=10`,
      `/nft/v1/contracts/${contract}?clientId=${cid}`,
      `/health`,
    ];
    const invalid = [
      `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&page=-1`,
      `/nft/v1/accounts/0xnothex/tokens?clientId=${cid}`,
      `/nft/v1/accounts/${owner}/tokens?clientId=unknown-client`,
      `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&size=1&size=2`,
      `/nft/v1/contracts/0x${'0'.repeat(40)}?clientId=${cid}`,
    ];
    const until = Date.now() + SECONDS * 1000;
    const [http, ws] = await Promise.all([
      autocannon({
        url: base,
        connections: 16,
        duration: SECONDS,
        requests: [...valid, ...invalid].map((path) => ({ method: 'GET', path })),
      }),
      trackerLoad(`${base.replace(/^http/, 'ws')}/tracker/ethereum/local?clientId=${cid}`, until),
    ]);
    const memAfter = await svc.memory();
    const rssAfter = rssOf(svc.info.pid);

    const codes = Object.fromEntries(Object.entries(http.statusCodeStats).map(([k, v]) => [k, v.count]));
    const rows: [string, string][] = [
      ['duration', `${SECONDS} s`],
      ['listing requests/s', http.requests.average.toFixed(0)],
      ['listing requests total', String(http.requests.total)],
      ['listing latency p50 / p99 / max', `${http.latency.p50} / ${http.latency.p99} / ${http.latency.max} ms`],
      ['listing status codes', JSON.stringify(codes)],
      ['listing socket errors / timeouts', `${http.errors} / ${http.timeouts}`],
      ['tracker requests/s', (ws.answered / SECONDS).toFixed(0)],
      ['tracker requests sent / answered', `${ws.sent} / ${ws.answered}`],
      ['tracker JSON-RPC errors (expected: malformed)', String(ws.errorsAnswered)],
      ['tracker unanswered / sockets closed', `${ws.unanswered} / ${ws.closed}`],
      ['tracker latency p50 / p99', `${percentile(ws.rtts, 50).toFixed(1)} / ${percentile(ws.rtts, 99).toFixed(1)} ms`],
      ['service heap after GC before / after', `${(memBefore.heapUsed / MB).toFixed(1)} / ${(memAfter.heapUsed / MB).toFixed(1)} MB`],
      [
        'service RSS before / after',
        `${((rssBefore ?? memBefore.rss) / MB).toFixed(1)} / ${((rssAfter ?? memAfter.rss) / MB).toFixed(1)} MB`,
      ],
    ];
    const w = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`\n[soak] load figures\n${rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n')}\n`);

    // Correctness under load, not speed: no 5xx, no socket errors, every tracker request answered, nothing closed.
    expect(Object.keys(codes).filter((c) => Number(c) >= 500)).toEqual([]);
    expect(http.errors).toBe(0);
    expect(codes['200'] ?? 0).toBeGreaterThan(0);
    expect((codes['400'] ?? 0) + (codes['401'] ?? 0) + (codes['404'] ?? 0)).toBeGreaterThan(0);
    expect(ws.unanswered).toBe(0);
    expect(ws.closed).toBe(0);
    expect(ws.errorsAnswered).toBeGreaterThan(0);
    // Open trackings (never-mined hashes) legitimately hold some memory; anything beyond this is a leak.
    expect(memAfter.heapUsed - memBefore.heapUsed).toBeLessThan(128 * MB);
    expect(svc.alive()).toBe(true);
  });
});
