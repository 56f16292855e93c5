// Webhooks offered to strangers (no --allow-private-webhooks): URLs naming or resolving to loopback, private,
// link-local or metadata addresses are refused at creation, and a host that resolves elsewhere by delivery time (DNS
// rebinding) is refused then, without a connection. Limits per clientId hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAll } from '../../../src/service/webhooks/webhook-address-guard.js';
import { call } from '../../support/service/service-harness.js';
import { startTrackerStack, type TrackerStack } from '../../support/service/tracker-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/service/webhook-receiver.js';
import { waitFor } from '../../support/poll.js';

/** A resolver for made-up names (nothing here reaches real DNS); `rebind.test` answers public first, loopback after. */
let rebindCalls = 0;
const lookup: LookupAll = async (host) => {
  if (host === 'internal.test') return [{ address: '10.1.2.3', family: 4 }];
  if (host === 'mixed.test')
    return [
      { address: '93.184.216.34', family: 4 },
      { address: '192.168.1.1', family: 4 },
    ];
  if (host === 'public.test') return [{ address: '93.184.216.34', family: 4 }];
  if (host === 'rebind.test') return [{ address: rebindCalls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
  if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let stack: TrackerStack;
let receiver: WebhookReceiver;
beforeAll(async () => {
  stack = await startTrackerStack({
    service: { maxWebhooksPerClient: 3, webhookTuning: { lookup, backoff: { baseMs: 100, capMs: 500 } } },
  });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

/** The webhook API as a program of the account calls it: its API secret in the Authorization header. */
const hooks = (account: { apiSecret: string }, rest = '', init: Parameters<typeof call>[1] = {}) =>
  call(`${stack.service.url}/tracker/v1/webhooks${rest}`, { ...init, token: account.apiSecret });

describe('webhook URLs a stranger may not use', () => {
  it.each([
    ['a loopback address', 'http://127.0.0.1:9/hook'],
    ['loopback over https', 'https://127.0.0.1/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['a private address', 'https://10.0.0.1/hook'],
    ['a private address in IPv4-mapped IPv6', 'https://[::ffff:192.168.0.1]/hook'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['a link-local address', 'https://169.254.10.1/'],
    ['a hostname that resolves to loopback', 'https://localhost/hook'],
    ['a hostname that resolves to a private address', 'https://internal.test/hook'],
    ['a hostname with one private address among public ones', 'https://mixed.test/hook'],
    ['a hostname that does not resolve', 'https://nowhere.test/hook'],
    ['plain http to a public host', 'http://public.test/hook'],
  ])('refuses %s', async (_what, url) => {
    const account = await stack.newAccount();
    const r = await hooks(account, '', { method: 'POST', body: { url } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_PARAMETER');
    expect(r.body.error.message.length).toBeGreaterThan(20);
    expect((await hooks(account)).body.data).toEqual([]);
  });

  it('accepts a public https host, and refuses it at delivery when it resolves to loopback by then (no connection made)', async () => {
    const account = await stack.newAccount();
    expect((await hooks(account, '', { method: 'POST', body: { url: 'https://public.test/hook' } })).status).toBe(201);
    rebindCalls = 0;
    const created = await hooks(account, '', { method: 'POST', body: { url: `https://rebind.test:${receiver.port}/hook` } });
    expect(created.status).toBe(201);
    const tested = await hooks(account, `/${created.body.id}/test`, { method: 'POST' });
    expect(tested.body).toMatchObject({ ok: false, status: null });
    expect(tested.body.error).toMatch(/127\.0\.0\.1|loopback/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('limits webhooks per clientId, with a sentence saying what to do', async () => {
    const account = await stack.newAccount();
    for (let i = 0; i < 3; i++)
      expect((await hooks(account, '', { method: 'POST', body: { url: `https://public.test/h${i}` } })).status).toBe(201);
    const fourth = await hooks(account, '', { method: 'POST', body: { url: 'https://public.test/h4' } });
    expect(fourth.status).toBe(403);
    expect(fourth.body.error.message).toMatch(/at most 3 webhooks/);
    const id = (await hooks(account)).body.data[0].id;
    await hooks(account, `/${id}`, { method: 'DELETE' });
    expect((await hooks(account, '', { method: 'POST', body: { url: 'https://public.test/h5' } })).status).toBe(201);
  });

  it('records a delivery refused at send time as a failure of the webhook', async () => {
    const account = await stack.newAccount();
    rebindCalls = 0;
    const { id } = (await hooks(account, '', { method: 'POST', body: { url: `https://rebind.test:${receiver.port}/hook` } })).body;
    const ws = await import('../../support/service/tracker-harness.js');
    const client = await ws.RawTrackerClient.connect(ws.trackerWsUrl(stack.service.url, account.clientId));
    const sent = await ws.sendTransfer(stack.wallet(6));
    await client.request('track_transaction', [sent.hash, 0, 60_000]);
    await client.close();
    const failed = await waitFor('a refused delivery', async () => {
      const w = (await hooks(account, `/${id}`)).body;
      return w.lastError ? w : null;
    });
    expect(failed.lastError).toMatch(/127\.0\.0\.1|loopback/);
    expect(receiver.requests).toHaveLength(0);
  });
});
