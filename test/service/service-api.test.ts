// The data service's HTTP API on a real dev chain: accounts (SPEC 4), every class of bad listing input, 401/404/429,
// the contract endpoints, /health and /openapi.json.
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../src/lib/log.js';
import { startService, type RunningService } from '../../src/service/index.js';
import { call, startTestDevService, tempDir, type TestDevService } from '../support/service/service-harness.js';
import { waitFor } from '../support/poll.js';

let dev: TestDevService;
let base: string;
let clientId: string;
let owner: string;

beforeAll(async () => {
  dev = await startTestDevService();
  base = dev.service.url;
  clientId = dev.clientId;
  owner = dev.devchain.accounts[1]!.address;
  await dev.devchain.giveTokens(owner, 3);
});

afterAll(async () => {
  await dev?.close();
});

const list = (path: string, query: string) => call(`${base}${path}${query}`);
const tokensOf = (address: string, query = '') => list(`/nft/v1/accounts/${address}/tokens`, `?clientId=${clientId}${query}`);

function expectError(answer: { status: number; body: any; headers: Headers }, status: number, code: string, message?: RegExp) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.body).toEqual({ error: { code, message: expect.any(String) } });
  if (message) expect(answer.body.error.message).toMatch(message);
}

describe('dev service', () => {
  it('reports the SPEC 8 ready fields, and its clientId lists tokens', async () => {
    const info = dev.readyInfo();
    expect(info).toMatchObject({
      ready: true,
      serviceUrl: base,
      nodeUrl: dev.devchain.nodeUrl,
      chainId: dev.devchain.chainId,
      platform: 'ethereum',
      network: 'local',
      clientId,
    });
    await waitFor('the given tokens to be indexed', async () => (await tokensOf(owner)).body?.pagination?.totalCount >= 3);
    const page = await tokensOf(owner.toUpperCase().replace('0X', '0x'));
    expect(page.status).toBe(200);
    for (const t of page.body.data) {
      expect(t.owner).toBe(owner.toLowerCase());
      expect(t.contract.address).toBe(t.contract.address.toLowerCase());
      expect(t.id).toMatch(/^\d+$/);
    }
  });

  it('serves /health and a valid OpenAPI 3.1 document listing every path', async () => {
    const health = await call(`${base}/health`);
    expect(health.body).toMatchObject({ status: 'ok', chainId: dev.devchain.chainId, platform: 'ethereum', network: 'local' });
    expect(health.body.truncatedRanges).toEqual({ count: 0, cap: 50_000, latest: [] });
    const doc = await call(`${base}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths).sort()).toEqual(
      [
        '/health',
        '/metrics',
        '/nft/v1/accounts/{address}/tokens',
        '/nft/v1/contracts/{address}',
        '/nft/v1/contracts/{address}/tokens',
        '/nft/v1/contracts/{address}/tokens/{id}/refresh',
        '/nft/v1/networks',
        '/nft/v1/{platform}/{network}/accounts/{address}/tokens',
        '/nft/v1/{platform}/{network}/contracts/{address}',
        '/nft/v1/{platform}/{network}/contracts/{address}/tokens',
        '/nft/v1/{platform}/{network}/contracts/{address}/tokens/{id}/refresh',
        '/openapi.json',
        '/tracker/v1/webhooks',
        '/tracker/v1/webhooks/{id}',
        '/tracker/v1/webhooks/{id}/replay',
        '/tracker/v1/webhooks/{id}/test',
        '/tracker/{platform}/{network}',
        '/users/v1/api-secret',
        '/users/v1/login',
        '/users/v1/logout',
        '/users/v1/me',
        '/users/v1/passwd',
        '/users/v1/signup',
      ].sort(),
    );
    for (const name of ['Error', 'Contract', 'Token', 'TokenPage', 'Health', 'Profile', 'Session', 'NetworkSummary', 'NetworkHealth'])
      expect(doc.body.components.schemas[name], name).toBeDefined();
    expect(doc.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.body.components.securitySchemes.apiSecret).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Every webhook operation takes the API secret or a session token; the clientId is no credential there.
    const webhookOps = Object.entries(doc.body.paths as Record<string, Record<string, any>>)
      .filter(([path]) => path.startsWith('/tracker/v1/webhooks'))
      .flatMap(([, byMethod]) => Object.values(byMethod));
    expect(webhookOps).toHaveLength(7);
    for (const op of webhookOps) {
      expect(op.security, op.operationId).toEqual([{ apiSecret: [] }, { bearerAuth: [] }]);
      expect(op.parameters.find((p: { name: string }) => p.name === 'clientId').required ?? false, op.operationId).toBe(false);
    }
  });

  it('documents each route from the schemas it validates with, and serves every documented route', async () => {
    const doc = (await call(`${base}/openapi.json`)).body;
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(new Set(ops.map((o) => o.op.operationId)).size).toBe(ops.length);
    for (const { path, method } of ops) {
      // Every documented route exists: whatever it answers to a bare request, it is never "no such endpoint" or 405.
      const url = `${base}${path.replace('{address}', owner).replace('{id}', '1').replace('{platform}', 'ethereum').replace('{network}', 'local')}`;
      const answer = await call(url, { method, headers: { 'content-type': 'application/json' } });
      expect(
        [404, 405].includes(answer.status) && /no endpoint|not allowed/.test(answer.body?.error?.message ?? ''),
        `${method} ${path}: ${answer.text}`,
      ).toBe(false);
    }
    // The listing's parameters come from the validator's own schema: its bounds and names are the ones enforced.
    const params = doc.paths['/nft/v1/accounts/{address}/tokens'].get.parameters as {
      name: string;
      in: string;
      required?: boolean;
      schema: any;
    }[];
    expect(params.map((p) => `${p.in}:${p.name}`).sort()).toEqual(
      [
        'path:address',
        'query:clientId',
        'query:page',
        'query:size',
        'query:order_by',
        'query:order_direction',
        'query:contractAddresses',
        'query:standard',
      ].sort(),
    );
    const size = params.find((p) => p.name === 'size')!.schema;
    expect(size).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 15 });
    expect((await tokensOf(owner, '&size=201')).status).toBe(400);
    expect((await tokensOf(owner, '&size=200')).status).toBe(200);
    expect(params.find((p) => p.name === 'clientId')!.required).toBe(true);
    const signup = doc.paths['/users/v1/signup'].post.requestBody.content['application/json'].schema;
    expect(signup).toMatchObject({ additionalProperties: false, required: expect.arrayContaining(['email', 'password', 'name']) });
    expect(signup.properties.email).toMatchObject({ format: 'email' });
    expect(signup.properties.password).toMatchObject({ minLength: 8, maxLength: 1024 });
  });
});

describe('token refresh (ERC-4906 on demand)', () => {
  const refresh = (contract: string, id: string, query = `?clientId=${clientId}`) =>
    call(`${base}/nft/v1/contracts/${contract}/tokens/${id}/refresh${query}`, { method: 'POST' });

  it('answers 202 for an indexed token and refuses what it cannot refresh, each with one sentence', async () => {
    const tiles = dev.devchain.collections.find((c) => c.kind === 'full')!.address;
    const ok = await refresh(tiles, '1');
    expect(ok.status).toBe(202);
    expect(ok.body).toEqual({ status: 'accepted', contract: tiles.toLowerCase(), id: '1' });
    expectError(await refresh(tiles, '999999'), 404, 'NOT_FOUND', /Token 999999 .* is not in the index/);
    expectError(await refresh('0x' + '12'.repeat(20), '1'), 404, 'NOT_FOUND', /No ERC-721 or ERC-1155 contract/);
    expectError(await refresh(tiles, '01'), 400, 'INVALID_PARAMETER', /token id in the path/);
    expectError(await refresh(tiles, (2n ** 256n).toString()), 400, 'INVALID_PARAMETER', /2\^256-1/);
    expectError(await refresh(tiles, '1', `?clientId=${clientId}&x=1`), 400, 'INVALID_PARAMETER', /Unknown query parameter 'x'/);
    expectError(await refresh(tiles, '1', ''), 401, 'UNAUTHORIZED', /clientId/);
    expect((await call(`${base}/nft/v1/contracts/${tiles}/tokens/1/refresh?clientId=${clientId}`)).status).toBe(405);
  });

  it('has its own rate limit: the listing keeps working when refreshes are limited', async () => {
    const tiles = dev.devchain.collections.find((c) => c.kind === 'full')!.address;
    let limited: Awaited<ReturnType<typeof refresh>> | null = null;
    for (let i = 0; i < 40 && !limited; i++) {
      const r = await refresh(tiles, '2');
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(202);
    }
    expect(limited).not.toBeNull();
    expect(limited!.body.error.message).toMatch(/Too many token refreshes/);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await tokensOf(owner)).status).toBe(200);
  });

  it('validates the standard filter', async () => {
    expect((await tokensOf(owner, '&standard=erc721')).body.data.every((t: any) => t.contract.standard === 'ERC721')).toBe(true);
    expectError(await tokensOf(owner, '&standard=ERC20'), 400, 'INVALID_PARAMETER', /'standard' must be ERC721 or ERC1155/);
  });
});

describe('accounts', () => {
  const email = 'Ada@Example.com';
  const password = 'correct horse battery';

  it('signs up, logs in and describes the account', async () => {
    const signup = await call(`${base}/users/v1/signup`, {
      method: 'POST',
      body: { email, password, name: 'Ada', organization: 'Engines' },
    });
    expect(signup.status).toBe(201);
    expect(signup.body).toEqual({
      email: 'ada@example.com',
      name: 'Ada',
      organization: 'Engines',
      clientId: expect.stringMatching(/^[0-9a-f]{32}$/),
      jwtToken: expect.any(String),
    });

    const login = await call(`${base}/users/v1/login`, { method: 'POST', body: { email: 'ada@example.com', password } });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ email: 'ada@example.com', name: 'Ada', organization: 'Engines', clientId: signup.body.clientId });

    const me = await call(`${base}/users/v1/me`, { token: login.body.jwtToken });
    expect(me.body).toEqual({ email: 'ada@example.com', name: 'Ada', organization: 'Engines', clientId: signup.body.clientId });

    // The new clientId works for listings at once.
    expect((await call(`${base}/nft/v1/accounts/${owner}/tokens?clientId=${signup.body.clientId}`)).status).toBe(200);
  });

  it('refuses a second account with the same e-mail (409)', async () => {
    const again = await call(`${base}/users/v1/signup`, {
      method: 'POST',
      body: { email: 'ADA@example.com', password, name: 'Other', organization: '' },
    });
    expectError(again, 409, 'CONFLICT', /already exists/);
  });

  it('answers a wrong password and an unknown e-mail with the same 401', async () => {
    const wrong = await call(`${base}/users/v1/login`, { method: 'POST', body: { email, password: 'not the password' } });
    const unknown = await call(`${base}/users/v1/login`, { method: 'POST', body: { email: 'nobody@example.com', password } });
    expectError(wrong, 401, 'UNAUTHORIZED');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it.each([
    ['an empty body', undefined, /body is empty/],
    ['an array', [], /JSON object/],
    ['a missing e-mail', { password: 'long enough', name: 'x' }, /'email' is required/],
    ['a bad e-mail', { email: 'not-an-email', password: 'long enough', name: 'x' }, /'email'.*e-mail address/],
    ['a short password', { email: 'b@example.com', password: 'short', name: 'x' }, /'password'.*at least 8/],
    ['an empty name', { email: 'b@example.com', password: 'long enough', name: ' ' }, /'name'.*empty/],
    ['a number as name', { email: 'b@example.com', password: 'long enough', name: 5 }, /'name'/],
    ['an unknown field', { email: 'b@example.com', password: 'long enough', name: 'x', admin: true }, /Unknown field 'admin'/],
  ])('refuses a sign-up with %s (400)', async (_what, body, message) => {
    const answer = await call(`${base}/users/v1/signup`, { method: 'POST', ...(body === undefined ? {} : { body }) });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(message);
  });

  it('refuses bodies that are not JSON', async () => {
    const broken = await call(`${base}/users/v1/login`, {
      method: 'POST',
      rawBody: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expectError(broken, 400, 'BAD_REQUEST', /not valid JSON/);
    const text = await call(`${base}/users/v1/login`, { method: 'POST', rawBody: 'email=a', headers: { 'content-type': 'text/plain' } });
    expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('needs a valid token for /me', async () => {
    expectError(await call(`${base}/users/v1/me`), 401, 'UNAUTHORIZED', /Authorization: Bearer/);
    expectError(await call(`${base}/users/v1/me`, { token: 'abc.def.ghi' }), 401, 'UNAUTHORIZED', /not valid/);
  });

  it('changes the password, revoking older tokens', async () => {
    const before = (await call(`${base}/users/v1/login`, { method: 'POST', body: { email, password } })).body.jwtToken as string;
    const wrong = await call(`${base}/users/v1/passwd`, {
      method: 'PATCH',
      token: before,
      body: { password: 'not it at all', newPassword: 'a new password' },
    });
    expectError(wrong, 401, 'UNAUTHORIZED', /current password/);
    const short = await call(`${base}/users/v1/passwd`, { method: 'PATCH', token: before, body: { password, newPassword: 'short' } });
    expectError(short, 400, 'INVALID_PARAMETER', /'newPassword'/);
    const noToken = await call(`${base}/users/v1/passwd`, { method: 'PATCH', body: { password, newPassword: 'a new password' } });
    expectError(noToken, 401, 'UNAUTHORIZED');

    const changed = await call(`${base}/users/v1/passwd`, {
      method: 'PATCH',
      token: before,
      body: { password, newPassword: 'a new password' },
    });
    expect(changed.status).toBe(200);
    expect((await call(`${base}/users/v1/me`, { token: changed.body.jwtToken })).status).toBe(200);
    expectError(await call(`${base}/users/v1/me`, { token: before }), 401, 'UNAUTHORIZED', /log in again/);
    expect((await call(`${base}/users/v1/login`, { method: 'POST', body: { email, password } })).status).toBe(401);
    expect((await call(`${base}/users/v1/login`, { method: 'POST', body: { email, password: 'a new password' } })).status).toBe(200);
  });
});

describe('listing input', () => {
  const A = '0x' + 'ab'.repeat(20);
  it.each([
    ['a bad address in the path', '/nft/v1/accounts/0x1234/tokens', '', /account address in the path/],
    ['a non-hex address', `/nft/v1/accounts/0x${'zz'.repeat(20)}/tokens`, '', /account address/],
    ['a negative page', null, '&page=-1', /'page' must be a whole number from 0/],
    ['a non-numeric page', null, '&page=two', /'page'/],
    ['a huge page', null, '&page=100000000000000000000000', /'page'/],
    ['size 0', null, '&size=0', /'size' must be a whole number from 1 to 200/],
    ['size 201', null, '&size=201', /'size'/],
    ['a huge size', null, '&size=1e9', /'size'/],
    ['an unknown order_by', null, '&order_by=price', /'order_by' must be one of transfer_block_number, token_id, contract_address/],
    ['a bad order_direction', null, '&order_direction=sideways', /'order_direction' must be asc or desc/],
    ['a malformed contractAddresses', null, '&contractAddresses=0x12,0x34', /'contractAddresses'/],
    ['an empty contractAddresses entry', null, `&contractAddresses=${A},`, /empty entry/],
    ['51 contractAddresses', null, `&contractAddresses=${Array.from({ length: 51 }, () => A).join(',')}`, /at most 50/],
    ['a repeated page', null, '&page=0&page=1', /'page' was given 2 times/],
    ['a repeated contractAddresses', null, `&contractAddresses=${A}&contractAddresses=${A}`, /'contractAddresses' was given 2 times/],
    ['a repeated clientId', null, '&clientId=abc', /'clientId' was given more than once/],
    ['an unknown parameter', null, '&pageSize=5', /Unknown query parameter 'pageSize'/],
  ])('refuses %s with 400 and keeps serving', async (_what, path, extra, message) => {
    const answer = await list(path ?? `/nft/v1/accounts/${owner}/tokens`, `?clientId=${clientId}${extra}`);
    expectError(answer, 400, 'INVALID_PARAMETER', message);
    expect((await tokensOf(owner)).status).toBe(200);
  });

  it('accepts order_direction in any case', async () => {
    const upper = await tokensOf(owner, '&order_direction=ASC&order_by=token_id');
    const lower = await tokensOf(owner, '&order_direction=asc&order_by=token_id');
    expect(upper.status).toBe(200);
    expect(upper.body.data).toEqual(lower.body.data);
  });

  it('answers 401 for a missing or unknown clientId', async () => {
    expectError(await list(`/nft/v1/accounts/${owner}/tokens`, ''), 401, 'UNAUTHORIZED', /'clientId' is required/);
    expectError(await list(`/nft/v1/accounts/${owner}/tokens`, '?clientId='), 401, 'UNAUTHORIZED');
    expectError(
      await list(`/nft/v1/accounts/${owner}/tokens`, '?clientId=0123456789abcdef0123456789abcdef'),
      401,
      'UNAUTHORIZED',
      /not known/,
    );
    expectError(await list(`/nft/v1/contracts/${A}`, ''), 401, 'UNAUTHORIZED');
  });

  it('answers unknown paths and methods with the envelope, never HTML', async () => {
    expectError(await call(`${base}/nope`), 404, 'NOT_FOUND', /openapi\.json/);
    expectError(await call(`${base}/nft/v1/accounts/%zz/tokens?clientId=${clientId}`), 404, 'NOT_FOUND');
    expectError(
      await call(`${base}/nft/v1/accounts/${owner}/tokens?clientId=${clientId}`, { method: 'DELETE' }),
      405,
      'METHOD_NOT_ALLOWED',
    );
    expectError(await call(`${base}/users/v1/login`), 405, 'METHOD_NOT_ALLOWED');
    expectError(await call(`${base}/tracker/ethereum/local?clientId=${clientId}`), 426, 'BAD_REQUEST', /WebSocket/);
  });

  const rawHttp = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(base).port), '127.0.0.1', () => socket.write(request));
      let text = '';
      socket.on('data', (c) => (text += c));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
  const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

  it('answers malformed HTTP with the envelope', async () => {
    const raw = await rawHttp('NOT HTTP AT ALL\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(bodyOf(raw)).toEqual({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/malformed/) } });
    expect((await tokensOf(owner)).status).toBe(200);
  });

  it('routes request targets as WHATWG URL reads them (a backslash is a slash, `*` is `/*`, dot segments resolve), empty segments dropped', async () => {
    const get = (target: string) => rawHttp(`GET ${target} HTTP/1.1\r\nHost: ${new URL(base).host}\r\nConnection: close\r\n\r\n`);
    const backslash = await get('/nft/v1/accounts/\\/tokens?');
    expect(backslash).toMatch(/^HTTP\/1\.1 404/);
    expect(bodyOf(backslash).error.message).toBe('There is no endpoint GET /nft/v1/accounts/tokens; see /openapi.json for the API.');
    const star = await get('*');
    expect(star).toMatch(/^HTTP\/1\.1 404/);
    expect(bodyOf(star).error.code).toBe('NOT_FOUND');
    const emptySegments = await get(`/nft//v1/accounts//${owner}/tokens/?clientId=${clientId}`);
    expect(emptySegments).toMatch(/^HTTP\/1\.1 200/);
    const dots = await get(`/nft/v1/accounts/x/../${owner}/tokens?clientId=${clientId}`);
    expect(dots).toMatch(/^HTTP\/1\.1 200/);
    expect(bodyOf(dots).data.length).toBeGreaterThan(0);
  });
});

describe('contract endpoints', () => {
  it('describe an indexed collection and page through its tokens', async () => {
    const collection = dev.devchain.collections[0]!;
    const address = collection.address.toLowerCase();
    const contract = await list(`/nft/v1/contracts/${collection.address.toUpperCase().replace('0X', '0x')}`, `?clientId=${clientId}`);
    expect(contract.status).toBe(200);
    expect(contract.body).toMatchObject({ address, name: collection.name, symbol: collection.symbol, totalSupply: expect.any(Number) });

    const seen = new Set<string>();
    let url = `${base}/nft/v1/contracts/${address}/tokens?clientId=${clientId}&size=7&order_by=token_id&order_direction=asc`;
    let total = -1;
    while (url) {
      const page = await call(url);
      expect(page.status).toBe(200);
      total = page.body.pagination.totalCount;
      for (const t of page.body.data) {
        expect(t.contract.address).toBe(address);
        expect(seen.has(t.id)).toBe(false);
        seen.add(t.id);
      }
      url = page.body.pagination.nextUrl && `${page.body.pagination.nextUrl}&clientId=${clientId}`;
    }
    expect(seen.size).toBe(total);
    expect(total).toBeGreaterThan(0);
  });

  it('answer 404 for an unknown contract and 400 for a bad address', async () => {
    const unknown = '0x' + '12'.repeat(20);
    expectError(await list(`/nft/v1/contracts/${unknown}`, `?clientId=${clientId}`), 404, 'NOT_FOUND', /No ERC-721 or ERC-1155 contract/);
    expectError(await list(`/nft/v1/contracts/${unknown}/tokens`, `?clientId=${clientId}`), 404, 'NOT_FOUND');
    expectError(await list('/nft/v1/contracts/0xabc', `?clientId=${clientId}`), 400, 'INVALID_PARAMETER', /contract address/);
    expectError(
      await list(`/nft/v1/contracts/${unknown}`, `?clientId=${clientId}&page=1`),
      400,
      'INVALID_PARAMETER',
      /Unknown query parameter 'page'/,
    );
  });
});

describe('a service with closed sign-up, short tokens and a tight rate limit', () => {
  let service: RunningService;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir();
    service = await startService({
      nodeUrl: dev.devchain.nodeUrl,
      dataDir,
      port: 0,
      rateLimitPerMinute: 3,
      authRateLimitPerMinute: 4,
      tokenTtlSeconds: 1,
      log: silentLogger,
    });
  });

  afterAll(async () => {
    await service?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses sign-up with 403 while accounts made by the operator work', async () => {
    const signup = await call(`${service.url}/users/v1/signup`, {
      method: 'POST',
      body: { email: 'c@example.com', password: 'long enough', name: 'C' },
    });
    expectError(signup, 403, 'FORBIDDEN', /Sign-up is closed/);
    const { clientId: id } = await service.accounts.createAccount({
      email: 'c@example.com',
      password: 'long enough',
      name: 'C',
      organization: 'O',
    });
    const login = await call(`${service.url}/users/v1/login`, {
      method: 'POST',
      body: { email: 'c@example.com', password: 'long enough' },
    });
    expect(login.body.clientId).toBe(id);
  });

  it('expires session tokens', async () => {
    const login = await call(`${service.url}/users/v1/login`, {
      method: 'POST',
      body: { email: 'c@example.com', password: 'long enough' },
    });
    const token = login.body.jwtToken as string;
    const expired = await waitFor('the token to expire', async () => {
      const me = await call(`${service.url}/users/v1/me`, { token });
      return me.status === 401 ? me : undefined;
    });
    expect(expired.body.error.message).toMatch(/expired; log in again/);
  });

  it('rate-limits each clientId with 429 and Retry-After', async () => {
    const { clientId: limited } = await service.accounts.createAccount({
      email: 'd@example.com',
      password: 'long enough',
      name: 'D',
      organization: '',
    });
    const { clientId: other } = await service.accounts.createAccount({
      email: 'e@example.com',
      password: 'long enough',
      name: 'E',
      organization: '',
    });
    const url = (id: string) => `${service.url}/nft/v1/accounts/${owner}/tokens?clientId=${id}`;
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await call(url(limited));
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    expect(statuses).toContain(429);
    expectError(last!, 429, 'RATE_LIMITED', /retry after/);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(url(other))).status).toBe(200);
    expect((await call(`${service.url}/health`)).status).toBe(200);
  });

  it('throttles password-hashing requests per client address', async () => {
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await call(`${service.url}/users/v1/login`, { method: 'POST', body: { email: 'c@example.com', password: 'wrong password' } });
      if (last.status === 429) break;
    }
    expectError(last!, 429, 'RATE_LIMITED', /Too many account requests/);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('start-up failures', () => {
  it('waits for an unreachable node (saying so, until stopped), and names bad options', async () => {
    const dataDir = tempDir();
    try {
      // A node that is away is waited for, not a reason to fail the start: each try is one line, and the caller's
      // signal (the CLI's Ctrl-C) ends the wait.
      const lines: string[] = [];
      const log: Logger = { ...silentLogger, warn: (m) => void lines.push(m), child: () => log };
      const stop = new AbortController();
      const waiting = startService({ nodeUrl: 'http://127.0.0.1:9/v2/KEY', dataDir, port: 0, log, signal: stop.signal });
      await waitFor('two tries of the node', () => lines.length >= 2, { timeoutMs: 10_000 });
      stop.abort(new Error('stopped while waiting'));
      await expect(waiting).rejects.toThrow('stopped while waiting');
      expect(lines[0]).toMatch(
        new RegExp(
          /^Cannot read the chain id from the node at http:\/\/127\.0\.0\.1:9 \(.*\); /.source +
            /check that the node runs and the URL is right; the service waits for it and tries again in 1 s \(Ctrl-C stops\)\.$/.source,
        ),
      );
      expect(lines[1]).toMatch(/tries again in 2 s/);
      expect(lines.join('\n')).not.toContain('KEY');
      await expect(startService({ nodeUrl: 'not a url', dataDir, port: 0, log: silentLogger })).rejects.toThrow(/is not a URL/);
      await expect(
        startService({ nodeUrl: dev.devchain.nodeUrl, dataDir, port: 70000, confirmations: -1, log: silentLogger }),
      ).rejects.toThrow("The service option 'port' must be at most 65535. The service option 'confirmations' must be at least 0.");
      await expect(startService({ nodeUrl: dev.devchain.nodeUrl, port: 0, log: silentLogger })).rejects.toThrow(
        "The service option 'dataDir' is required without 'database': the folder where SQLite keeps the service's state.",
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('names a port in use and leaves nothing running', async () => {
    const dataDir = tempDir();
    try {
      const port = Number(new URL(base).port);
      await expect(startService({ nodeUrl: dev.devchain.nodeUrl, dataDir, port, log: silentLogger })).rejects.toThrow(
        /Port \d+ on 127\.0\.0\.1 is already in use/,
      );
      // The half-started service closed its database, so the same data dir starts cleanly.
      const again = await startService({ nodeUrl: dev.devchain.nodeUrl, dataDir, port: 0, log: silentLogger });
      await again.stop();
      await again.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
