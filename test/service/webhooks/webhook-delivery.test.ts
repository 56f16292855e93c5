// Webhooks on a real service and anvil, to a real receiver: every message of 200 tracked transactions arrives signed
// (verifyWebhook accepts it), in order per transaction, equal to what the WebSocket carries; replay sends exactly the
// range asked for again; a redirect is not followed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@txdesk/tracker/webhook-signature';
import { call } from '../../support/service/service-harness.js';
import {
  RawTrackerClient,
  signTransfer,
  startTrackerStack,
  trackerWsUrl,
  type TrackerStack,
} from '../../support/service/tracker-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/service/webhook-receiver.js';
import { waitFor } from '../../support/poll.js';

let stack: TrackerStack;
let receiver: WebhookReceiver;
beforeAll(async () => {
  stack = await startTrackerStack({ service: { allowPrivateWebhooks: true } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

/** The webhook API as a program of the account calls it: its API secret in the Authorization header. */
const hooks = (account: { apiSecret: string }, rest = '', init: Parameters<typeof call>[1] = {}) =>
  call(`${stack.service.url}/tracker/v1/webhooks${rest}`, { ...init, token: account.apiSecret });
const RANK = { pending: 0, receipt: 1, confirmation: 2 } as Record<string, number>;

describe('webhook deliveries', () => {
  it('delivers every message of 200 tracked transactions, signed, in order per transaction, as the WebSocket carries them', async () => {
    const account = await stack.newAccount();
    const created = await hooks(account, '', { method: 'POST', body: { url: receiver.url } });
    expect(created.status).toBe(201);
    const { id, secret } = created.body as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect((await hooks(account, `/${id}`)).body).not.toHaveProperty('secret');

    // A WebSocket subscription of the same client gets the same messages: the two are compared below.
    const ws = await RawTrackerClient.connect(trackerWsUrl(stack.service.url, account.clientId));
    await ws.request('tracker_subscribe', ['ws', 'transaction', 60_000]);
    // Acked as they come: the WebSocket sends a transaction's next message only after its previous one is acked.
    ws.ws.on('message', (data) => {
      const f = JSON.parse(String(data));
      if (f.id === 'ws' && f.result?.ackId) ws.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'ack', params: [f.result.ackId] }));
    });
    const wallets = Array.from({ length: 10 }, (_, i) => stack.wallet(i));
    const signed = [];
    for (const w of wallets) {
      const base = await w.getNonce('pending');
      for (let n = 0; n < 20; n++) signed.push(await signTransfer(w, { nonce: base + n }));
    }
    for (let i = 0; i < signed.length; i += 100) {
      await Promise.all(signed.slice(i, i + 100).map((s) => ws.request('track_transaction', [s.hash, 1, 60_000])));
    }
    for (const s of signed) await stack.provider.send('eth_sendRawTransaction', [s.raw]);

    const hashes = new Set(signed.map((s) => s.hash));
    const byTx = () => {
      const m = new Map<string, string[]>();
      for (const { body } of receiver.accepted()) {
        if (body.webhookId !== id) continue;
        const h = body.payload.result.transactionHash as string;
        m.set(h, [...(m.get(h) ?? []), body.payload.type]);
      }
      return m;
    };
    await waitFor(
      'a confirmation of every transaction by webhook',
      () => [...hashes].every((h) => byTx().get(h)?.includes('confirmation')),
      { timeoutMs: 120_000 },
    );

    const mine = receiver.requests.filter((r) => r.headers['txdesk-webhook'] === id);
    for (const r of mine) {
      const v = verifyWebhook(r.body, r.headers['txdesk-signature'] as string, secret);
      expect(v).toEqual({ ok: true, timestamp: expect.any(Number) });
      expect(r.headers['txdesk-delivery']).toBe(JSON.parse(r.body).deliveryId);
    }
    expect(verifyWebhook(mine[0]!.body, mine[0]!.headers['txdesk-signature'] as string, 'whsec_wrong').ok).toBe(false);
    // In order per transaction: by arrival, each transaction's types never go back.
    for (const [h, types] of byTx()) {
      expect(hashes.has(h)).toBe(true);
      expect(types.map((t) => RANK[t]!)).toEqual([...types.map((t) => RANK[t]!)].sort((a, b) => a - b));
      expect(types.filter((t) => t === 'receipt')).toHaveLength(1);
    }
    // Exactly as the WebSocket carries them: same message ids, same payloads.
    const accepted = receiver.accepted().filter((a) => a.body.webhookId === id);
    await waitFor('the same messages over the WebSocket', () => ws.pushes.length >= accepted.length);
    const wsByMessage = new Map(ws.pushes.map((p) => [p.result.messageId, p.result.payload]));
    for (const { body } of accepted) expect(body.payload).toEqual(wsByMessage.get(body.messageId));
    expect(new Set(accepted.map((a) => a.body.deliveryId)).size).toBe(accepted.length);
    expect(accepted.every((a) => a.body.platform === 'ethereum' && a.body.network === 'local')).toBe(true);
    await ws.close();

    const listed = await hooks(account);
    expect(listed.body.data).toEqual([expect.objectContaining({ id, state: 'active', pending: 0, lastError: null, url: receiver.url })]);

    // Replay: from a message on sends exactly that message and the later ones again, with their delivery ids.
    const ordered = [...accepted].sort((a, b) => (a.body.messageId < b.body.messageId ? -1 : 1));
    const from = ordered[ordered.length - 50]!.body.messageId as string;
    const expected = new Set(ordered.slice(-50).map((a) => a.body.deliveryId));
    const seen = receiver.requests.length;
    const replay = await hooks(account, `/${id}/replay`, { method: 'POST', body: { fromMessageId: from } });
    expect(replay.body).toEqual({ replayed: 50 });
    await waitFor('the 50 replayed deliveries', () => receiver.requests.length - seen >= 50);
    await new Promise((r) => setTimeout(r, 500));
    const replayed = receiver.requests.slice(seen);
    expect(new Set(replayed.map((r) => r.headers['txdesk-delivery']))).toEqual(expected);
    expect(replayed).toHaveLength(50);
    expect(replayed.every((r) => r.headers['txdesk-replay'] === '1')).toBe(true);
    // A time range in the future holds nothing.
    expect((await hooks(account, `/${id}/replay`, { method: 'POST', body: { from: Date.now() + 60_000 } })).body).toEqual({ replayed: 0 });
  });

  it('does not follow a redirect: the delivery fails with a sentence and the target is never asked', async () => {
    const target = await startWebhookReceiver('/metadata');
    const redirecting = await startWebhookReceiver();
    redirecting.mode = { kind: 'redirect', location: target.url };
    try {
      const account = await stack.newAccount();
      const { id } = (await hooks(account, '', { method: 'POST', body: { url: redirecting.url } })).body as { id: string };
      const tested = await hooks(account, `/${id}/test`, { method: 'POST' });
      expect(tested.body).toMatchObject({ ok: false, status: 302 });
      expect(tested.body.error).toMatch(/redirect/i);
      expect(redirecting.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
      await redirecting.close();
    }
  });

  it('answers mistakes with one sentence and the right status', async () => {
    const account = await stack.newAccount();
    expect((await call(`${stack.service.url}/tracker/v1/webhooks`)).status).toBe(401);
    expect((await call(`${stack.service.url}/tracker/v1/webhooks?clientId=${account.clientId}`)).status).toBe(401);
    expect((await hooks({ apiSecret: 'nope' })).status).toBe(401);
    const bad = await hooks(account, '', { method: 'POST', body: { url: 'ftp://example.com/x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/https/);
    const nothing = await hooks(account, '', { method: 'POST', body: { url: receiver.url, trackerMessages: false } });
    expect(nothing.status).toBe(400);
    expect(nothing.body.error.message).toMatch(/deliver nothing/);
    expect((await hooks(account, '', { method: 'POST', body: { url: receiver.url, network: 'nowhere' } })).status).toBe(404);
    const other = await stack.newAccount();
    const { id } = (await hooks(other, '', { method: 'POST', body: { url: receiver.url } })).body as { id: string };
    expect((await hooks(account, `/${id}`)).status).toBe(404);
    expect((await hooks(account, `/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await hooks(other, `/${id}`, { method: 'PATCH', body: { state: 'nope' } })).status).toBe(400);
    expect((await hooks(other, `/${id}/replay`, { method: 'POST', body: {} })).status).toBe(400);
    expect((await hooks(other, `/${id}`, { method: 'DELETE' })).body).toEqual({ deleted: true });
  });
});
