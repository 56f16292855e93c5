// The localhost server of a configured core on a real dev chain and data service: Host/Origin checks (nothing
// changes when refused), the API token on every route (reads too) and the browser login (the link, the paste-the-token
// page and its form), the error envelope,
// static files, the listing proxy, settings, the key routes (the key never comes back), sign-in, token metadata and
// the SSE stream.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src/core/create-core.js';
import type { Logger } from '../../src/lib/log.js';
import { appRouteList, type AppInfo, type AppSettings, type KeyExport, type KeyInfo } from '../../src/shared/desktop-api.js';
import type { TokenPage } from '../../src/shared/listing.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { sessionCookieValue } from '../../src/core/adapters/http/app-server-auth.js';
import { startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-http-'));
const rendererDir = join(dir, 'renderer');
let chain: TestChain;
let core: Core;
let app: string;
let port: number;
let token: string;
let tokenFile: string;
let loginUrl: string;
const logLines: string[] = [];
const responses: string[] = [];
const capture: Logger = {
  info: (m) => logLines.push(m),
  warn: (m) => logLines.push(m),
  error: (m) => logLines.push(m),
  child: () => capture,
};

/** A raw request, so Host and Origin can be anything. It carries the API token unless `authorization` is given ('' for none). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const all: Record<string, string> = { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, ...headers };
  if (all.authorization === '') delete all.authorization;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: all }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        responses.push(text);
        resolve({ status: res.statusCode!, headers: res.headers, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
const json = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const r = await raw(
    method,
    path,
    body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return { status: r.status, body: JSON.parse(r.text) as T, headers: r.headers };
};

beforeAll(async () => {
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>txdesk</title><div id="root"></div>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("app")');
  writeFileSync(join(rendererDir, 'assets', 'app.css'), 'body{}');
  chain = await startTestChain();
  const { PRIVATE_KEY: _key, ...env } = chain.env;
  core = createCore({
    // The dev chain's metadata server is on 127.0.0.1: a configured core fetches local metadata only from named origins.
    env: { ...env, TXDESK_KEY_PASSPHRASE: 'a test passphrase', TXDESK_METADATA_ORIGINS: new URL(chain.dev.devchain.metadataUrl).origin },
    dataDir: join(dir, 'data'),
    policy: { pricing: 'seed', timeoutMs: 2_000, confirmations: 1 },
    http: { port: 0, rendererDir, allowKeyRoutes: true },
    keychainAvailable: async () => false,
    log: capture,
  });
  const rt = await core.start();
  app = rt.appUrl!;
  loginUrl = rt.loginUrl!;
  tokenFile = rt.apiTokenFile!;
  token = readFileSync(tokenFile, 'utf8').trim();
  port = Number(new URL(app).port);
});

afterAll(async () => {
  await core?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Host and Origin checks', () => {
  it('refuses a foreign Host, foreign Origins, Origin null and foreign preflights, and changes nothing', async () => {
    const before = (await json<TxRecord[]>('GET', '/api/tx')).body.length;
    const refused = [
      await raw('POST', '/api/tx', { host: `evil.example:${port}` }),
      await raw('POST', '/api/tx', { host: 'localhost:1' }),
      await raw('GET', '/api/tx', { host: `attacker.test` }),
      await raw('POST', '/api/tx', { origin: 'https://evil.example' }),
      await raw('POST', '/api/tx', { origin: `http://127.0.0.1:${port + 1}` }),
      await raw('POST', '/api/tx', { origin: 'null' }),
      await raw(
        'PATCH',
        '/api/settings',
        { origin: 'https://evil.example', 'content-type': 'application/json' },
        JSON.stringify({ policy: { maxReplacements: 0 } }),
      ),
      await raw('POST', '/api/key/generate', { origin: 'https://evil.example' }),
      await raw('POST', '/api/tx', { 'sec-fetch-site': 'cross-site' }),
      await raw('OPTIONS', '/api/tx', { origin: 'https://evil.example', 'access-control-request-method': 'POST' }),
    ];
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(JSON.parse(r.text).error.code).toBe('FORBIDDEN');
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect((await json<TxRecord[]>('GET', '/api/tx')).body.length).toBe(before);
    expect((await json<AppSettings>('GET', '/api/settings')).body.policy.maxReplacements).not.toBe(0);
    expect((await json<KeyInfo | null>('GET', '/api/key')).body).toBeNull();
  });

  it('answers its own origin, localhost, and clients without Origin; preflights get no CORS grant', async () => {
    expect((await raw('GET', '/api/app', { origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await raw('GET', '/api/app', { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await raw('GET', '/api/app')).status).toBe(200);
    const pre = await raw('OPTIONS', '/api/tx', { origin: `http://127.0.0.1:${port}`, 'access-control-request-method': 'POST' });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('the API token', () => {
  const stateChanging = appRouteList
    .map(({ name, route }) => [name, ...route.split(' ')] as [string, string, string])
    .filter(([, method]) => method !== 'GET');

  it('lives in <data dir>/api-token, mode 0600', () => {
    expect(tokenFile).toBe(join(dir, 'data', 'api-token'));
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses every state-changing route without the token or with a wrong one (401 naming the file), and changes nothing', async () => {
    expect(stateChanging.length).toBeGreaterThanOrEqual(12);
    const before = {
      tx: (await json<TxRecord[]>('GET', '/api/tx')).body.length,
      settings: (await json<AppSettings>('GET', '/api/settings')).body,
    };
    const hash = `0x${'ab'.repeat(32)}`;
    const bodies: Record<string, unknown> = {
      updateSettings: { policy: { maxReplacements: 0 }, nodeUrl: 'http://evil.example:8545' },
      importKey: { privateKey: Wallet.createRandom().privateKey },
      exportKey: { passphrase: 'a long passphrase' },
      signIn: { email: chain.dev.devAccount.email, password: chain.dev.devAccount.password },
      setCongestion: { level: 'high' },
      resolveTokenMetadata: { uris: [] },
      rpc: { jsonrpc: '2.0', id: 1, method: 'eth_accounts', params: [] },
    };
    for (const [name, method, pattern] of stateChanging) {
      const path = pattern.replace(':hash', hash).replace(':contract', chain.address).replace(':id', '1');
      const body = name in bodies ? JSON.stringify(bodies[name]) : undefined;
      const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
      for (const authorization of ['', `Bearer ${'x'.repeat(43)}`, token, `Basic ${token}`]) {
        const r = await raw(method, path, { ...headers, authorization }, body);
        if (name === 'rpc') {
          // JSON-RPC answers in its own shape: error 4100 in a 200, which libraries read (an HTTP 401 they do not).
          const e = JSON.parse(r.text) as { result?: unknown; error: { code: number; message: string } };
          expect(`${name} ${authorization.slice(0, 6)} ${r.status} ${e.error.code}`).toBe(`${name} ${authorization.slice(0, 6)} 200 4100`);
          expect(e.result).toBeUndefined();
          expect(e.error.message).toContain(tokenFile);
          continue;
        }
        expect(`${name} ${authorization.slice(0, 6)} ${r.status}`).toBe(`${name} ${authorization.slice(0, 6)} 401`);
        const e = JSON.parse(r.text) as { error: { code: string; message: string } };
        expect(e.error.code).toBe('UNAUTHORIZED');
        expect(e.error.message).toContain(tokenFile);
      }
    }
    expect((await json<TxRecord[]>('GET', '/api/tx')).body.length).toBe(before.tx);
    expect((await json<AppSettings>('GET', '/api/settings')).body).toEqual(before.settings);
    expect((await json<KeyInfo | null>('GET', '/api/key')).body).toBeNull();
  });

  it('lets the browser in once through the printed login link: an HttpOnly, SameSite=Strict cookie, then the clean URL', async () => {
    const link = new URL(loginUrl);
    expect(link.origin).toBe(app);
    const first = await raw('GET', `${link.pathname}${link.search}`, { authorization: '' });
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('/');
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^txdesk-session-${port}=[A-Za-z0-9_-]+; Path=/; HttpOnly; SameSite=Strict`));
    expect(setCookie).not.toContain(token);
    const cookie = setCookie.split(';')[0]!;
    // The cookie opens state-changing routes like the token does (the renderer's same-origin fetch sends it).
    const put = await raw(
      'PUT',
      '/api/devchain/congestion',
      { authorization: '', cookie, origin: app, 'content-type': 'application/json' },
      JSON.stringify({ level: 'high' }),
    );
    expect(put.status).toBe(409); // past the token check: this configured core has no dev chain
    // One time only: the same link without the cookie opens the page where the token is pasted (not a JSON error);
    // with the cookie it just drops the code.
    const again = await raw('GET', `${link.pathname}${link.search}`, { authorization: '' });
    expect(again.status).toBe(401);
    expect(again.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.text).toContain('This login link was already used or is wrong.');
    expect(again.text).toContain(tokenFile);
    expect(again.text).toMatch(/<form method="post" action="\/login">/);
    expect(again.text).not.toContain(token);
    expect(again.headers['content-security-policy']).toMatch(/default-src 'none'.*form-action 'self'/);
    expect((await raw('GET', `${link.pathname}${link.search}`, { authorization: '', cookie })).status).toBe(302);
    // The token itself always works as a login, for a second browser.
    expect((await raw('GET', `/?login=${token}`, { authorization: '' })).headers['set-cookie']).toBeDefined();
    const forged = await raw('POST', '/api/tx', { authorization: '', cookie: `txdesk-session-${port}=${'A'.repeat(43)}` });
    expect(forged.status).toBe(401);
  });
});

describe('errors and static files', () => {
  it('answers every failure with the envelope', async () => {
    const cases: [string, string, number, string, Record<string, string>?, string?][] = [
      ['GET', '/api/tx/0x123', 400, 'INVALID_PARAMETER'],
      ['GET', `/api/tx/0x${'ab'.repeat(32)}`, 404, 'NOT_FOUND'],
      ['GET', '/api/nope', 404, 'NOT_FOUND'],
      ['DELETE', '/api/tx', 405, 'METHOD_NOT_ALLOWED'],
      ['PATCH', '/api/settings', 400, 'BAD_REQUEST', { 'content-type': 'application/json' }, '{nope'],
      ['PATCH', '/api/settings', 415, 'UNSUPPORTED_MEDIA_TYPE', { 'content-type': 'text/plain' }, '{}'],
      [
        'PATCH',
        '/api/settings',
        400,
        'INVALID_PARAMETER',
        { 'content-type': 'application/json' },
        JSON.stringify({ policy: { bumpPercent: 5 } }),
      ],
      ['PATCH', '/api/settings', 400, 'INVALID_PARAMETER', { 'content-type': 'application/json' }, JSON.stringify({ colour: 'red' })],
      [
        'PUT',
        '/api/devchain/congestion',
        400,
        'INVALID_PARAMETER',
        { 'content-type': 'application/json' },
        JSON.stringify({ level: 'extreme' }),
      ],
      ['PUT', '/api/devchain/congestion', 409, 'CONFLICT', { 'content-type': 'application/json' }, JSON.stringify({ level: 'high' })],
      ['POST', '/api/tx', 409, 'CONFLICT'], // no key yet
      ['POST', '/api/key/import', 400, 'INVALID_PARAMETER', { 'content-type': 'application/json' }, JSON.stringify({ privateKey: 'abc' })],
      ['POST', '/api/token-metadata', 400, 'INVALID_PARAMETER', { 'content-type': 'application/json' }, JSON.stringify({ uris: 'x' })],
      ['GET', '/api/token-image', 400, 'INVALID_PARAMETER'],
      ['GET', `/api/token-image?url=${encodeURIComponent('ftp://example.org/1.png')}`, 400, 'INVALID_PARAMETER'],
      ['GET', `/api/token-image?url=${encodeURIComponent('http://127.0.0.1:1/1.png')}`, 403, 'FORBIDDEN'],
      ['GET', `/api/token-image?url=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`, 403, 'FORBIDDEN'],
      ['POST', '/api/token-image', 405, 'METHOD_NOT_ALLOWED'],
      ['GET', '/nft/v1/accounts/0xnope/tokens', 400, 'INVALID_PARAMETER'],
      ['GET', `/nft/v1/accounts/${chain.address}/tokens?size=0`, 400, 'INVALID_PARAMETER'],
    ];
    for (const [method, path, status, code, headers, body] of cases) {
      const r = await raw(method, path, headers, body);
      expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} ${status}`);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const e = JSON.parse(r.text) as { error: { code: string; message: string } };
      expect(e.error.code).toBe(code);
      expect(e.error.message.length).toBeGreaterThan(10);
    }
    expect(
      (await json<{ error: { message: string } }>('PATCH', '/api/settings', { policy: { bumpPercent: 5 } })).body.error.message,
    ).toMatch(/policy\.bumpPercent/);
  });

  it('validates IPC-style calls on core.api exactly like the HTTP routes', async () => {
    const bad: [string, () => Promise<unknown>][] = [
      ['getTransaction', () => core.api.getTransaction('0x12')],
      ['listTokens', () => core.api.listTokens('nope', {})],
      ['listTokens', () => core.api.listTokens(chain.address, { size: 0 })],
      ['listTokens', () => core.api.listTokens(chain.address, { extra: 1 } as never)],
      ['updateSettings', () => core.api.updateSettings({ policy: { maxReplacements: -1 } })],
      ['importKey', () => core.api.importKey({ privateKey: 'zz' })],
      ['signIn', () => core.api.signIn({ email: 'not-an-email', password: 'x' })],
      ['setCongestion', () => core.api.setCongestion('max' as never)],
      ['resolveTokenMetadata', () => core.api.resolveTokenMetadata('x' as never)],
    ];
    for (const [name, call] of bad) {
      const e = (await call().then(
        () => null,
        (x: unknown) => x,
      )) as { code?: string; status?: number } | null;
      expect(`${name} ${e?.code} ${e?.status}`).toBe(`${name} INVALID_PARAMETER 400`);
    }
  });

  it('describes itself in /api/openapi.json, generated from the contract table: every route, no other, each operation once', async () => {
    const doc = (
      await json<{
        openapi: string;
        security: unknown;
        components: { securitySchemes: unknown };
        paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string }[] }>>;
      }>('GET', '/api/openapi.json')
    ).body;
    expect(doc.openapi).toBe('3.1.0');
    // Every route needs the token: the document says so for all of them.
    expect(doc.security).toEqual([{ apiToken: [] }]);
    expect(doc.components.securitySchemes).toMatchObject({ apiToken: { type: 'http', scheme: 'bearer' } });
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(appRouteList.map(({ route }) => route.replace(/:([a-zA-Z]+)/g, '{$1}')).sort());
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, ops] of Object.entries(doc.paths)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(ops)) expect((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)).toEqual(inPath);
    }
    // Every documented GET is served (not the "no API route" 404), and what is not documented is not.
    for (const route of documented.filter(
      (r) => r.startsWith('GET ') && !r.includes('{') && !r.endsWith('/api/events') && !r.endsWith('/api/token-image'),
    )) {
      expect((await raw('GET', route.slice(4))).status, route).toBe(200);
    }
    expect((await raw('GET', '/api/not-documented')).status).toBe(404);
  });

  it('serves the renderer with content types and a single-page fallback, and nothing outside it', async () => {
    const index = await raw('GET', '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.text).toContain('<div id="root">');
    expect((await raw('GET', '/assets/app.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await raw('GET', '/assets/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    const spa = await raw('GET', '/transactions/0xabc');
    expect(spa.status).toBe(200);
    expect(spa.text).toContain('<div id="root">');
    expect((await raw('GET', '/assets/missing.js')).status).toBe(404);
    expect((await raw('GET', '/transactions/assets/app.js')).text).toBe('console.log("app")'); // relative asset under a deep route
    for (const p of ['/%2e%2e/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/assets/%2e%2e/%2e%2e/settings.json']) {
      const r = await raw('GET', p);
      expect(r.text).not.toContain('"name"');
      expect([200, 404]).toContain(r.status);
    }
    expect((await raw('POST', '/index.html')).status).toBe(405);
  });
});

/** A dev account that owns at least two tokens. */
async function tokenOwner(): Promise<string> {
  for (const a of chain.dev.devchain.accounts) {
    const r = await json<TokenPage>('GET', `/nft/v1/accounts/${a.address}/tokens?size=1`);
    if (r.body.pagination.totalCount >= 2) return a.address;
  }
  throw new Error('no dev account owns two tokens');
}

describe('listing proxy', () => {
  it('forwards with the clientId, rewrites pagination to this origin, and passes errors through', async () => {
    const owner = await tokenOwner();
    const first = await json<TokenPage>('GET', `/nft/v1/accounts/${owner}/tokens?size=1&order_by=token_id&order_direction=asc`);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.pagination.prevUrl).toBe('');
    expect(first.body.pagination.nextUrl.startsWith(`${app}/nft/v1/accounts/`)).toBe(true);
    expect(first.body.pagination.nextUrl).not.toContain('clientId');
    // Which index answered, as the service says it to its own callers.
    expect(Number(first.headers['txdesk-indexed-block'])).toBeGreaterThan(0);
    expect(String(first.headers['txdesk-indexed-behind'])).toMatch(/^\d+$/);
    const next = new URL(first.body.pagination.nextUrl);
    const second = await json<TokenPage>('GET', `${next.pathname}${next.search}`);
    expect(second.body.pagination.prevUrl.startsWith(app)).toBe(true);
    // The same id can be in two collections (Drops #1 and Gems #1): a token is its contract and id.
    const key = (t: TokenPage['data'][number]) => `${t.contract.address}:${t.id}`;
    expect(key(second.body.data[0]!)).not.toBe(key(first.body.data[0]!));
    const viaApi = await core.api.listTokens(owner, { size: 1, order_by: 'token_id', order_direction: 'asc' });
    expect(viaApi).toEqual(first.body);
  });

  it('resolves token metadata through the core', async () => {
    const owner = await tokenOwner();
    const page = (await json<TokenPage>('GET', `/nft/v1/accounts/${owner}/tokens?size=5`)).body;
    const uris = page.data.map((t) => t.uri).filter((u) => u !== '');
    expect(uris.length).toBeGreaterThan(0);
    const meta = (
      await json<Record<string, { image?: string; name?: string }>>('POST', '/api/token-metadata', {
        uris: [...uris, 'http://127.0.0.1:1/nothing', 'ftp://x'],
      })
    ).body;
    expect(meta[uris[0]!]!.image).toMatch(/^(https?:|data:image\/)/);
    expect(meta['http://127.0.0.1:1/nothing']).toEqual({});
    expect(meta['ftp://x']).toEqual({});
  });

  it('serves token images through the core, and only to its own page', async () => {
    const owner = await tokenOwner();
    const page = (await json<TokenPage>('GET', `/nft/v1/accounts/${owner}/tokens?size=1`)).body;
    const uri = page.data[0]!.uri;
    const image = (await core.api.resolveTokenMetadata([uri]))[uri]!.image!;
    expect(image.startsWith(new URL(chain.dev.devchain.metadataUrl).origin)).toBe(true);
    const path = `/api/token-image?url=${encodeURIComponent(image)}`;
    const r = await raw('GET', path, { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' });
    expect(r.status).toBe(200);
    expect(r.headers).toMatchObject({
      'content-type': 'image/svg+xml',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(r.headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/);
    expect(r.text.startsWith('<svg')).toBe(true);
    expect((await raw('HEAD', path)).text).toBe('');
    // Another site's <img> sends no Origin, but the browser says where it comes from.
    const foreign = await raw('GET', path, { 'sec-fetch-site': 'cross-site' });
    expect([foreign.status, JSON.parse(foreign.text).error.code]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('settings, sign-in and the key', { timeout: 180_000 }, () => {
  it('round-trips settings and persists them in settings.json', async () => {
    const r = await json<AppSettings>('PATCH', '/api/settings', { policy: { bumpPercent: 20, maxReplacements: 3 } });
    expect(r.status).toBe(200);
    expect(r.body.policy).toMatchObject({ bumpPercent: 20, maxReplacements: 3, timeoutMs: 2_000 });
    expect((await json<AppSettings>('GET', '/api/settings')).body.policy.bumpPercent).toBe(20);
    expect(JSON.parse(readFileSync(join(dir, 'data', 'settings.json'), 'utf8'))).toEqual({
      policy: { bumpPercent: 20, maxReplacements: 3 },
    });
  });

  it('checks a new client ID with the service before saving it; restart needs a hook; GET /api/app has the link state and /rpc', async () => {
    const unknown = await json<{ error: { code: string; message: string } }>('PATCH', '/api/settings', { clientId: 'no-such-client' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/^The data service at http:\/\/127\.0\.0\.1:\d+ does not know this client ID;/);
    expect((await json<{ clientId: string }>('GET', '/api/settings')).body.clientId).not.toBe('no-such-client');
    // This core was created without a restart hook (createCore's `restart` option): refused, nothing restarts.
    const restart = await json<{ error: { code: string } }>('POST', '/api/restart');
    expect(restart).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } });
    const info = await json<AppInfo>('GET', '/api/app');
    expect(info.body.status.node.state).toBe('connected');
    expect(info.body.status.tracker.state).toBe('connected');
    // Where a tool reaches /rpc, for Settings' snippets: the token's file, never the token.
    expect(info.body.toolRpc).toEqual({ url: `${app}/rpc`, apiTokenFile: tokenFile });
    expect(JSON.stringify(info.body)).not.toContain(token);
  });

  it('signs in against the data service, and refuses a wrong password with 401', async () => {
    const { email, password, clientId } = chain.dev.devAccount;
    const ok = await json<AppSettings>('POST', '/api/settings/sign-in', { email, password });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ clientId, signedInAs: email });
    const bad = await json<{ error: { code: string } }>('POST', '/api/settings/sign-in', { email, password: 'wrong password' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('UNAUTHORIZED');
  });

  it('imports a key once, shows only address and balance, and sends transactions with it', async () => {
    const imported = await json<KeyInfo>('POST', '/api/key/import', { privateKey: chain.privateKey.slice(2) });
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({
      address: chain.address,
      balanceWei: expect.stringMatching(/^[1-9][0-9]+$/),
      storage: 'encrypted-file',
    });
    expect((await json<KeyInfo>('GET', '/api/key')).body.address).toBe(chain.address);
    expect((await json<{ address: string }>('GET', '/api/app')).body.address).toBe(chain.address);

    // The SSE stream reports the new record and its progress.
    const ctrl = new AbortController();
    const stream = await fetch(`${app}/api/events`, { signal: ctrl.signal, headers: { authorization: `Bearer ${token}` } });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const created = await json<TxRecord>('POST', '/api/tx');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      from: chain.address,
      nonce: 0,
      gasPrice: '1000000000',
      data: {},
      replaces: null,
      replacedBy: null,
    });
    expect(created.body).not.toHaveProperty('status');
    const reader = stream.body!.getReader();
    let seen = '';
    await waitFor(
      'the confirmation on the event stream',
      async () => {
        const { value } = await reader.read();
        seen += new TextDecoder().decode(value);
        return seen.includes(`"transactionHash":"${created.body.transactionHash}"`) && seen.includes('"status":"confirmation"')
          ? true
          : undefined;
      },
      { timeoutMs: 60_000, everyMs: 0, retryErrors: true },
    );
    expect(seen).toContain('event: tx\ndata: {');
    ctrl.abort();
    const detail = await json<{ history: { kind: string }[]; status: string }>('GET', `/api/tx/${created.body.transactionHash}`);
    expect(detail.body.status).toBe('confirmation');
    expect(detail.body.history.map((e) => e.kind)).toEqual(['signed', 'broadcast', 'receipt', 'confirmation']);
    // Cancel and speed-up routes: a mined nonce is 409 with a sentence, an unknown hash 404 (202 in core-faults.test.ts).
    const late = await json<{ error: { code: string; message: string } }>('POST', `/api/tx/${created.body.transactionHash}/speed-up`);
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/^Nonce 0 is already mined by 0x[0-9a-f]{8}…; there is nothing left to speed up\.$/);
    const unknown = await json<{ error: { code: string } }>('POST', `/api/tx/0x${'ab'.repeat(32)}/cancel`);
    expect(unknown.status).toBe(404);

    // Replacing the key takes replace: true, and the refusal names the key it would have lost.
    const refused = await json<{ error: { code: string; message: string } }>('POST', '/api/key/generate');
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(chain.address);
    expect((await json<KeyInfo>('GET', '/api/key')).body.address).toBe(chain.address);

    // Export first: a v3 keystore that opens with the passphrase to the same account.
    const exported = await json<KeyExport>('POST', '/api/key/export', { passphrase: 'export passphrase' });
    expect(exported.status).toBe(200);
    expect(exported.body.address).toBe(chain.address);
    expect(exported.body.fileName).toMatch(new RegExp(`^UTC--.*--${chain.address.slice(2)}\\.json$`));
    expect(JSON.parse(exported.body.keystore)).toMatchObject({ version: 3, Crypto: { kdf: 'scrypt', cipher: 'aes-128-ctr' } });
    expect((await Wallet.fromEncryptedJson(exported.body.keystore, 'export passphrase')).address.toLowerCase()).toBe(chain.address);

    const generated = await json<KeyInfo>('POST', '/api/key/generate', { replace: true });
    expect(generated.body.address).not.toBe(chain.address);
    expect(generated.body.storage).toBe('encrypted-file');
  });

  it('refuses keys that make no wallet (zero, the curve order and above) before storing anything', async () => {
    const before = readFileSync(join(dir, 'data', 'signing-key.configured.enc.json'), 'utf8');
    const n = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    for (const privateKey of ['0'.repeat(64), `0x${'0'.repeat(64)}`, n, `0x${n.toUpperCase()}`, 'f'.repeat(64)]) {
      const r = await json<{ error: { code: string; message: string } }>('POST', '/api/key/import', { privateKey, replace: true });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/makes no wallet/);
    }
    expect(readFileSync(join(dir, 'data', 'signing-key.configured.enc.json'), 'utf8')).toBe(before);
  });

  it('follows a sign-in with another account: new client ID for the proxy and the tracker at once', async () => {
    const account = { email: `second-${Date.now()}@example.com`, password: 'second password 123', name: 'Second', organization: 'Tests' };
    const signup = await fetch(`${chain.dev.service.url}/users/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    expect(signup.status).toBeLessThan(300);
    const signedIn = await json<AppSettings>('POST', '/api/settings/sign-in', { email: account.email, password: account.password });
    expect(signedIn.body.signedInAs).toBe(account.email);
    expect(signedIn.body.clientId).not.toBe(chain.dev.clientId);
    const key = (await json<KeyInfo>('GET', '/api/key')).body;
    await chain.dev.devchain.fund(key.address, 10n ** 19n);
    const created = await waitFor(
      'a transaction under the new client ID',
      async () => {
        const r = await json<TxRecord>('POST', '/api/tx');
        return r.status === 201 ? r.body : undefined;
      },
      { timeoutMs: 180_000, retryErrors: true },
    );
    await waitFor(
      'its confirmation, delivered to the new subscription',
      async () => ((await json<TxRecord>('GET', `/api/tx/${created.transactionHash}`)).body.status === 'confirmation' ? true : undefined),
      { timeoutMs: 90_000, retryErrors: true },
    );
  });

  it('never lets the key out: not in any response, not in the log, not in plaintext on disk', () => {
    const hex = chain.privateKey.slice(2).toLowerCase();
    for (const text of responses) expect(text.toLowerCase()).not.toContain(hex);
    for (const line of logLines) expect(line.toLowerCase()).not.toContain(hex);
    expect(readFileSync(join(dir, 'data', 'signing-key.configured.enc.json'), 'utf8').toLowerCase()).not.toContain(hex);
  });
});

describe('reads need the token too', () => {
  const gets = appRouteList.map(({ route }) => route.split(' ') as [string, string]).filter(([method]) => method === 'GET');

  it('answers every GET route, the event stream, the OpenAPI document and the listing proxy 401 without the token or cookie, showing nothing', async () => {
    const records = (await json<TxRecord[]>('GET', '/api/tx')).body;
    const settings = (await json<AppSettings>('GET', '/api/settings')).body;
    const address = (await json<AppInfo>('GET', '/api/app')).body.address!;
    expect(records.length).toBeGreaterThan(0);
    expect(settings.clientId).toBeTruthy();
    const secrets = [settings.clientId!, address.toLowerCase(), ...records.map((r) => r.transactionHash)];
    const owner = chain.dev.devchain.accounts[1]!.address;
    const paths = [
      '/api/settings',
      '/api/tx',
      '/api/events',
      '/api/openapi.json',
      `/nft/v1/accounts/${owner}/tokens`,
      `/api/tx/${records[0]!.transactionHash}`,
      ...gets.map(([, path]) => path.replace(':hash', records[0]!.transactionHash).replace(':address', owner)),
    ];
    expect(gets.length).toBeGreaterThanOrEqual(10);
    for (const path of paths) {
      const refused: Record<string, string>[] = [
        { authorization: '' },
        { authorization: `Bearer ${'x'.repeat(43)}` },
        { authorization: token },
        { authorization: '', cookie: `txdesk-session-${port}=${'A'.repeat(43)}` },
        { authorization: '', cookie: `txdesk-session-${port + 1}=${sessionCookieValue(token)}` },
      ];
      for (const headers of refused) {
        for (const method of ['GET', 'HEAD']) {
          const r = await raw(method, path, headers);
          expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} 401`);
          expect(r.headers['www-authenticate']).toBe('Bearer realm="txdesk"');
          if (method === 'HEAD') continue;
          const e = JSON.parse(r.text) as { error: { code: string; message: string } };
          expect(Object.keys(e)).toEqual(['error']);
          expect(e.error.code).toBe('UNAUTHORIZED');
          expect(e.error.message).toContain(tokenFile);
          for (const secret of secrets) expect(r.text.toLowerCase()).not.toContain(secret.toLowerCase());
        }
      }
    }
  });

  it('answers them with the token or the login cookie', async () => {
    const login = await raw('GET', `/?login=${token}`, { authorization: '' });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const owner = chain.dev.devchain.accounts[1]!.address;
    for (const path of ['/api/settings', '/api/tx', '/api/openapi.json', `/nft/v1/accounts/${owner}/tokens?size=1`]) {
      expect((await raw('GET', path)).status, path).toBe(200);
      expect((await raw('GET', path, { authorization: '', cookie, origin: app })).status, path).toBe(200);
    }
    expect((await json<AppSettings>('GET', '/api/settings', undefined, { authorization: '', cookie })).body.clientId).toBeTruthy();
    const allowed: Record<string, string>[] = [{ authorization: `Bearer ${token}` }, { cookie }];
    for (const headers of allowed) {
      const ctrl = new AbortController();
      const stream = await fetch(`${app}/api/events`, { signal: ctrl.signal, headers });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      ctrl.abort();
    }
  });

  it("serves the login page and the renderer's files without the token, and nothing else", async () => {
    for (const path of ['/', '/index.html', '/assets/app.js', '/assets/app.css', '/transactions/0xabc', '/login']) {
      const r = await raw('GET', path, { authorization: '' });
      expect(`${path} ${r.status}`).toBe(`${path} 200`);
    }
    const page = await raw('GET', '/login', { authorization: '' });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain(tokenFile);
    expect(page.text).not.toContain('class="problem"');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    // Already signed in: /login goes on to the app.
    const signedIn = await raw('GET', '/login', { authorization: '', cookie: `txdesk-session-${port}=${sessionCookieValue(token)}` });
    expect([signedIn.status, signedIn.headers.location]).toEqual([302, '/']);
    expect((await raw('POST', '/', { authorization: '' })).status).toBe(401);
    expect((await raw('DELETE', '/login', { authorization: '' })).status).toBe(405);
  });

  it('takes the pasted token as a form post to /login: the same cookie and a 303 to the app; a wrong one shows the page again', async () => {
    const form = { authorization: '', 'content-type': 'application/x-www-form-urlencoded', origin: app };
    const ok = await raw('POST', '/login', form, new URLSearchParams({ token: ` ${token}\n` }).toString());
    expect([ok.status, ok.headers.location]).toEqual([303, '/']);
    const setCookie = String(ok.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^txdesk-session-${port}=[A-Za-z0-9_-]+; Path=/; HttpOnly; SameSite=Strict`));
    expect(setCookie).not.toContain(token);
    expect((await raw('GET', '/api/tx', { authorization: '', cookie: setCookie.split(';')[0]! })).status).toBe(200);

    for (const wrong of ['', 'x'.repeat(43), token.slice(1), `${token}x`]) {
      const r = await raw('POST', '/login', form, new URLSearchParams({ token: wrong }).toString());
      expect(r.status).toBe(401);
      expect(r.headers['set-cookie']).toBeUndefined();
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.text).toContain(`That is not the token in ${tokenFile}`);
      expect(r.text).toMatch(/<form method="post" action="\/login">/);
    }
    // The login form is refused from another page (its Origin) and in any other shape; the token is never in a URL.
    const foreign = await raw('POST', '/login', { ...form, origin: 'https://evil.example' }, new URLSearchParams({ token }).toString());
    expect([foreign.status, foreign.headers['set-cookie']]).toEqual([403, undefined]);
    const asJson = await raw('POST', '/login', { ...form, 'content-type': 'application/json' }, JSON.stringify({ token }));
    expect([asJson.status, JSON.parse(asJson.text).error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const big = await raw('POST', '/login', form, `token=${'x'.repeat(10_000)}`);
    expect(big.status).toBe(413);
  });
});
