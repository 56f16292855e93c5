// The browser bridge: requests follow the contract table, errors surface as { code, message }, one event stream is shared,
// and a reconnect resyncs what was missed.
import { describe, expect, it } from 'vitest';
import { createHttpApi, type EventSourceLike } from '../../src/renderer/src/transport/http-api.js';
import { ApiError } from '../../src/renderer/src/transport/api-error.js';
import type { TxRecord } from '../../src/shared/tx-record.js';

type Call = { url: string; method: string; body: unknown };

function fakeFetch(reply: (c: Call) => { status: number; body?: unknown }) {
  const calls: Call[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const c = { url: String(input), method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined };
    calls.push(c);
    const r = reply(c);
    return new Response(r.body === undefined ? '' : JSON.stringify(r.body), {
      status: r.status,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

class FakeEvents implements EventSourceLike {
  static all: FakeEvents[] = [];
  listeners = new Map<string, ((e: { data?: unknown }) => void)[]>();
  closed = false;
  readyState = 0;
  constructor(readonly url: string) {
    FakeEvents.all.push(this);
  }
  addEventListener(type: string, l: (e: { data?: unknown }) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  emit(type: string, data?: unknown) {
    this.listeners.get(type)?.forEach((l) => l({ data: data === undefined ? undefined : JSON.stringify(data) }));
  }
  close() {
    this.closed = true;
  }
}

const hash = `0x${'cd'.repeat(32)}`;

describe('createHttpApi', () => {
  it('maps every call onto its route', async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: {} }));
    const api = createHttpApi({ baseUrl: 'http://127.0.0.1:3000', fetch, openEvents: (u) => new FakeEvents(u) });
    await api.getTransaction(hash);
    await api.sendTransaction();
    await api.listTokens('0x' + 'a'.repeat(40), { page: 1, size: 6, contractAddresses: ['0x' + 'b'.repeat(40)] });
    await api.updateSettings({ network: 'sepolia' });
    await api.importKey({ privateKey: 'ff'.repeat(32) });
    await api.setCongestion('high');
    await api.resolveTokenMetadata(['http://m/1']);
    expect(calls.map((c) => `${c.method} ${c.url.replace('http://127.0.0.1:3000', '')}`)).toEqual([
      `GET /api/tx/${hash}`,
      'POST /api/tx',
      `GET /nft/v1/accounts/0x${'a'.repeat(40)}/tokens?page=1&size=6&contractAddresses=0x${'b'.repeat(40)}`,
      'PATCH /api/settings',
      'POST /api/key/import',
      'PUT /api/devchain/congestion',
      'POST /api/token-metadata',
    ]);
    expect(calls.map((c) => c.body)).toEqual([
      undefined,
      undefined,
      undefined,
      { network: 'sepolia' },
      { privateKey: 'ff'.repeat(32) },
      { level: 'high' },
      { uris: ['http://m/1'] },
    ]);
  });

  it('turns an error envelope into an ApiError with its code, and a dead server into NETWORK', async () => {
    const { fetch } = fakeFetch(() => ({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'No transaction 0xcd…; check the hash.' } },
    }));
    const api = createHttpApi({ fetch, openEvents: (u) => new FakeEvents(u) });
    await expect(api.getTransaction(hash)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'No transaction 0xcd…; check the hash.' });
    const html = createHttpApi({ fetch: fakeFetch(() => ({ status: 502 })).fetch, openEvents: (u) => new FakeEvents(u) });
    await expect(html.listTransactions()).rejects.toMatchObject({ code: 'INTERNAL' });
    const dead = createHttpApi({
      fetch: (async () => {
        throw new TypeError('fetch failed');
      }) as typeof fetch,
      openEvents: (u) => new FakeEvents(u),
    });
    const e = await dead.getAppInfo().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ code: 'NETWORK' });
  });

  it('hands the page to the login page once when the server refuses the session, but not for a refused sign-in', async () => {
    const envelope = (message: string) => JSON.stringify({ error: { code: 'UNAUTHORIZED', message } });
    let tokenCheck = true;
    const fetch = (async () =>
      tokenCheck
        ? new Response(envelope('This request needs the API token: send "Authorization: Bearer <token>" with the token in /d/api-token.'), {
            status: 401,
            headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="txdesk"' },
          })
        : new Response(envelope('The e-mail or password is wrong; check them and retry.'), {
            status: 401,
            headers: { 'content-type': 'application/json' },
          })) as typeof globalThis.fetch;
    let redirects = 0;
    const api = createHttpApi({ fetch, openEvents: (u) => new FakeEvents(u), onUnauthorized: () => redirects++ });
    await expect(api.listTransactions()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(api.getSettings()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(redirects).toBe(1);

    tokenCheck = false;
    let signInRedirects = 0;
    const signedIn = createHttpApi({ fetch, openEvents: (u) => new FakeEvents(u), onUnauthorized: () => signInRedirects++ });
    await expect(signedIn.signIn({ email: 'a@b.c', password: 'wrong' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The e-mail or password is wrong; check them and retry.',
    });
    expect(signInRedirects).toBe(0);
  });

  it('shares one event stream, closes it with the last subscriber, and resyncs after a reconnect', async () => {
    FakeEvents.all = [];
    const record = { transactionHash: hash, updatedAt: 'x' } as TxRecord;
    const { fetch, calls } = fakeFetch((c) => ({
      status: 200,
      body: c.url.endsWith('/api/tx') ? [record] : { blockNumber: 5, baseFeeWei: '1', congestion: 'off' },
    }));
    const api = createHttpApi({ fetch, openEvents: (u) => new FakeEvents(u) });
    const txs: string[] = [];
    const blocks: number[] = [];
    const off1 = api.onTransactionChanged((r) => txs.push(r.transactionHash));
    const off2 = api.onDevchainStatus((s) => blocks.push(s.blockNumber));
    expect(FakeEvents.all).toHaveLength(1);
    const es = FakeEvents.all[0]!;
    expect(es.url).toBe('/api/events');
    es.emit('open');
    es.emit('tx', record);
    es.emit('devchain', { blockNumber: 4, baseFeeWei: '1', congestion: 'off' });
    es.emit('tx', 'garbage');
    expect(txs).toEqual([hash]);
    expect(blocks).toEqual([4]);
    expect(calls).toHaveLength(0);
    es.emit('open'); // the browser reconnected on its own
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.map((c) => c.url)).toEqual(['/api/tx', '/api/devchain']);
    expect(txs).toEqual([hash, hash]);
    expect(blocks).toEqual([4, 5]);
    off1();
    expect(es.closed).toBe(false);
    off2();
    expect(es.closed).toBe(true);
  });

  it('says when the event stream is down, and opens a new one when the browser gives up', async () => {
    FakeEvents.all = [];
    const { fetch } = fakeFetch(() => ({ status: 200, body: [] }));
    const api = createHttpApi({ baseUrl: '', fetch, openEvents: (u) => new FakeEvents(u), reopenAfterMs: 10 });
    const states: string[] = [];
    api.onStreamState((s) => states.push(s));
    const off = api.onTransactionChanged(() => {});
    expect(api.streamState()).toBe('connecting');
    const first = FakeEvents.all[0]!;
    first.emit('open');
    first.emit('error'); // dropped; the browser retries this one itself (readyState 0)
    first.emit('open');
    first.readyState = 2;
    first.emit('error'); // refused for good: this bridge replaces it
    expect(first.closed).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect(FakeEvents.all).toHaveLength(2);
    FakeEvents.all[1]!.emit('open');
    expect(states).toEqual(['up', 'down', 'up', 'down', 'up']);
    off();
    expect(api.streamState()).toBe('connecting');
  });
});
