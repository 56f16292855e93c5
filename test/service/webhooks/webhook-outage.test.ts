// A receiver that fails: it answers 500 for a while, then hangs past the timeout, then is down; every message arrives
// afterwards, tries spaced by a growing backoff, nothing twice except as tries of one delivery id. The outage lasts
// OUTAGE_MS: 10 s, over three times the backoff's cap, so deliveries keep failing at the cap for a while (what a longer
// outage adds is only more of those tries); TXDESK_WEBHOOK_OUTAGE_MS=60000 runs the full minute.
// With a short retry window the webhook turns failing, holds its deliveries, and sends them once resumed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../support/service/service-harness.js';
import {
  RawTrackerClient,
  sendTransfer,
  startTrackerStack,
  trackerWsUrl,
  type TrackerStack,
} from '../../support/service/tracker-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/service/webhook-receiver.js';
import { waitFor } from '../../support/poll.js';

const BACKOFF = { baseMs: 200, capMs: 3_000 };
const OUTAGE_MS = Number(process.env.TXDESK_WEBHOOK_OUTAGE_MS ?? 10_000);
/** The webhook API as a program of the account calls it: its API secret in the Authorization header. */
const hooks = (stack: TrackerStack, account: { apiSecret: string }, rest = '', init: Parameters<typeof call>[1] = {}) =>
  call(`${stack.service.url}/tracker/v1/webhooks${rest}`, { ...init, token: account.apiSecret });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tracks `n` transfers (confirmation 1) and sends them; returns their hashes. */
async function trackTransfers(stack: TrackerStack, clientId: string, n: number): Promise<string[]> {
  const ws = await RawTrackerClient.connect(trackerWsUrl(stack.service.url, clientId));
  const wallet = stack.wallet(5);
  const hashes: string[] = [];
  for (let i = 0; i < n; i++) {
    const sent = await sendTransfer(wallet);
    await ws.request('track_transaction', [sent.hash, 1, 60_000]);
    hashes.push(sent.hash);
  }
  await ws.close();
  return hashes;
}

describe('a receiver that fails, then comes back', () => {
  let stack: TrackerStack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    stack = await startTrackerStack({ service: { allowPrivateWebhooks: true, webhookTuning: { backoff: BACKOFF, timeoutMs: 500 } } });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  it(
    'gets every message after 500s, timeouts and an outage, with backoff between tries and no message twice',
    async () => {
      const account = await stack.newAccount();
      const { id } = (await hooks(stack, account, '', { method: 'POST', body: { url: receiver.url } })).body as { id: string };
      receiver.mode = { kind: 'status', status: 500 };
      const hashes = await trackTransfers(stack, account.clientId, 5);
      await waitFor('a few tries answered 500', () => receiver.requests.length >= 6);
      const during = (await hooks(stack, account, `/${id}`)).body;
      expect(during).toMatchObject({ state: 'active', lastError: expect.stringMatching(/500/) });
      expect(during.failingSince).not.toBeNull();
      receiver.mode = { kind: 'hang' };
      const hangFrom = receiver.requests.length;
      await waitFor('tries that time out', () => receiver.requests.length >= hangFrom + 2);
      await waitFor('a timeout as the last error', async () =>
        /within|time/i.test((await hooks(stack, account, `/${id}`)).body.lastError ?? ''),
      );
      await receiver.down();
      const downAt = Date.now();
      await sleep(OUTAGE_MS);
      expect((await hooks(stack, account, `/${id}`)).body).toMatchObject({ state: 'active', pending: expect.any(Number) });
      receiver.mode = { kind: 'ok' };
      await receiver.start();

      const want = hashes.length * 2; // receipt and confirmation of each
      await waitFor('every message after the outage', () => receiver.accepted().length >= want, { timeoutMs: 60_000 });
      await sleep(500);
      const accepted = receiver.accepted();
      expect(accepted).toHaveLength(want);
      expect(accepted.every((a) => a.req.atMs > downAt + OUTAGE_MS)).toBe(true);
      expect(new Set(accepted.map((a) => `${a.body.payload.result.transactionHash}:${a.body.payload.type}`)).size).toBe(want);
      for (const h of hashes)
        expect(accepted.filter((a) => a.body.payload.result.transactionHash === h).map((a) => a.body.payload.type)).toEqual([
          'receipt',
          'confirmation',
        ]);

      // Every request of one message carried one delivery id, and its tries were spaced by at least half the base delay,
      // growing (up to the cap) while the receiver failed.
      const byMessage = new Map<string, { at: number; delivery: string; attempt: number }[]>();
      for (const r of receiver.requests) {
        const b = JSON.parse(r.body);
        byMessage.set(b.messageId, [
          ...(byMessage.get(b.messageId) ?? []),
          { at: r.atMs, delivery: b.deliveryId, attempt: Number(r.headers['txdesk-attempt']) },
        ]);
      }
      for (const tries of byMessage.values()) {
        expect(new Set(tries.map((t) => t.delivery)).size).toBe(1);
        // Tries while the receiver was down (refused connections) are counted but never recorded here.
        for (let i = 1; i < tries.length; i++) expect(tries[i]!.attempt).toBeGreaterThan(tries[i - 1]!.attempt);
        for (let i = 1; i < tries.length; i++) expect(tries[i]!.at - tries[i - 1]!.at).toBeGreaterThanOrEqual(BACKOFF.baseMs / 2 - 20);
      }
      const first = [...byMessage.values()].sort((a, b) => b.length - a.length)[0]!;
      expect(first.length).toBeGreaterThanOrEqual(4);
      const gaps = first.slice(1).map((t, i) => t.at - first[i]!.at);
      expect(Math.max(...gaps)).toBeGreaterThan(BACKOFF.baseMs * 2);
      const after = (await hooks(stack, account, `/${id}`)).body;
      expect(after).toMatchObject({ state: 'active', pending: 0, failingSince: null, lastError: null });
    },
    90_000 + OUTAGE_MS,
  );
});

describe('a receiver that fails for the whole retry window', () => {
  let stack: TrackerStack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    stack = await startTrackerStack({ service: { allowPrivateWebhooks: true, webhookTuning: { backoff: BACKOFF, retryWindowMs: 1_500 } } });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  it('turns the webhook failing; its deliveries wait, and go out once it is set active again', async () => {
    const account = await stack.newAccount();
    const { id } = (await hooks(stack, account, '', { method: 'POST', body: { url: receiver.url } })).body as { id: string };
    receiver.mode = { kind: 'status', status: 503 };
    const [hash] = await trackTransfers(stack, account.clientId, 1);
    await waitFor('the webhook to turn failing', async () => (await hooks(stack, account, `/${id}`)).body.state === 'failing', {
      timeoutMs: 30_000,
    });
    receiver.mode = { kind: 'ok' };
    const quiet = receiver.requests.length;
    await sleep(BACKOFF.capMs + 1_000);
    expect(receiver.requests.length).toBe(quiet); // failing: nothing is tried
    expect((await hooks(stack, account, `/${id}`)).body).toMatchObject({ state: 'failing', pending: expect.any(Number) });
    const resumed = await hooks(stack, account, `/${id}`, { method: 'PATCH', body: { state: 'active' } });
    expect(resumed.body).toMatchObject({ state: 'active', failingSince: null });
    await waitFor('the held messages', () => receiver.accepted().filter((a) => a.body.payload.result.transactionHash === hash).length >= 2);
  }, 60_000);
});
