// The SDK against a real data service on a real anvil: the happy path, option checks, a bad clientId, an
// unreachable service (with the facts behind each error), reconnect with re-subscribe, failover across a list of URLs,
// and importing it as `txdesk/tracker` from the build (test/sdk/sdk-package.test.ts installs it alone).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { silentLogger } from '../../src/lib/log.js';
import { openDatabase } from '../../src/lib/sqlite.js';
import { type TrackerError, TransactionTracker, backoff, type TrackerMessage } from '@txdesk/tracker';
import { nextAttempt } from '../../packages/tracker/src/tracker-connection.js';
import { openSqliteTrackerStore } from '../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { attachTrackerOn } from '../support/service/tracker-on-server.js';
import { sendTransfer, startTrackerStack, type TrackerStack } from '../support/service/tracker-harness.js';
import { requireBuild } from '../support/required-tools.js';
import { waitFor } from '../support/poll.js';

let stack: TrackerStack;
const trackers: TransactionTracker[] = [];

beforeAll(async () => {
  stack = await startTrackerStack({ minAckTimeoutMs: 300 });
});
afterAll(async () => {
  for (const t of trackers) await t.close();
  await stack?.close();
});

function tracker(clientId: string, extra: Partial<ConstructorParameters<typeof TransactionTracker>[1]> = {}): TransactionTracker {
  const t = new TransactionTracker(clientId, {
    platform: 'ethereum',
    network: 'local',
    url: stack.service.url,
    minAckTimeout: 300,
    ...extra,
  });
  trackers.push(t);
  return t;
}

async function freePortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

describe('TransactionTracker', () => {
  it('tracks a transaction and delivers receipt then confirmation; ack() resolves', async () => {
    const t = tracker(await stack.newClientId());
    const sub = t.subscribe('transaction', { subscriptionId: 'happy', ackTimeout: 10_000 });
    const seen: TrackerMessage[] = [];
    sub.on('message', (m) => {
      seen.push(m);
      void m.ack();
    });
    await sub.ready;
    const tx = await sendTransfer(stack.wallet(8));
    await t.trackTransaction(tx.hash, { timeout: 60_000, confirmation: 1 });
    await waitFor('confirmation', () => seen.find((m) => m.data.type === 'confirmation'));
    expect(seen.map((m) => m.data.type)).toEqual(['receipt', 'confirmation']);
    const receipt = seen[0]!;
    expect(receipt.data.result.transactionHash).toBe(tx.hash);
    expect(typeof receipt.id).toBe('string');
    await expect(receipt.ack()).resolves.toBeUndefined();
  });

  it('connect() checks the clientId early; unsubscribe() stops deliveries and deletes the stored ones', async () => {
    const clientId = await stack.newClientId();
    const t = tracker(clientId);
    await expect(t.connect()).resolves.toBeUndefined();
    const sub = t.subscribe('transaction', { subscriptionId: 'gone' });
    expect(t.subscribe('transaction', { subscriptionId: 'gone' })).toBe(sub);
    await sub.ready;
    await sub.unsubscribe();
    expect(sub.isActive).toBe(false);
    const count = stack.service.db!.prepare('SELECT count(*) AS n FROM tracker_subscription WHERE client_id = ?').get(clientId) as {
      n: number;
    };
    expect(count.n).toBe(0);
  });

  it('rejects invalid options with the server’s ranges', async () => {
    const bad = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e as TrackerError;
      }
      throw new Error('did not throw');
    };
    expect(bad(() => new TransactionTracker('', { platform: 'ethereum', network: 'local', url: stack.service.url })).message).toMatch(
      /account:describe/,
    );
    expect(bad(() => new TransactionTracker('x', { platform: 'ethereum', network: 'local', url: 'ftp://x' })).code).toBe('INVALID_OPTIONS');
    expect(bad(() => new TransactionTracker('x', { platform: 'eth/../x', network: 'local', url: stack.service.url })).message).toMatch(
      /platform/,
    );
    expect(bad(() => new TransactionTracker('x', { platform: 'ethereum', network: 'local', url: [] })).message).toMatch(
      /list of 1 to 64 URLs/,
    );
    expect(
      bad(() => new TransactionTracker('x', { platform: 'ethereum', network: 'local', url: [stack.service.url, 'nope'] })).message,
    ).toMatch(/^options\.url\[1\] must be/);
    const t = new TransactionTracker('x', { platform: 'ethereum', network: 'local', url: stack.service.url });
    expect(bad(() => t.subscribe('transaction', { subscriptionId: '42' }))).toMatchObject({
      option: 'options.subscriptionId',
      message: expect.stringMatching(/subscriptionId/),
    });
    expect(bad(() => t.subscribe('transaction', { subscriptionId: 's', ackTimeout: 500 })).message).toMatch(
      /ackTimeout must be an integer from 10000 to 600000/,
    );
    expect(bad(() => t.subscribe('transaction', { subscriptionId: 's', ackTimeout: 700_000 }))).toMatchObject({
      code: 'INVALID_OPTIONS',
      option: 'options.ackTimeout',
    });
    await expect(t.trackTransaction('0x1234')).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      option: 'hash',
      message: expect.stringMatching(/hash/),
    });
    await expect(t.trackTransaction(`0x${'1'.repeat(64)}`, { confirmation: 1001 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(t.trackTransaction(`0x${'1'.repeat(64)}`, { timeout: -5 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await t.close();
  });

  it('reports an unknown clientId once, saying to run txdesk account:describe, and stops', async () => {
    const t = tracker('nobody-has-this-id');
    const sub = t.subscribe('transaction', { subscriptionId: 'denied' });
    const errors: TrackerError[] = [];
    sub.on('error', (e) => errors.push(e));
    await expect(sub.ready).rejects.toMatchObject({ code: 'UNKNOWN_CLIENT_ID' });
    await expect(t.trackTransaction(`0x${'2'.repeat(64)}`)).rejects.toMatchObject({
      code: 'UNKNOWN_CLIENT_ID',
      message: expect.stringMatching(/txdesk account:describe/),
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.retryable).toBe(false);
    const later = t.subscribe('transaction', { subscriptionId: 'denied-again' });
    await expect(later.ready).rejects.toMatchObject({ code: 'UNKNOWN_CLIENT_ID' });
  });

  it('reports an unreachable service as a retryable error and keeps trying', async () => {
    const t = tracker('whoever-secret-id', { url: await freePortUrl(), requestTimeoutMs: 1500, initialBackoffMs: 50, maxBackoffMs: 200 });
    const sub = t.subscribe('transaction', { subscriptionId: 'nowhere' });
    const errors: TrackerError[] = [];
    sub.on('error', (e) => errors.push(e));
    await expect(t.trackTransaction(`0x${'3'.repeat(64)}`)).rejects.toMatchObject({
      code: 'UNREACHABLE',
      reason: 'NOT_SENT',
      message: expect.stringMatching(/Cannot reach/),
    });
    await waitFor('repeated connection errors', () => errors.length >= 2);
    expect(errors.every((e) => e.code === 'UNREACHABLE' && e.retryable && e.reason === 'CONNECT_FAILED')).toBe(true);
    expect(errors[0]!.detail).toMatch(/ECONNREFUSED/);
    expect(errors[0]!.retryInMs).toBeGreaterThan(0);
    expect(errors[0]!.message).toMatch(/reconnecting in \d+ ms/);
    // The clientId rides in the URL's query; messages (which apps log) name the URL without it.
    const failed = await t.trackTransaction(`0x${'4'.repeat(64)}`).catch((e: Error) => e);
    for (const e of [...errors, failed as Error]) expect(e.message).not.toContain('whoever-secret-id');
    await t.close();
  });

  it('reconnects after the socket dies, re-subscribes, and gets the un-acked message again', async () => {
    const sockets: WebSocket[] = [];
    const t = tracker(await stack.newClientId(), {
      initialBackoffMs: 50,
      socketFactory: (url) => {
        const ws = new WebSocket(url);
        sockets.push(ws);
        return ws as never;
      },
    });
    const sub = t.subscribe('transaction', { subscriptionId: 'heal', ackTimeout: 60_000 });
    const seen: TrackerMessage[] = [];
    const errors: TrackerError[] = [];
    let subscribedCount = 0;
    sub.on('message', (m) => seen.push(m));
    sub.on('error', (e) => errors.push(e));
    sub.on('subscribed', () => subscribedCount++);
    await sub.ready;
    const tx = await sendTransfer(stack.wallet(9));
    await t.trackTransaction(tx.hash, { timeout: 60_000, confirmation: 1 });
    const first = await waitFor('receipt', () => seen.find((m) => m.data.type === 'receipt'));
    sockets[0]!.terminate();
    const again = await waitFor('the receipt after reconnecting', () => seen.filter((m) => m.data.type === 'receipt')[1]);
    expect(again.id).toBe(first.id);
    expect(subscribedCount).toBe(2);
    expect(errors.some((e) => e.code === 'UNREACHABLE' && e.reason === 'CONNECTION_DROPPED')).toBe(true);
    await again.ack();
    const conf = await waitFor('confirmation', () => seen.find((m) => m.data.type === 'confirmation'));
    await conf.ack();
    expect(sockets.length).toBe(2);
  });
});

describe('a service that lost its data', () => {
  it('gets the subscription and the tracked hashes back from the SDK after a reconnect', async () => {
    // Service B: a fresh database on the same chain, reached through the socket factory once A "disappears".
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-sdk-retrack-'));
    const db = openDatabase(join(dir, 'b.sqlite'));
    const server = createHttpServer((_q, r) => r.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const attached = await attachTrackerOn(server, {
      store: openSqliteTrackerStore(db),
      nodeUrl: stack.anvil.url,
      isClientId: () => true,
      log: silentLogger,
    });
    const baseA = stack.service.url.replace('http://', 'ws://');
    const baseB = `ws://127.0.0.1:${(server.address() as { port: number }).port}`;
    let base = baseA;
    const sockets: WebSocket[] = [];
    try {
      const t = tracker(await stack.newClientId(), {
        initialBackoffMs: 50,
        socketFactory: (url) => {
          const ws = new WebSocket(url.replace(baseA, base));
          sockets.push(ws);
          return ws as never;
        },
      });
      const sub = t.subscribe('transaction', { subscriptionId: 'retrack' });
      const seen: TrackerMessage[] = [];
      sub.on('message', (m) => {
        seen.push(m);
        void m.ack();
      });
      sub.on('error', () => {});
      await sub.ready;
      const w = stack.wallet(7);
      const nonce = await w.getNonce('pending');
      const tx = await sendTransfer(w, { nonce: nonce + 1 });
      await t.trackTransaction(tx.hash, { timeout: 60_000, confirmation: 1 });
      base = baseB;
      sockets[0]!.terminate();
      await waitFor(
        'the hash tracked on B',
        () => (db.prepare('SELECT count(*) AS n FROM tracker_tracking').get() as { n: number }).n === 1,
      );
      await sendTransfer(w, { nonce });
      await waitFor('the confirmation from B', () =>
        seen.find((m) => m.data.type === 'confirmation' && m.data.result.transactionHash === tx.hash),
      );
    } finally {
      await attached.stop();
      await new Promise((r) => server.close(r));
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('failover across URLs', () => {
  it('skips a URL where nothing answers and works through the next one', async () => {
    const deadUrl = await freePortUrl();
    const clientId = await stack.newClientId();
    const t = tracker(clientId, { url: [deadUrl, stack.service.url], initialBackoffMs: 50 });
    const errors: TrackerError[] = [];
    t.on('error', (e) => errors.push(e));
    await t.connect();
    // The facts say what the message says, so nothing has to read it back (the app's words: src/core/startup-refusals.ts).
    const [dead, next] = [deadUrl, stack.service.url].map((u) => `${u.replace('http', 'ws')}/tracker/ethereum/local`);
    expect(errors[0]).toMatchObject({ code: 'UNREACHABLE', retryable: true, reason: 'CONNECT_FAILED', url: dead, nextUrl: next });
    expect(errors[0]!.message).toContain(`${deadUrl.replace('http', 'ws')}/tracker/ethereum/local: cannot connect`);
    expect(errors[0]!.message).toContain(`reconnecting to ${stack.service.url.replace('http', 'ws')}/tracker/ethereum/local in`);
    expect(errors[0]!.message).not.toContain(clientId);
  });

  it('moves to the next URL on every loss and backs off only once every URL failed in a row', () => {
    const steps = Array.from({ length: 7 }, (_, attempt) => attempt);
    let index = 0;
    const seen = steps.map((attempt) => {
      const next = nextAttempt(attempt, index, 3);
      index = next.urlIndex;
      return [next.urlIndex, next.round];
    });
    expect(seen).toEqual([
      [1, 0],
      [2, 0],
      [0, 0],
      [1, 1],
      [2, 1],
      [0, 1],
      [1, 2],
    ]);
    // One URL: the plain backoff ladder of before.
    expect([0, 1, 2].map((a) => nextAttempt(a, 0, 1))).toEqual([0, 1, 2].map((round) => ({ urlIndex: 0, round })));
  });
});

describe('backoff', () => {
  it('doubles from the initial delay up to the cap, with jitter in [base/2, base]', () => {
    const rows: [attempt: number, lo: number, hi: number][] = [
      [0, 125, 250],
      [1, 250, 500],
      [3, 1000, 2000],
      [10, 15_000, 30_000],
      [100, 15_000, 30_000],
    ];
    for (const [attempt, lo, hi] of rows) {
      expect(backoff(attempt, 250, 30_000, () => 0)).toBe(lo);
      expect(backoff(attempt, 250, 30_000, () => 1)).toBe(hi);
    }
  });
});

describe('the package export', () => {
  it('imports as txdesk/tracker from the build', () => {
    requireBuild('dist/sdk/index.js');
    // A webhook receiver's check comes from the same package (docs/webhooks.md).
    const script = [
      "const m = await import('txdesk/tracker');",
      "const header = m.signWebhook('{\"a\":1}', 'whsec_x', Math.floor(Date.now() / 1000));",
      "console.log(typeof m.TransactionTracker, typeof m.TrackerError, m.verifyWebhook('{\"a\":1}', header, 'whsec_x').ok, " +
        "m.verifyWebhook('{\"a\":2}', header, 'whsec_x').ok);",
    ].join(' ');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.trim()).toBe('function function true false');
  });
});
