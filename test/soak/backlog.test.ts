// A late reconnect to a subscription with a 1,000,000-message backlog: the data service reads the backlog in pages
// (OUTBOX_PAGE at a time), so its heap stays under 100 MB while the client receives and acks the first 20,000
// messages in order. The backlog is written straight into the service's SQLite file (the real tracker store) between
// two runs of a real service process. Prints fill time, time to first message, throughput and heap figures.
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevchain, type Devchain } from '../../src/devchain/devchain.js';
import { silentLogger } from '../../src/lib/log.js';
import { openDatabase } from '../../src/lib/sqlite.js';
import { openSqliteTrackerStore } from '../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { MB, killAllChildren, spawnService, tempDir } from '../support/faults/reliability-procs.js';

const BACKLOG = Number(process.env.TXDESK_SOAK_BACKLOG ?? 1_000_000);
const RECEIVE = 20_000;
const HEAP_LIMIT = 100 * MB;
const dir = tempDir('txdesk-soak-backlog-');
let chain: Devchain;

beforeAll(async () => {
  chain = await startDevchain({ port: 0, blockTimeSeconds: 1, log: silentLogger });
});

afterAll(async () => {
  killAllChildren();
  await chain?.stop();
  dir.remove();
});

describe('a reconnect with a 1,000,000-message backlog', () => {
  it('keeps the service heap under 100 MB while the backlog drains in order', async () => {
    // First run: creates the database and the stable dev account (its clientId survives a restart on this data dir).
    const first = await spawnService({ mode: 'node', nodeUrl: chain.nodeUrl, dataDir: dir.path });
    const clientId = first.info.clientId;
    await first.stop();

    const t0 = performance.now();
    const db = openDatabase(join(dir.path, 'service.sqlite'));
    const store = openSqliteTrackerStore(db);
    await store.subscribe(clientId, 'late', 60_000, Date.now());
    for (let done = 0; done < BACKLOG; done += 10_000) {
      const n = Math.min(10_000, BACKLOG - done);
      const messages = Array.from({ length: n }, (_, i) => {
        const k = done + i;
        const txHash = `0x${k.toString(16).padStart(64, '0')}`;
        return {
          clientId,
          txHash,
          type: 'pending' as const,
          payload: JSON.stringify({ type: 'pending', result: { transactionHash: txHash, confirmation: 1, timeout: 1000 } }),
        };
      });
      await store.commitRound([], [], messages, Date.now());
    }
    db.close();
    const fillS = (performance.now() - t0) / 1000;

    const svc = await spawnService({ mode: 'node', nodeUrl: chain.nodeUrl, dataDir: dir.path });
    const idle = await svc.memory();
    const ws = new WebSocket(`${svc.info.serviceUrl.replace(/^http/, 'ws')}/tracker/ethereum/local?clientId=${clientId}`);
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const heaps: number[] = [];
    const got: number[] = [];
    let firstAt = 0;
    const tConnect = performance.now();
    let nextId = 1;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${RECEIVE} messages within 10 minutes`)), 600_000);
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as {
          id: unknown;
          result?: { ackId?: string; payload?: { result: { transactionHash: string } } };
        };
        if (frame.id !== 'late' || !frame.result?.ackId) return;
        if (got.length === 0) firstAt = performance.now();
        got.push(Number.parseInt(frame.result.payload!.result.transactionHash.slice(2), 16));
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'ack', params: [frame.result.ackId] }));
        if (got.length % 5_000 === 0) void svc.memory().then((m) => heaps.push(m.heapUsed));
        if (got.length >= RECEIVE) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tracker_subscribe', params: ['late', 'transaction', 60_000] }));
    });
    const elapsedS = (performance.now() - tConnect) / 1000;
    heaps.push((await svc.memory()).heapUsed);
    ws.close();
    await svc.stop();

    const mb = (x: number) => (x / MB).toFixed(1);
    process.stdout.write(
      `[soak] backlog ${BACKLOG.toLocaleString('en')} messages: filled in ${fillS.toFixed(1)} s; first ` +
        `message ${((firstAt - tConnect) / 1000).toFixed(2)} s after connect; ` +
        `${RECEIVE.toLocaleString('en')} received and acked in ${elapsedS.toFixed(1)} s (${(RECEIVE / elapsedS).toFixed(0)}/s); ` +
        `service heap after GC: idle ${mb(idle.heapUsed)} MB, while draining ${heaps.map(mb).join(' / ')} MB (limit ${mb(HEAP_LIMIT)})\n`,
    );
    // In store order, no gaps, no duplicates: the pages join up.
    expect(got.slice(0, RECEIVE)).toEqual(Array.from({ length: RECEIVE }, (_, i) => i));
    for (const h of heaps) expect(h).toBeLessThan(HEAP_LIMIT);
  });
});
