// Hostile input against a real data service process: random and malformed listing query strings, account bodies and
// tracker WebSocket frames (text, binary, huge, floods). Every input gets a clear 4xx or JSON-RPC error, never a 500,
// a crash or a hang, and the process's memory after a full GC stays bounded across the floods.
import fc from 'fast-check';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isClientError, isErrorEnvelope, rawRequest, type RawAnswer } from '../support/faults/reliability-http.js';
import {
  MB,
  killAllChildren,
  spawnService,
  tempDir,
  type ChildProc,
  type MemoryFigures,
  type ServiceInfo,
} from '../support/faults/reliability-procs.js';
import { waitFor } from '../support/poll.js';

/** Runs per property; raise with TXDESK_FUZZ_RUNS for a longer hunt. */
const RUNS = Number(process.env.TXDESK_FUZZ_RUNS ?? 300);
let svc: ChildProc<ServiceInfo>;
let acc: ChildProc<ServiceInfo>;
const dirs = [tempDir('txdesk-rel-fuzz-a-'), tempDir('txdesk-rel-fuzz-b-')];
let owner: string;
let contract: string;
let memBefore: MemoryFigures;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  svc = await spawnService({ mode: 'dev', dataDir: dirs[0]!.path, blockTimeSeconds: 1, rateLimitPerMinute: 0 });
  // A second service on the same chain, sign-up throttle off, so account fuzzing exercises validation rather than 429s.
  acc = await spawnService({ mode: 'node', nodeUrl: svc.info.nodeUrl, dataDir: dirs[1]!.path, authRateLimitPerMinute: 0 });
  contract = svc.info.collections![0]!.address.toLowerCase();
  const page = await rawRequest(svc.info.serviceUrl, { path: `/nft/v1/contracts/${contract}/tokens?clientId=${svc.info.clientId}&size=1` });
  expect(page.status).toBe(200);
  owner = page.body.data[0].owner;
  memBefore = await svc.memory();
});

afterAll(async () => {
  await svc?.stop();
  await acc?.stop();
  killAllChildren();
  for (const d of dirs) d.remove();
  if (Object.keys(figures).length) process.stdout.write(`[reliability] fuzz-service figures ${JSON.stringify(figures)}\n`);
});

/** No 5xx, and every non-2xx answer is the error envelope. */
function expectSane(a: RawAnswer, what: string): void {
  expect(a.status, `${what}: ${a.text.slice(0, 300)}`).toBeLessThan(500);
  if (a.status >= 400) expect(isErrorEnvelope(a), `${what}: envelope ${a.text.slice(0, 300)}`).toBe(true);
}

// ---------- listing ----------

type Verdict = { allowed: number[] };
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** What SPEC 2 says the listing must answer for a query; `either` where the spec is silent (we then only demand no 5xx). */
function listingVerdict(segment: string, params: URLSearchParams, clientId: string): Verdict {
  let decoded: string | null;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = null;
  }
  let bad = false;
  let either = false;
  const ids = params.getAll('clientId');
  const auth = ids.length === 1 && ids[0] === clientId;
  // An undecodable or empty path segment matches no route: 404 is as clear as 400 there.
  if (decoded === null || decoded === '') return { allowed: [400, 401, 404] };
  if (!ADDRESS.test(decoded)) bad = true;
  const names = new Set(params.keys());
  for (const name of names) {
    const values = params.getAll(name);
    if (name === 'clientId') continue;
    if (!['page', 'size', 'order_by', 'order_direction', 'contractAddresses'].includes(name)) {
      either = true;
      continue;
    }
    if (values.length > 1) {
      bad = true;
      continue;
    }
    const v = values[0]!;
    switch (name) {
      case 'page':
        if (!/^\d+$/.test(v)) bad = true;
        else if (v.length > 12 || Number(v) > 1_000_000_000) either = true;
        break;
      case 'size':
        if (!/^\d+$/.test(v)) bad = true;
        else if (v.length > 12) either = true;
        else if (Number(v) < 1 || Number(v) > 200) bad = true;
        break;
      case 'order_by':
        if (!['transfer_block_number', 'token_id', 'contract_address'].includes(v)) {
          if (['transfer_block_number', 'token_id', 'contract_address'].includes(v.toLowerCase())) either = true;
          else bad = true;
        }
        break;
      case 'order_direction':
        if (!['asc', 'desc'].includes(v.toLowerCase())) bad = true;
        break;
      case 'contractAddresses': {
        if (v.trim() === '') {
          either = true;
          break;
        }
        const parts = v.split(',');
        if (parts.length > 50) bad = true;
        else if (parts.some((p) => !ADDRESS.test(p.trim()))) bad = true;
        else if (parts.some((p) => p !== p.trim())) either = true;
        break;
      }
    }
  }
  if (!auth) return { allowed: bad || either || ids.length > 1 ? [400, 401] : [401] };
  if (bad) return { allowed: [400] };
  return { allowed: either ? [200, 400] : [200] };
}

const hex40 = fc.stringMatching(/^[0-9a-fA-F]{40}$/);
const addressLike = fc.oneof(
  hex40.map((h) => `0x${h}`),
  fc.constantFrom(
    '0x',
    '0x123',
    'zz',
    '',
    ' ',
    '0X' + 'a'.repeat(40),
    '0x' + 'g'.repeat(40),
    '0x' + 'a'.repeat(41),
    '%00',
    '0x' + 'a'.repeat(39) + '%',
  ),
  fc.string({ maxLength: 45 }),
);
const numberLike = fc.oneof(
  fc.integer({ min: -10, max: 250 }).map(String),
  fc.constantFrom(
    '',
    ' ',
    '1e3',
    '0x10',
    '1.5',
    '-0',
    '+1',
    '007',
    '1,2',
    'NaN',
    'Infinity',
    '99999999999999999999',
    '1000000000',
    '1000000001',
    '999999999999',
    '0'.repeat(14) + '5',
    '١٢',
  ),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.string({ maxLength: 12 }),
);
const paramValue = (name: string) => {
  switch (name) {
    case 'page':
    case 'size':
      return numberLike;
    case 'order_by':
      return fc.oneof(
        fc.constantFrom('transfer_block_number', 'token_id', 'contract_address', 'TOKEN_ID', 'id', '', 'token_id;DROP TABLE x'),
        fc.string({ maxLength: 20 }),
      );
    case 'order_direction':
      return fc.oneof(fc.constantFrom('asc', 'desc', 'ASC', 'Desc', 'up', '', 'asc '), fc.string({ maxLength: 8 }));
    case 'contractAddresses':
      return fc.oneof(
        fc.array(addressLike, { minLength: 1, maxLength: 5 }).map((a) => a.join(',')),
        fc
          .array(
            hex40.map((h) => `0x${h}`),
            { minLength: 49, maxLength: 52 },
          )
          .map((a) => a.join(',')),
        fc.constant(contract).map(() => contract),
        fc.constantFrom('', ',', ' , ', `${'0x' + 'a'.repeat(40)},`),
      );
    default:
      return fc.string({ maxLength: 30 });
  }
};
const paramName = fc.oneof(
  fc.constantFrom('page', 'size', 'order_by', 'order_direction', 'contractAddresses', 'clientId'),
  fc.constantFrom('Page', 'x', '', 'page[]', 'clientid', '__proto__'),
);
const encode = (s: string, raw: boolean) => (raw ? s.replace(/[\s#&]/g, encodeURIComponent) : encodeURIComponent(s));

const listingRequest = fc
  .record({
    pairs: fc.array(
      paramName.chain((n) =>
        fc.tuple(fc.constant(n), n === 'clientId' ? fc.constantFrom('__VALID__', '', 'nope', '__VALID__x') : paramValue(n), fc.boolean()),
      ),
      { maxLength: 7 },
    ),
    withClientId: fc.boolean(),
    address: fc.oneof(fc.constant('__OWNER__'), addressLike),
    rawAddress: fc.boolean(),
    kind: fc.constantFrom('account', 'contract'),
  })
  .map((r) => ({ ...r }));

describe('listing API under random query strings', () => {
  it('answers each with the status SPEC 2 implies (200, 400 or 401), never 5xx, envelope on errors, valid pages on 200', async () => {
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(listingRequest, async (r) => {
        const cid = svc.info.clientId;
        const addr = r.address === '__OWNER__' ? (r.kind === 'account' ? owner : contract) : r.address;
        const pairs = r.pairs.map(([k, v, raw]) => [k, v === '__VALID__' ? cid : v === '__VALID__x' ? `${cid}x` : v, raw] as const);
        if (r.withClientId) pairs.unshift(['clientId', cid, false]);
        const query = pairs.map(([k, v, raw]) => `${encode(k, raw)}=${encode(v, raw)}`).join('&');
        const segment = r.rawAddress ? encode(addr, true) : encodeURIComponent(addr);
        const path = r.kind === 'account' ? `/nft/v1/accounts/${segment}/tokens?${query}` : `/nft/v1/contracts/${segment}/tokens?${query}`;
        const a = await rawRequest(svc.info.serviceUrl, { path });
        statuses[a.status] = (statuses[a.status] ?? 0) + 1;
        expectSane(a, path);
        const params = new URL(path, 'http://x').searchParams;
        // The server parses the target like WHATWG URL does (a backslash is a slash): judge the path it sees.
        const segments = new URL(path, 'http://x').pathname.split('/').filter((p) => p.length > 0);
        // Raw bytes outside visible ASCII may be refused by the HTTP parser itself: a 400 envelope is right there too.
        const rawBytes = /[^\x21-\x7e]/.test(path);
        if (r.kind === 'account') {
          // A raw `?` in the address ends the path early (`/accounts/%20/%20?/tokens`): no such endpoint, 404.
          const v = segments.length === 5 && segments[4] === 'tokens' ? listingVerdict(segments[3]!, params, cid) : { allowed: [404] };
          const allowed = rawBytes ? [...v.allowed, 400] : v.allowed;
          expect(allowed, `${path} -> ${a.status} ${a.text.slice(0, 200)}`).toContain(a.status);
        } else {
          // The contract listing adds 404 for unknown contracts and refuses contractAddresses (not one of its parameters).
          expect([200, 400, 401, 404], path).toContain(a.status);
        }
        if (a.status === 200) {
          const size = Number(params.get('size') ?? 15);
          expect(Array.isArray(a.body.data)).toBe(true);
          expect(a.body.data.length).toBeLessThanOrEqual(size);
          expect(typeof a.body.pagination.totalCount).toBe('number');
          for (const u of [a.body.pagination.prevUrl, a.body.pagination.nextUrl]) {
            expect(typeof u).toBe('string');
            expect(u).not.toContain('clientId');
          }
        } else if (a.status >= 400) {
          expect(a.body.error.message.length, 'one clear sentence, not a dump').toBeLessThan(2000);
        }
      }),
      { numRuns: RUNS },
    );
    figures.listingStatuses = statuses;
    expect(statuses[200] ?? 0, 'some random queries are valid').toBeGreaterThan(0);
    expect(statuses[400] ?? 0).toBeGreaterThan(0);
  });

  it('broken HTTP (bad request lines, raw bytes, huge URLs and headers, unknown methods) gets a 4xx envelope or a clean close', async () => {
    const base = svc.info.serviceUrl;
    const cid = svc.info.clientId;
    const cases: { path: string; method?: string; headers?: Record<string, string> }[] = [
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&page=%` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&page=%zz` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&order_by=%C0%AF` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&size=%00` },
      { path: `/nft/v1/accounts/%E0%A4%A/tokens?clientId=${cid}` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&page=${'9'.repeat(5000)}` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&${'page=1&'.repeat(2000)}` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&contractAddresses=${`0x${'a'.repeat(40)},`.repeat(5000)}` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}`, method: 'DELETE' },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}`, method: 'BREW' },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${'a'.repeat(10_000)}` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}`, headers: { 'x-big': 'a'.repeat(20_000) } },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}`, headers: { 'content-length': 'abc' } },
      { path: `/../../etc/passwd` },
      { path: `*`, method: 'OPTIONS' },
      { path: `/nft/v1/accounts/${owner} /tokens` },
      { path: `/nft/v1/accounts/${owner}/tokens?clientId=${cid}\u0001` },
      { path: `/${'a/'.repeat(3000)}` },
    ];
    for (const c of cases) {
      const a = await rawRequest(base, c).catch((e: Error) => ({ error: e.message }));
      if ('error' in a) throw new Error(`${c.method ?? 'GET'} ${c.path.slice(0, 80)}: ${a.error}`);
      expect(a.status, `${c.method ?? 'GET'} ${c.path.slice(0, 120)} -> ${a.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(a.status, `${c.method ?? 'GET'} ${c.path.slice(0, 120)} -> ${a.text.slice(0, 200)}`).toBeLessThan(500);
      // Node answers oversized headers (431) itself before the app sees the request; everything else is our envelope.
      if (a.status !== 431) expect(isErrorEnvelope(a), `${c.path.slice(0, 120)} -> ${a.text.slice(0, 200)}`).toBe(true);
    }
    const health = await rawRequest(base, { path: '/health' });
    expect(health.status).toBe(200);
  });

  it('a hostile Host header is never reflected into prevUrl/nextUrl', async () => {
    for (const host of ['"><script>alert(1)</script>', 'evil.example/x?', 'a b', `${'a'.repeat(300)}.example`, 'user@evil.example']) {
      const a = await rawRequest(svc.info.serviceUrl, {
        path: `/nft/v1/accounts/${owner}/tokens?clientId=${svc.info.clientId}&size=1`,
        headers: { host },
      });
      expect(a.status, host).toBeLessThan(500);
      if (a.status === 200) {
        for (const u of [a.body.pagination.prevUrl, a.body.pagination.nextUrl] as string[]) {
          if (u) expect(() => new URL(u)).not.toThrow();
          expect(u).not.toMatch(/[<>"\s@]/);
        }
      }
    }
  });
});

// ---------- accounts ----------

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, 0, -1, 1e308, '', [], {}, 'a@b.c', 'x'.repeat(2000)),
  fc.string({ unit: 'binary', maxLength: 100 }),
);
const field = fc.oneof(hostile, fc.emailAddress(), fc.string({ minLength: 8, maxLength: 20 }));
const accountBody = fc.oneof(
  fc.record({ email: field, password: field, name: field, organization: field }, { requiredKeys: [] }),
  fc.dictionary(fc.string({ maxLength: 10 }), hostile, { maxKeys: 5 }),
  hostile,
);

describe('accounts API under random bodies', () => {
  it(
    'sign-up, login, passwd, me, api-secret and the webhook API answer random JSON, wrong types and garbage with a 4xx ' +
      'envelope (or a real success), never 5xx',
    async () => {
      const base = acc.info.serviceUrl;
      const statuses: Record<string, number> = {};
      const routes = [
        { method: 'POST', path: '/users/v1/signup' },
        { method: 'POST', path: '/users/v1/login' },
        { method: 'PATCH', path: '/users/v1/passwd' },
        { method: 'GET', path: '/users/v1/me' },
        { method: 'POST', path: '/users/v1/api-secret' },
        { method: 'DELETE', path: '/users/v1/api-secret' },
        { method: 'POST', path: '/tracker/v1/webhooks' },
        { method: 'GET', path: '/tracker/v1/webhooks' },
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes),
          fc.oneof(
            accountBody.map((b) => JSON.stringify(b) ?? ''),
            fc.string({ unit: 'binary', maxLength: 200 }),
            fc.constantFrom('{', '{"email":', '\u0000', '[]', 'null'),
          ),
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'text/plain',
            'application/x-www-form-urlencoded',
            undefined,
          ),
          fc.oneof(
            fc.constant(undefined),
            fc.constantFrom(
              'Bearer ',
              'Bearer x',
              'Basic abc',
              'Bearer ' + 'a'.repeat(5000),
              'Bearer a.b.c',
              'Bearer txdesk_sk_x',
              `Bearer txdesk_sk_${'A'.repeat(43)}`,
            ),
            fc.string({ maxLength: 40 }).map((s) => `Bearer ${s}`),
          ),
          async (route, body, type, authorization) => {
            const headers: Record<string, string> = {};
            if (type) headers['content-type'] = type;
            if (authorization !== undefined) headers.authorization = authorization.replace(/[\r\n]/g, '');
            const a = await rawRequest(base, {
              method: route.method,
              path: route.path,
              headers,
              body: route.method === 'GET' ? undefined : body,
            });
            statuses[`${route.path} ${a.status}`] = (statuses[`${route.path} ${a.status}`] ?? 0) + 1;
            expectSane(a, `${route.method} ${route.path} ${body.slice(0, 100)}`);
            if (route.path !== '/users/v1/signup')
              expect(a.status, `${route.path} must refuse ${body.slice(0, 100)}`).toBeGreaterThanOrEqual(400);
            if (a.status === 201) expect(typeof a.body.clientId).toBe('string');
            if (a.status >= 400) expect(isClientError(a)).toBe(true);
          },
        ),
        { numRuns: 200 },
      );
      figures.accountStatuses = statuses;
    },
  );

  it('huge bodies get 413, wrong media types 415, broken JSON 400; the service keeps serving', async () => {
    const base = acc.info.serviceUrl;
    const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(2 * MB), name: 'n', organization: 'o' });
    const a = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/signup',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(a.status).toBe(413);
    expect(isErrorEnvelope(a)).toBe(true);
    const long = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/signup',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `${'a'.repeat(300)}@example.com`,
        password: 'p'.repeat(1025),
        name: 'n'.repeat(201),
        organization: 'o',
      }),
    });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/email|password|name/);
    const typed = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/login',
      headers: { 'content-type': 'text/plain' },
      body: '{"email":"a@b.co","password":"x"}',
    });
    expect(typed.status).toBe(415);
    const broken = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/login',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(broken.status).toBe(400);
    // 30,000 levels of nesting inside the 64 KiB limit: a parser that recursed would blow the stack.
    const deep = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/login',
      headers: { 'content-type': 'application/json' },
      body: '['.repeat(30_000) + ']'.repeat(30_000),
    });
    expect(deep.status).toBe(400);
    const deepObj = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/signup',
      headers: { 'content-type': 'application/json' },
      body: '{"email":'.repeat(6_000) + '1' + '}'.repeat(6_000),
    });
    expect(deepObj.status).toBe(400);
    // E-mail addresses are compared without case and surrounding spaces: the same person cannot sign up twice.
    const email = `Case.Test.${Date.now()}@Example.COM`;
    const first = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/signup',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'first-password', name: 'Case' }),
    });
    expect(first.status, first.text).toBe(201);
    const again = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/signup',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `  ${email.toLowerCase()} `, password: 'second-password', name: 'Case' }),
    });
    expect(again.status, again.text).toBe(409);
    const login = await rawRequest(base, {
      method: 'POST',
      path: '/users/v1/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: email.toUpperCase(), password: 'first-password' }),
    });
    expect(login.status, login.text).toBe(200);
    expect(login.body.clientId).toBe(first.body.clientId);
    expect((await rawRequest(base, { path: '/health' })).status).toBe(200);
  });
});

// ---------- tracker ----------

interface WsClient {
  ws: WebSocket;
  frames: unknown[];
  closed: { code: number } | null;
}

function openTracker(clientId: string): Promise<WsClient> {
  const url = `${svc.info.serviceUrl.replace(/^http/, 'ws')}/tracker/ethereum/local?clientId=${encodeURIComponent(clientId)}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { maxPayload: 64 * MB });
    const c: WsClient = { ws, frames: [], closed: null };
    ws.on('message', (d, isBinary) => c.frames.push(isBinary ? { binary: true } : JSON.parse(String(d))));
    ws.on('close', (code) => (c.closed = { code }));
    ws.once('open', () => resolve(c));
    ws.once('error', reject);
  });
}

function waitFrame(c: WsClient, pred: (f: any) => boolean, what: string, timeoutMs = 30_000): Promise<any> {
  return waitFor(
    what,
    () => {
      const f = c.frames.find(pred);
      if (f === undefined && c.closed) throw new Error(`socket closed (${c.closed.code}) while waiting for ${what}`);
      return f === undefined ? undefined : { f };
    },
    { timeoutMs: timeoutMs, everyMs: 20 },
  ).then((found) => found.f);
}

const RPC_CODES = [-32700, -32600, -32601, -32602, -32005];

/** Every frame the server sent is a JSON-RPC 2.0 response (or batch of them) or a push; errors carry spec codes. */
function expectRpcFrames(frames: unknown[]): void {
  for (const f of frames.flatMap((x) => (Array.isArray(x) ? x : [x])) as any[]) {
    expect(f.binary, 'no binary frames from the server').toBeUndefined();
    expect(f.jsonrpc).toBe('2.0');
    if ('error' in f) {
      expect(RPC_CODES, JSON.stringify(f)).toContain(f.error.code);
      expect(typeof f.error.message).toBe('string');
      expect(f.error.message.length).toBeGreaterThan(0);
    } else expect('result' in f, JSON.stringify(f)).toBe(true);
  }
}

describe('tracker WebSocket under random frames', () => {
  const hash = fc.stringMatching(/^0x[0-9a-f]{64}$/);
  const param = fc.oneof(
    hostile,
    hash,
    fc.record({ confirmation: hostile, timeout: hostile }, { requiredKeys: [] }),
    fc.integer({ min: -5, max: 100_000 }),
  );
  const request = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), hostile),
      id: fc.oneof(fc.integer(), fc.constant(null), hostile),
      method: fc.oneof(
        fc.constantFrom(
          'track_transaction',
          'tracker_subscribe',
          'tracker_unsubscribe',
          'ack',
          'HEARTBEAT',
          'eth_subscribe',
          'track_Transaction',
        ),
        hostile,
      ),
      params: fc.oneof(fc.array(param, { maxLength: 4 }), hostile),
    },
    { requiredKeys: [] },
  );
  const frame = fc.oneof(
    request.map((r) => JSON.stringify(r)),
    fc.array(request, { minLength: 1, maxLength: 4 }).map((r) => JSON.stringify(r)),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom(
      '',
      '[]',
      '{}',
      'null',
      '{"jsonrpc":"2.0","id":1,"method":"HEARTBEAT"}',
      '{"jsonrpc":"2.0","id":1,"method":"ack","params":["x"]}',
    ),
  );

  it('answers every random text or binary frame with a JSON-RPC result or error and keeps the connection open', async () => {
    const c = await openTracker(svc.info.clientId);
    let sentinel = 1_000_000;
    await fc.assert(
      fc.asyncProperty(frame, fc.boolean(), async (text, binary) => {
        const seen = c.frames.length;
        c.ws.send(binary ? Buffer.from(text, 'utf8') : text, { binary });
        const id = ++sentinel;
        c.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'HEARTBEAT', params: [] }));
        await waitFrame(c, (f) => f?.id === id, `the sentinel heartbeat after ${text.slice(0, 80)}`);
        expectRpcFrames(c.frames.slice(seen));
      }),
      { numRuns: RUNS },
    );
    expect(c.closed).toBeNull();
    c.ws.close();
  });

  it('frames over the limit get -32600 (or close 1009 above 1 MiB); floods are answered in full; the service keeps serving', async () => {
    const c = await openTracker(svc.info.clientId);
    c.ws.send('['.repeat(100_000) + ']'.repeat(100_000));
    // A one-element batch whose element is 100,000 arrays deep: answered as a batch of one error.
    const deep = await waitFrame(c, (f) => [f].flat()[0]?.error !== undefined, 'the answer to a 100,000-deep frame');
    expect([-32700, -32600]).toContain([deep].flat()[0].error.code);
    c.frames.length = 0;
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'HEARTBEAT', params: ['x'.repeat(300 * 1024)] }));
    const big = await waitFrame(c, (f) => f?.error?.code === -32600, 'the -32600 for a 300 KiB frame');
    expect(big.error.message).toMatch(/limited/);
    // Flood: 5,000 requests as fast as the socket takes them, a third of them invalid.
    const N = 5_000;
    const t0 = Date.now();
    for (let i = 0; i < N; i++) {
      const f =
        i % 3 === 0
          ? '{bad json'
          : i % 3 === 1
            ? JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'nope' })
            : JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'HEARTBEAT', params: [] });
      c.ws.send(f);
    }
    await waitFrame(c, () => c.frames.length >= N + 1, `${N} answers to the flood`, 120_000);
    figures.wsFloodFramesPerSecond = Math.round(N / ((Date.now() - t0) / 1000));
    expectRpcFrames(c.frames);
    expect(c.closed).toBeNull();
    // Above the hard limit the socket is closed with 1009 (message too big); the server survives it.
    const d = await openTracker(svc.info.clientId);
    d.ws.send(Buffer.alloc(2 * MB, 0x61));
    await waitFrame(d, () => d.closed !== null, 'the close of a 2 MiB frame').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    expect(d.closed?.code).toBe(1009);
    c.ws.close();
    const e = await openTracker(svc.info.clientId);
    e.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'HEARTBEAT', params: [] }));
    expect((await waitFrame(e, (f) => f?.id === 7, 'a heartbeat after the floods')).result).toBe(true);
    e.ws.close();
  });

  it('upgrades with a bad clientId, platform or path are refused with 401/404 and a JSON body', async () => {
    const ws = svc.info.serviceUrl.replace(/^http/, 'ws');
    const cases: [string, number][] = [
      ['/tracker/ethereum/local', 401],
      ['/tracker/ethereum/local?clientId=', 401],
      ['/tracker/ethereum/local?clientId=unknown', 401],
      [`/tracker/ethereum/local?clientId=${'a'.repeat(5000)}`, 401],
      [`/tracker/ethereum/mainnet?clientId=${svc.info.clientId}`, 404],
      [`/tracker/bitcoin/local?clientId=${svc.info.clientId}`, 404],
      [`/tracker/ethereum/local/x?clientId=${svc.info.clientId}`, 404],
      [`/elsewhere?clientId=${svc.info.clientId}`, 404],
    ];
    for (const [path, status] of cases) {
      const got = await new Promise<{ status: number; body: string }>((resolve) => {
        const s = new WebSocket(ws + path);
        s.once('unexpected-response', (_q, res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        s.once('open', () => resolve({ status: 101, body: '' }));
        s.once('error', () => {});
      });
      expect(got.status, path.slice(0, 80)).toBe(status);
      expect(JSON.parse(got.body).error.code).toMatch(/^[A-Z_]+$/);
    }
  });
});

// ---------- memory ----------

describe('memory of the service process after the floods', () => {
  it('stays bounded: a second round of 2,000 listing requests and 5,000 frames adds no more than a few MB of heap', async () => {
    const base = svc.info.serviceUrl;
    const cid = svc.info.clientId;
    const round = async () => {
      const paths = Array.from({ length: 2_000 }, (_, i) =>
        i % 4 === 0
          ? `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&size=200&page=${i % 7}`
          : i % 4 === 1
            ? `/nft/v1/accounts/${owner}/tokens?clientId=${cid}&page=-${i}`
            : i % 4 === 2
              ? `/nft/v1/accounts/0xzz/tokens?clientId=${cid}`
              : `/nft/v1/accounts/${owner}/tokens?clientId=bad${i}`,
      );
      for (let i = 0; i < paths.length; i += 20) {
        const batch = await Promise.all(paths.slice(i, i + 20).map((path) => rawRequest(base, { path })));
        for (const a of batch) expect(a.status).toBeLessThan(500);
      }
      const c = await openTracker(cid);
      for (let i = 0; i < 5_000; i++) c.ws.send(i % 2 ? '{"jsonrpc":"2.0","id":1,"method":"HEARTBEAT","params":[]}' : 'x'.repeat(1000));
      await waitFrame(c, () => c.frames.length >= 5_000, 'the flood answers', 120_000);
      c.ws.close();
    };
    await round();
    const afterFirst = await svc.memory();
    await round();
    const afterSecond = await svc.memory();
    figures.memory = {
      beforeMB: +(memBefore.heapUsed / MB).toFixed(1),
      afterFirstRoundMB: +(afterFirst.heapUsed / MB).toFixed(1),
      afterSecondRoundMB: +(afterSecond.heapUsed / MB).toFixed(1),
      rssBeforeMB: +(memBefore.rss / MB).toFixed(1),
      rssAfterMB: +(afterSecond.rss / MB).toFixed(1),
    };
    // Everything the floods allocate is garbage once answered: the second round must not keep what the first did.
    expect(afterSecond.heapUsed - afterFirst.heapUsed, JSON.stringify(figures.memory)).toBeLessThan(16 * MB);
    expect(afterSecond.heapUsed - memBefore.heapUsed, JSON.stringify(figures.memory)).toBeLessThan(64 * MB);
    expect(afterSecond.rss, JSON.stringify(figures.memory)).toBeLessThan(memBefore.rss + 256 * MB);
    expect(svc.alive()).toBe(true);
    expect(svc.output()).not.toMatch(/internal error/i);
  });
});

describe('a client that floods the tracker but never reads its answers', () => {
  it('cannot grow the service memory without bound: the server applies back-pressure or closes the socket', async () => {
    const before = await svc.memory();
    const ws = new WebSocket(`${svc.info.serviceUrl.replace(/^http/, 'ws')}/tracker/ethereum/local?clientId=${svc.info.clientId}`);
    let closed = false;
    ws.on('close', () => (closed = true));
    ws.on('error', () => {});
    await new Promise((r) => ws.once('open', r));
    // Stop reading: every answer the server writes now piles up on its side of the connection.
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const frame = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no_such_method', params: [] });
    const growth: number[] = [];
    for (let round = 0; round < 15 && !closed; round++) {
      for (let i = 0; i < 20_000; i++) ws.send(frame);
      await new Promise((r) => setTimeout(r, 500));
      growth.push(Math.round(((await svc.memory()).heapUsed - before.heapUsed) / MB));
    }
    ws.terminate();
    figures.slowConsumerHeapGrowthMB = growth;
    // 300,000 unread answers are ~60 MB of JSON; a bounded server keeps far less than that (or hangs up on the reader).
    expect(closed || growth.at(-1)! < 48, `heap growth per round (MB): ${growth.join(', ')}`).toBe(true);
    expect(svc.alive()).toBe(true);
  });
});
