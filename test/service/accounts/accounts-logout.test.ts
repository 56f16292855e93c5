// POST /users/v1/logout on a real service (bare anvil, SQLite in a temp dir): the token it is called with stops working
// everywhere and for good (across a restart), the account's other sessions and its clientId do not; and, in-process
// on a real database with a fake clock, expiry, pruning of the deny-list, and tokens issued before it existed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { createAccounts } from '../../../src/service/accounts/accounts.js';
import { openSqliteAccountsStore } from '../../../src/service/accounts/sqlite/accounts-store-sqlite.js';
import { issueToken } from '../../../src/service/accounts/accounts-token.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { call, tempDir, type Answer } from '../../support/service/service-harness.js';

const password = 'correct horse battery';
const revoked = /revoked by a logout; log in again with `txdesk login`/;

function expectUnauthorized(answer: Answer, message: RegExp) {
  expect(answer.status).toBe(401);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  expect(answer.body.error.message).toMatch(message);
}

describe('a running service', () => {
  let anvil: RunningAnvil;
  let service: RunningService;
  let dataDir: string;
  const start = () => startService({ nodeUrl: anvil.url, dataDir, port: 0, openSignup: true, log: silentLogger });

  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeSeconds: 2 });
    dataDir = tempDir('txdesk-logout-test-');
    service = await start();
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await anvil?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const url = (path: string) => `${service.url}${path}`;
  const me = (token: string) => call(url('/users/v1/me'), { token });
  const logout = (token?: string, body?: unknown) =>
    call(url('/users/v1/logout'), { method: 'POST', ...(token !== undefined ? { token } : {}), ...(body !== undefined ? { body } : {}) });
  const login = async (email: string): Promise<string> => {
    const answer = await call(url('/users/v1/login'), { method: 'POST', body: { email, password } });
    expect(answer.status).toBe(200);
    return answer.body.jwtToken as string;
  };

  it('revokes the token it is called with, everywhere and across a restart, and nothing else', async () => {
    const signup = await call(url('/users/v1/signup'), { method: 'POST', body: { email: 'ada@example.com', password, name: 'Ada' } });
    expect(signup.status).toBe(201);
    const { jwtToken: first, clientId } = signup.body as { jwtToken: string; clientId: string };
    // Two more sessions of the same user, very likely issued within the same second as each other.
    const [second, third] = [await login('ada@example.com'), await login('ada@example.com')];
    expect(new Set([first, second, third]).size).toBe(3);

    expect((await me(first)).status).toBe(200);
    const out = await logout(first);
    expect(out.status).toBe(204);
    expect(out.text).toBe('');

    expectUnauthorized(await me(first), revoked);
    expectUnauthorized(
      await call(url('/users/v1/passwd'), { method: 'PATCH', token: first, body: { password, newPassword: 'another password' } }),
      revoked,
    );
    // A second logout with the same token is the 401 of any revoked token.
    expectUnauthorized(await logout(first), revoked);
    // Another spelling of the same signature (base64url decoding ignores a trailing "=") is the same revoked token.
    expectUnauthorized(await me(`${first}=`), revoked);

    for (const other of [second, third]) expect((await me(other)).body).toMatchObject({ email: 'ada@example.com', clientId });
    // The clientId is not a session: listing with it goes on working.
    const listing = await call(url(`/nft/v1/accounts/0x0000000000000000000000000000000000000001/tokens?clientId=${clientId}`));
    expect(listing.status).toBe(200);

    await service.stop();
    service = await start();
    expectUnauthorized(await me(first), revoked);
    expect((await me(second)).status).toBe(200);
    expect((await logout(second)).status).toBe(204);
    expectUnauthorized(await me(second), revoked);
    expect((await me(third)).status).toBe(200);
  });

  it('answers a missing or invalid token with 401 and a body other than {} with 400, revoking nothing', async () => {
    expectUnauthorized(await logout(), /needs a session token/);
    expectUnauthorized(await logout('not.a.token'), /not valid; log in again/);

    await call(url('/users/v1/signup'), { method: 'POST', body: { email: 'grace@example.com', password, name: 'Grace' } });
    const token = await login('grace@example.com');
    const withOptions = await logout(token, { everywhere: true });
    expect(withOptions.status).toBe(400);
    expect(withOptions.body).toEqual({ error: { code: 'INVALID_PARAMETER', message: "Unknown field 'everywhere'; remove it." } });
    expect((await me(token)).status).toBe(200);

    expect((await logout(token, {})).status).toBe(204);
    expectUnauthorized(await me(token), revoked);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await call(url('/openapi.json'));
    expect(Object.keys(doc.body.paths['/users/v1/logout'].post.responses).sort()).toEqual(['204', '400', '401']);
  });
});

describe('the deny-list on a real database with a fake clock', () => {
  let dir: string;
  let db: Db;
  let clock = 1_700_000_000_000;
  const ttl = 60;
  const bearer = (token: string) => `Bearer ${token}`;
  const revokedRows = () => db.prepare('SELECT COUNT(*) FROM accounts_revoked_tokens').pluck().get() as number;
  const open = () => createAccounts(openSqliteAccountsStore(db), { openSignup: true, tokenTtlSeconds: ttl, now: () => clock });

  beforeAll(() => {
    dir = tempDir('txdesk-logout-db-');
    db = openDatabase(join(dir, 'service.sqlite'));
  });

  afterAll(() => {
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an expired token with the expiry message, and prunes rows once their token has expired', async () => {
    const accounts = await open();
    const early = (await accounts.signup({ email: 'linus@example.com', password, name: 'Linus', organization: '' })).jwtToken;
    await accounts.logout(bearer(early));
    expect(revokedRows()).toBe(1);

    clock += (ttl + 1) * 1000;
    await expect(accounts.logout(bearer(early))).rejects.toThrow(/has expired; log in again/);
    const late = (await accounts.login({ email: 'linus@example.com', password })).jwtToken;
    await accounts.logout(bearer(late));
    // The first row went with the second logout: its token is refused as expired anyway.
    expect(revokedRows()).toBe(1);
    await expect(accounts.authenticate(bearer(late))).rejects.toThrow(revoked);
  });

  it('migrates a database from before logout, whose tokens (without jti) still work and can be revoked', async () => {
    // Back to accounts schema version 1, as a service from before this change left it (and so before API secrets).
    db.exec(
      "DROP TABLE accounts_api_secrets; DROP TABLE accounts_revoked_tokens; UPDATE schema_migrations SET version = 1 WHERE module = 'accounts'",
    );
    const accounts = await open();
    expect(db.prepare("SELECT version FROM schema_migrations WHERE module = 'accounts'").pluck().get()).toBe(3);

    const user = await accounts.authenticate(bearer((await accounts.login({ email: 'linus@example.com', password })).jwtToken));
    const secret = db.prepare("SELECT value FROM accounts_secrets WHERE name = 'jwt-hs256'").pluck().get() as Buffer;
    const old = issueToken(secret, String(user.id), 0, Math.floor(clock / 1000), ttl);
    expect((await accounts.authenticate(bearer(old))).email).toBe('linus@example.com');
    await accounts.logout(bearer(old));
    await expect(accounts.authenticate(bearer(old))).rejects.toThrow(revoked);
  });
});
