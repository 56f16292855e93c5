// The localhost API's locks as plain functions: the token file (created 0600, kept, replaced when it may have leaked),
// the bearer/cookie check per method, the key-route rule for settings, and the private-key rule.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSettingsPatch, checkToken, isStateChanging, sessionCookieName, sessionCookieValue, type AppServerAuth } from '../../src/core/adapters/http/app-server-auth.js';
import { ensureApiToken } from '../../src/core/api-token.js';
import { normalizePrivateKey, privateKeyProblem, SECP256K1_ORDER } from '../../src/core/domain/private-key.js';

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
    ['GET', {}, true],
    ['HEAD', {}, true],
    ['OPTIONS', {}, true],
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
      fc.property(fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'), fc.string(), fc.string(), (method, a, c) => {
        expect(checkToken(method, { authorization: a, cookie: c }, auth, port)).not.toBeNull();
      }),
    );
    expect(['POST', 'PUT', 'PATCH', 'DELETE', 'GET'].map(isStateChanging)).toEqual([true, true, true, true, false]);
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
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.bigInt({ min: SECP256K1_ORDER - 3n, max: SECP256K1_ORDER + 3n }), fc.constantFrom(0n, 1n)), (k) => {
        const key = `0x${hex(k)}`;
        let ethersOk = true;
        try {
          new Wallet(key);
        } catch {
          ethersOk = false;
        }
        expect(privateKeyProblem(key) === null).toBe(ethersOk);
      }),
      { numRuns: 300 },
    );
  });
});
