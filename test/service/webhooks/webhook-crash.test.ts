// SIGKILL of `txdesk service` while webhook deliveries are in flight to a slow receiver: on SQLite (one instance,
// started again on its data dir) and on a PostgreSQL fleet of two (the survivor sends what the dead one had claimed
// once the claims' lease runs out, shortened here by TXDESK_WEBHOOK_LEASE_MARGIN_MS). Nothing is lost; a message seen
// twice is a retry of its one delivery id; a transaction's receipt is accepted before its confirmation is sent; no
// delivery is in flight from two senders at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '../../../src/service/webhooks/webhook-deliverer.js';
import { call } from '../../support/service/service-harness.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import {
  ensureCliBuilt,
  killServiceProcesses,
  serviceHealth,
  startServiceProcess,
  type ServiceProcess,
} from '../../support/service/service-process.js';
import { DEV_KEYS, RawTrackerClient, signTransfer, trackerWsUrl } from '../../support/service/tracker-harness.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../../support/service/webhook-receiver.js';
import { waitFor } from '../../support/poll.js';

/** Per transaction: its receipt and its confirmation (confirmation 1; mined long before the tracking timeout). */
const TRANSACTIONS = 40;
/**
 * The margin the fleet's instances run with (TXDESK_WEBHOOK_LEASE_MARGIN_MS; 20 s by default, which
 * test/service/webhooks/webhook-deliverer-lease.test.ts shows): the lease of a claim is the 10 s timeout plus it.
 */
const LEASE_MARGIN_MS = 1_000;
const LEASE_MS = DEFAULT_WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;

let anvil: RunningAnvil;
let provider: JsonRpcProvider;
const dirs: string[] = [];
const receivers: WebhookReceiver[] = [];
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  ensureCliBuilt();
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
});

afterAll(async () => {
  killServiceProcesses();
  await Promise.all(processes.map((p) => p.exited));
  await Promise.all(receivers.map((r) => r.close()));
  provider?.destroy();
  await anvil?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A service process that may reach the receiver on 127.0.0.1; TXDESK_TEST_LOG=1 shows its log on this stderr. */
async function service(opts: { dataDir: string; database?: string }): Promise<ServiceProcess> {
  const p = await startServiceProcess({
    nodeUrl: anvil.url,
    ...opts,
    extraArgs: ['--allow-private-webhooks'],
    env: { TXDESK_WEBHOOK_LEASE_MARGIN_MS: String(LEASE_MARGIN_MS), ...(process.env.TXDESK_TEST_LOG ? { TXDESK_LOG: 'info' } : {}) },
  });
  if (process.env.TXDESK_TEST_LOG)
    p.child.stderr!.on('data', (d: Buffer) => process.stderr.write(`[pid ${p.child.pid}] ${d.toString('utf8')}`));
  processes.push(p);
  return p;
}

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'txdesk-webhook-crash-'));
  dirs.push(d);
  return d;
}

async function slowReceiver(delayMs: number): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  r.mode = { kind: 'slow', delayMs };
  receivers.push(r);
  return r;
}

interface Account {
  clientId: string;
  apiSecret: string;
}

/** A new account on `p` and its API secret, made with the sign-up's session as a person would. */
async function signup(p: ServiceProcess, email: string): Promise<Account> {
  const res = await call(`${p.serviceUrl}/users/v1/signup`, {
    method: 'POST',
    body: { email, password: 'correct horse battery staple', name: 'Webhook crash', organization: 'txdesk tests' },
  });
  expect(res.status).toBe(201);
  const { clientId, jwtToken } = res.body as { clientId: string; jwtToken: string };
  const made = await call(`${p.serviceUrl}/users/v1/api-secret`, { method: 'POST', token: jwtToken });
  expect(made.status).toBe(201);
  return { clientId, apiSecret: (made.body as { apiSecret: string }).apiSecret };
}

/** The webhook API of `p` as a program of the account calls it: its API secret in the Authorization header. */
const hooks = (p: ServiceProcess, account: Account, rest = '', init: Parameters<typeof call>[1] = {}) =>
  call(`${p.serviceUrl}/tracker/v1/webhooks${rest}`, { ...init, token: account.apiSecret });

/** Tracks `n` signed transfers from `key` through `p`'s WebSocket, then broadcasts them all; returns their hashes. */
async function trackAndSend(p: ServiceProcess, clientId: string, key: string, n: number): Promise<string[]> {
  const wallet = new Wallet(key, provider);
  const first = await wallet.getNonce('pending');
  const signed = await Promise.all(Array.from({ length: n }, (_, i) => signTransfer(wallet, { nonce: first + i })));
  const ws = await RawTrackerClient.connect(trackerWsUrl(p.serviceUrl, clientId));
  try {
    const answers = await Promise.all(signed.map((s) => ws.request('track_transaction', [s.hash, 1, 120_000])));
    expect(answers.map((a) => a.result)).toEqual(signed.map(() => true));
  } finally {
    await ws.close();
  }
  await Promise.all(signed.map((s) => provider.send('eth_sendRawTransaction', [s.raw])));
  return signed.map((s) => s.hash);
}

interface Delivery {
  req: ReceivedRequest;
  deliveryId: string;
  messageId: string;
  type: string;
  txHash: string;
}

/** Every request the receiver got for webhook `id`, parsed, in arrival order. */
function requestsOf(receiver: WebhookReceiver, id: string): Delivery[] {
  return receiver.requests
    .filter((req) => req.headers['txdesk-webhook'] === id)
    .map((req) => {
      const b = JSON.parse(req.body);
      return { req, deliveryId: b.deliveryId, messageId: b.messageId, type: b.payload.type, txHash: b.payload.result.transactionHash };
    });
}

const accepted = (ds: Delivery[]) => ds.filter((d) => d.req.answered !== null && d.req.answered < 300);
const open = (ds: Delivery[]) => ds.filter((d) => d.req.doneAtMs === null);

/** True once the receipt and the confirmation of every transaction were accepted. */
function allAccepted(receiver: WebhookReceiver, id: string, hashes: string[]): boolean {
  const got = new Set(accepted(requestsOf(receiver, id)).map((d) => `${d.txHash}:${d.type}`));
  return hashes.every((h) => got.has(`${h}:receipt`) && got.has(`${h}:confirmation`));
}

/**
 * Kills `victim` once `enough` holds of the webhook's requests (some accepted, more still open) and one open request is
 * still in the first third of the receiver's `delayMs`; returns the requests the kill cut: open at that moment and
 * ended without an answer. (Without the fresh one, every open request could be about to be answered: on a busy box
 * the receiver then answers them all before the dead process's sockets close, and the kill cuts nothing.)
 */
async function killMidFlight(
  victim: ServiceProcess,
  receiver: WebhookReceiver,
  id: string,
  delayMs: number,
  enough: (ds: Delivery[]) => boolean,
): Promise<Delivery[]> {
  const fresh = (ds: Delivery[]) => open(ds).some((d) => Date.now() - d.req.atMs < delayMs / 3);
  await waitFor(
    'deliveries accepted, more in flight, one just sent',
    () => {
      const ds = requestsOf(receiver, id);
      return enough(ds) && fresh(ds);
    },
    { timeoutMs: 60_000, everyMs: 10 },
  );
  victim.child.kill('SIGKILL');
  const openAtKill = open(requestsOf(receiver, id));
  await victim.exited;
  // The kernel closes the dead process's sockets, so each of its requests ends unanswered; another sender's are
  // answered within the receiver's delay.
  await waitFor('the requests open at the kill to end', () => openAtKill.every((d) => d.req.doneAtMs !== null), { timeoutMs: 10_000 });
  return openAtKill.filter((d) => d.req.answered === null);
}

/**
 * The contract after the crash: each transaction's receipt and confirmation accepted (and nothing else sent); one
 * delivery id per message (a message seen twice was a retry of the same delivery); per transaction, the receipt
 * accepted before the confirmation was first sent; no delivery id in flight twice at once; nothing left pending.
 */
async function expectNothingLost(
  p: ServiceProcess,
  account: Account,
  receiver: WebhookReceiver,
  id: string,
  hashes: string[],
): Promise<Delivery[]> {
  await waitFor('no delivery left pending', async () => (await hooks(p, account, `/${id}`)).body.pending === 0, { timeoutMs: 30_000 });
  const all = requestsOf(receiver, id);
  expect(open(all)).toEqual([]);

  const deliveryOf = new Map<string, Set<string>>();
  for (const d of all) deliveryOf.set(d.messageId, (deliveryOf.get(d.messageId) ?? new Set()).add(d.deliveryId));
  const twoIds = [...deliveryOf].filter(([, ids]) => ids.size > 1);
  expect(twoIds, 'messages sent under more than one delivery id').toEqual([]);
  const acceptedMessages = new Set(accepted(all).map((d) => d.messageId));
  expect(
    [...deliveryOf.keys()].filter((m) => !acceptedMessages.has(m)),
    'messages tried but never accepted',
  ).toEqual([]);

  const hashSet = new Set(hashes);
  expect(
    all.filter((d) => !hashSet.has(d.txHash)),
    'deliveries of transactions not tracked',
  ).toEqual([]);
  for (const h of hashes) {
    const mine = all.filter((d) => d.txHash === h);
    const messages = new Map(mine.map((d) => [d.messageId, d.type]));
    expect([...messages.values()].sort(), `the messages of ${h}`).toEqual(['confirmation', 'receipt']);
    const receiptAccepted = Math.min(
      ...accepted(mine)
        .filter((d) => d.type === 'receipt')
        .map((d) => d.req.doneAtMs!),
    );
    const confirmationSent = Math.min(...mine.filter((d) => d.type === 'confirmation').map((d) => d.req.atMs));
    expect(receiptAccepted, `the receipt of ${h} accepted before its confirmation was sent`).toBeLessThanOrEqual(confirmationSent);
  }

  // One delivery in flight at a time: each request of a delivery id starts after the previous one ended.
  const byDelivery = new Map<string, Delivery[]>();
  for (const d of all) byDelivery.set(d.deliveryId, [...(byDelivery.get(d.deliveryId) ?? []), d]);
  for (const [deliveryId, tries] of byDelivery) {
    tries.sort((a, b) => a.req.atMs - b.req.atMs);
    for (let i = 1; i < tries.length; i++) {
      expect(tries[i]!.req.atMs, `delivery ${deliveryId}: a try before the previous one ended`).toBeGreaterThanOrEqual(
        tries[i - 1]!.req.doneAtMs!,
      );
    }
  }
  expect((await hooks(p, account, `/${id}`)).body).toMatchObject({ state: 'active', pending: 0 });
  return all;
}

describe('SIGKILL while webhook deliveries are in flight', () => {
  it('on SQLite: the service started again on its data dir sends the cut deliveries and the rest, nothing lost', async () => {
    const delayMs = 300;
    const receiver = await slowReceiver(delayMs);
    const dir = dataDir();
    const first = await service({ dataDir: dir });
    const account = await signup(first, 'webhook-crash-sqlite@example.com');
    const created = await hooks(first, account, '', { method: 'POST', body: { url: receiver.url } });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const hashes = await trackAndSend(first, account.clientId, DEV_KEYS[3]!, TRANSACTIONS);

    const cut = await killMidFlight(first, receiver, id, delayMs, (ds) => accepted(ds).length >= 10 && open(ds).length >= 3);
    expect(cut.length, 'requests cut by the kill').toBeGreaterThan(0);
    expect(allAccepted(receiver, id, hashes)).toBe(false);

    const second = await service({ dataDir: dir });
    await waitFor('every receipt and confirmation accepted after the restart', () => allAccepted(receiver, id, hashes), {
      timeoutMs: 90_000,
    });
    const all = await expectNothingLost(second, account, receiver, id, hashes);
    // What the kill cut was sent again, under the same delivery id, and accepted.
    for (const c of cut)
      expect(
        accepted(all).some((d) => d.deliveryId === c.deliveryId && d.req.atMs > c.req.atMs),
        `cut delivery ${c.deliveryId} sent again`,
      ).toBe(true);
  }, 180_000);

  describe('on a PostgreSQL fleet of two', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase('webhook_crash');
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('the survivor sends the dead instance’s claimed deliveries after their lease, and the rest, nothing lost', async () => {
      const delayMs = 500;
      const receiver = await slowReceiver(delayMs);
      // Started together: they race for the migration lock and the leaderships.
      const both = await Promise.all([0, 1].map(() => service({ dataDir: dataDir(), database: database.url })));
      // The webhook's limit in flight holds across the fleet, so from outside it is not known which instance holds an
      // open request. The victim is the watcher leader (it stores the messages), and the other is paused before any
      // webhook exists: every request before the kill is the victim's, and the kill cuts some of them. Resumed, the
      // survivor takes the watcher role and the deliveries.
      const victim = await waitFor(
        'one watcher leader',
        async () => {
          const leaders = [];
          for (const p of both) if ((await serviceHealth(p)).roles.includes('watcher-leader')) leaders.push(p);
          return leaders.length === 1 ? leaders[0] : undefined;
        },
        { timeoutMs: 30_000 },
      );
      const survivor = both.find((p) => p !== victim)!;
      survivor.child.kill('SIGSTOP');
      let cut: Delivery[];
      let account: Account;
      let id: string;
      let hashes: string[];
      try {
        account = await signup(victim, 'webhook-crash-fleet@example.com');
        const created = await hooks(victim, account, '', { method: 'POST', body: { url: receiver.url } });
        expect(created.status).toBe(201);
        id = (created.body as { id: string }).id;
        hashes = await trackAndSend(victim, account.clientId, DEV_KEYS[4]!, TRANSACTIONS);
        // Most of the webhook's 8 slots open: some requests are early in the receiver's delay, so the kill cuts them
        // before it answers (a dying process's sockets close a moment after the signal).
        cut = await killMidFlight(victim, receiver, id, delayMs, (ds) => accepted(ds).length >= 10 && open(ds).length >= 6);
      } finally {
        survivor.child.kill('SIGCONT');
      }
      const killedAt = Date.now();
      expect(cut.length, 'requests cut by the kill').toBeGreaterThan(0);

      await waitFor('every receipt and confirmation accepted by way of the survivor', () => allAccepted(receiver, id, hashes), {
        timeoutMs: LEASE_MS + 60_000,
      });
      const all = await expectNothingLost(survivor, account, receiver, id, hashes);
      // A cut delivery was claimed by the victim: the survivor sent it again, same delivery id, only once the claim's
      // lease ran out (claimed just before the cut request reached the receiver; 2 s of slack for the clocks' reads).
      for (const c of cut) {
        const retry = all.find((d) => d.deliveryId === c.deliveryId && d.req.atMs > c.req.atMs);
        expect(retry, `cut delivery ${c.deliveryId} sent again`).toBeDefined();
        expect(retry!.req.atMs - c.req.atMs, `cut delivery ${c.deliveryId} sent again only after its lease`).toBeGreaterThanOrEqual(
          LEASE_MS - 2_000,
        );
        expect(retry!.req.atMs).toBeGreaterThan(killedAt);
      }
    }, 240_000);
  });
});
