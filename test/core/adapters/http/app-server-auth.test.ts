// The localhost API's locks as plain functions: the token file (created 0600, kept, replaced when it may have leaked),
// the bearer/cookie check on every method, which paths open without it, the login page, the key-route rule for
// settings, and the private-key rule.
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkSettingsPatch,
  checkToken,
  isApiPath,
  isStateChanging,
  opensWithoutToken,
  sessionCookieName,
  sessionCookieValue,
  type AppServerAuth,
} from '../../../../src/core/adapters/http/app-server-auth.js';
import { loginPageHtml, loginPagePolicy } from '../../../../src/core/adapters/http/app-server-login-page.js';
import { appRouteList } from '../../../../src/shared/desktop-api.js';
import { ensureApiToken } from '../../../../src/core/api-token.js';
import { normalizePrivateKey, privateKeyProblem, SECP256K1_ORDER } from '../../../../src/core/domain/private-key.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the token file', () => {
  it('is created once with mode 0600 and read back unchanged', () => {
    const first = ensureApiToken(dir);
    expect(first.file).toBe(join(dir, 'api-token'));
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ensureApiToken(dir).token).toBe(first.token);
  });

  it('is replaced when others could read it or when it holds no token', () => {
    const { file, token } = ensureApiToken(dir);
    chmodSync(file, 0o644);
    const after = ensureApiToken(dir);
    expect(after.token).not.toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, 'short\n', { mode: 0o600 });
    expect(ensureApiToken(dir).token).not.toBe('short');
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('differs per data dir', () => {
    expect(ensureApiToken(join(dir)).token).not.toBe(ensureApiToken(mkdtempSync(join(dir, 'other-'))).token);
  });
});

describe('checkToken', () => {
  const auth: AppServerAuth = { token: 'T'.repeat(43), tokenFile: '/data/api-token', keyRoutes: false };
  const port = 3000;
  const cookie = `${sessionCookieName(port)}=${sessionCookieValue(auth.token)}`;
  const cases: [string, Record<string, string>, boolean][] = [
    // Reads need it too: the history and the data service's client ID are not for every local user.
    ['GET', {}, false],
    ['HEAD', {}, false],
    ['OPTIONS', {}, false],
    ['GET', { authorization: `Bearer ${auth.token}` }, true],
    ['GET', { cookie }, true],
    ['HEAD', { cookie }, true],
    ['GET', { authorization: `Bearer ${auth.token.slice(1)}` }, false],
    ['POST', {}, false],
    ['PUT', {}, false],
    ['PATCH', {}, false],
    ['DELETE', {}, false],
    ['POST', { authorization: `Bearer ${auth.token}` }, true],
    ['POST', { authorization: `bearer ${auth.token}` }, true],
    ['POST', { authorization: `Bearer ${auth.token}x` }, false],
    ['POST', { authorization: auth.token }, false],
    ['POST', { authorization: `Basic ${auth.token}` }, false],
    ['POST', { authorization: 'Bearer ' }, false],
    ['POST', { cookie }, true],
    ['PATCH', { cookie: `a=b; ${cookie}; c=d` }, true],
    ['POST', { cookie: `${sessionCookieName(3001)}=${sessionCookieValue(auth.token)}` }, false],
    ['POST', { cookie: `${sessionCookieName(port)}=${auth.token}` }, false],
    ['POST', { cookie: `${sessionCookieName(port)}=${sessionCookieValue('another token')}` }, false],
  ];
  it.each(cases)('%s %j -> allowed %s', (method, headers, allowed) => {
    const e = checkToken(method, headers, auth, port);
    expect(e === null).toBe(allowed);
    if (e) {
      expect([e.status, e.code]).toEqual([401, 'UNAUTHORIZED']);
      expect(e.message).toContain(auth.tokenFile);
    }
  });

  it('never accepts a random header or cookie', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'), fc.string(), fc.string(), (method, a, c) => {
        expect(checkToken(method, { authorization: a, cookie: c }, auth, port)).not.toBeNull();
      }),
    );
    expect(['POST', 'PUT', 'PATCH', 'DELETE', 'GET'].map(isStateChanging)).toEqual([true, true, true, true, false]);
  });
});

describe('what opens without the token', () => {
  it('every route of the API needs it, including the event stream, the listing proxy, the OpenAPI document and /rpc', () => {
    expect(appRouteList.length).toBeGreaterThan(20);
    for (const { route } of appRouteList) {
      const [method, path] = route.split(' ') as [string, string];
      const concrete = path.replace(/:([a-zA-Z]+)/g, 'x');
      expect(isApiPath(concrete), route).toBe(true);
      expect(opensWithoutToken(method, concrete), route).toBe(false);
      expect(opensWithoutToken('GET', concrete), route).toBe(false);
    }
    for (const path of ['/api', '/api/', '/nft', '/rpc', '/api/events', '/api/openapi.json', '/nft/v1/accounts/0xab/tokens'])
      expect(opensWithoutToken('GET', path), path).toBe(false);
  });

  it("only reads of the renderer's files (its page, assets, icon, client-side routes) open without it", () => {
    for (const path of [
      '/',
      '/index.html',
      '/assets/index-abc.js',
      '/favicon.ico',
      '/transactions/0xabc',
      '/tokens/assets/app.css',
      '/apiary',
      '/nfts',
    ]) {
      expect(opensWithoutToken('GET', path), path).toBe(true);
      expect(opensWithoutToken('HEAD', path), path).toBe(true);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
        expect(opensWithoutToken(method, path), `${method} ${path}`).toBe(false);
    }
  });
});

describe('the login page', () => {
  it('says where the token is (escaped), posts a form to /login, and runs or loads nothing', () => {
    const html = loginPageHtml('/home/a<b>"c/.txdesk/api-token', 'This login link was already used or is wrong.');
    expect(html).toContain('/home/a&#60;b&#62;&#34;c/.txdesk/api-token');
    expect(html).not.toContain('a<b>');
    expect(html).toContain('This login link was already used or is wrong.');
    expect(html).toMatch(/<form method="post" action="\/login">/);
    expect(html).toMatch(/<input id="token" name="token" type="password"/);
    expect(html).not.toMatch(/<script|\son[a-z]+=|url\(/i);
    // Whatever it links to is inline or this server: the icon is a data: URL, the form posts to /login.
    const links = [...html.matchAll(/\s(?:href|src|action)="([^"]*)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThanOrEqual(2);
    for (const link of links) expect(link).toMatch(/^(data:|\/[a-z])/);
    expect(loginPageHtml('/f', null)).not.toContain('class="problem"');
  });

  it('has a CSP that allows its own inline style by hash, and nothing else', () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(loginPageHtml('/f', null))![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(loginPagePolicy).toContain(`style-src 'sha256-${hash}'`);
    expect(loginPagePolicy).toMatch(/default-src 'none'/);
    expect(loginPagePolicy).toMatch(/form-action 'self'/);
    expect(loginPagePolicy).toMatch(/frame-ancestors 'none'/);
    expect(loginPagePolicy).not.toMatch(/script-src|unsafe/);
  });
});

describe('checkSettingsPatch', () => {
  const off: AppServerAuth = { token: 't', tokenFile: 'f', keyRoutes: false };
  it.each([
    [{ policy: { bumpPercent: 20 } }, null],
    [{ clientId: 'x', localApi: true }, null],
    [{ nodeUrl: 'http://x' }, /nodeUrl.*--allow-key-routes/],
    [{ serviceUrl: 'http://x', policy: {} }, /serviceUrl/],
    [{ nodeUrl: 'http://x', serviceUrl: 'http://y' }, /nodeUrl and serviceUrl/],
    ['garbage', null],
  ])('%j', (body, refused) => {
    const e = checkSettingsPatch(body, off);
    if (refused === null) expect(e).toBeNull();
    else expect([e?.status, e?.message]).toEqual([403, expect.stringMatching(refused)]);
    expect(checkSettingsPatch(body, { ...off, keyRoutes: true })).toBeNull();
  });
});

describe('privateKeyProblem', () => {
  const hex = (n: bigint) => n.toString(16).padStart(64, '0');
  it.each([
    ['zero', hex(0n), /zero/],
    ['zero with 0x', `0x${hex(0n)}`, /zero/],
    ['the curve order', hex(SECP256K1_ORDER), /curve order/],
    ['the curve order + 1', hex(SECP256K1_ORDER + 1n), /curve order/],
    ['all f', 'f'.repeat(64), /curve order/],
    ['63 digits', '1'.repeat(63), /64 hex digits/],
    ['one', hex(1n), null],
    ['the order - 1', `0X${hex(SECP256K1_ORDER - 1n).toUpperCase()}`, null],
  ])('%s', (_name, key, problem) => {
    const p = privateKeyProblem(key);
    if (problem === null) {
      expect(p).toBeNull();
      expect(() => new Wallet(normalizePrivateKey(key))).not.toThrow();
    } else expect(p).toMatch(problem);
  });

  it('accepts exactly the keys ethers can make a wallet of', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
          fc.bigInt({ min: SECP256K1_ORDER - 3n, max: SECP256K1_ORDER + 3n }),
          fc.constantFrom(0n, 1n),
        ),
        (k) => {
          const key = `0x${hex(k)}`;
          let ethersOk = true;
          try {
            new Wallet(key);
          } catch {
            ethersOk = false;
          }
          expect(privateKeyProblem(key) === null).toBe(ethersOk);
        },
      ),
      { numRuns: 300 },
    );
  });
});
