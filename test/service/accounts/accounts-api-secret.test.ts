// The API secret on a real service (bare anvil, SQLite in a temp dir): made once with a session, shown once, replaced
// only when asked, revoked; what webhook management accepts (the API secret or a session token, never the clientId
// alone) and the one sentence for each refusal; it outlives a password change, a logout and a restart. And a
// database from before API secrets, migrated: its accounts and sessions keep working.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { createAccounts } from '../../../src/service/accounts/accounts.js';
import { openSqliteAccountsStore } from '../../../src/service/accounts/sqlite/accounts-store-sqlite.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { call, tempDir, type Answer } from '../../support/service/service-harness.js';

const password = 'correct horse battery';
const needsSecret =
  'Managing webhooks needs your account\'s API secret, not only the clientId: send "Authorization: Bearer <API secret>" ' +
  '(make one with `txdesk account:api-secret`), or use the txdesk command while logged in.';
const notValid =
  'This API secret is not valid (it was rotated or revoked, or is mistyped): send the current one, or make a new one with ' +
  '`txdesk account:api-secret --rotate`.';

function expectRefusal(answer: Answer, status: number, code: string, message: string) {
  expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { error: { code, message } } });
}

describe('API secrets and who may manage webhooks', () => {
  let anvil: RunningAnvil;
  let service: RunningService;
  let dataDir: string;
  const start = () =>
    startService({ nodeUrl: anvil.url, dataDir, port: 0, openSignup: true, allowPrivateWebhooks: true, log: silentLogger });

  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeSeconds: 2 });
    dataDir = tempDir('txdesk-api-secret-test-');
    service = await start();
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await anvil?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const url = (path: string) => `${service.url}${path}`;
  const signup = async (email: string) => {
    const answer = await call(url('/users/v1/signup'), { method: 'POST', body: { email, password, name: 'Ada' } });
    expect(answer.status).toBe(201);
    return answer.body as { clientId: string; jwtToken: string };
  };
  const makeSecret = (token?: string, body?: unknown) =>
    call(url('/users/v1/api-secret'), {
      method: 'POST',
      ...(token !== undefined ? { token } : {}),
      ...(body !== undefined ? { body } : {}),
    });
  const hooks = (path = '', init: Parameters<typeof call>[1] = {}) => call(url(`/tracker/v1/webhooks${path}`), init);

  it('is made once with a session, shown once, replaced only on request, and revoked', async () => {
    const { jwtToken } = await signup('ada@example.com');
    expectRefusal(
      await makeSecret(),
      401,
      'UNAUTHORIZED',
      'This endpoint needs a session token: send "Authorization: Bearer <jwtToken>" with the token from POST /users/v1/login.',
    );
    const made = await makeSecret(jwtToken);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ apiSecret: expect.stringMatching(/^txdesk_sk_[A-Za-z0-9_-]{43}$/), createdAt: expect.any(String) });
    const first = made.body.apiSecret as string;
    expect((await hooks('', { token: first })).body).toEqual({ data: [] });

    // A second one would silently break the program using the first: it takes rotate, said out loud.
    const twice = await makeSecret(jwtToken, {});
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toMatch(
      /^This account already has an API secret \(made \S+Z\), which is shown only when made: send \{"rotate":true\} to replace it/,
    );
    expect((await makeSecret(jwtToken, { rotate: 'yes' })).status).toBe(400);
    expect((await makeSecret(jwtToken, { rotat: true })).status).toBe(400);
    // Only a login makes or ends API secrets, never the API secret itself.
    expectRefusal(
      await makeSecret(first, { rotate: true }),
      401,
      'UNAUTHORIZED',
      'This endpoint needs a session token, not the API secret: log in with `txdesk login` (or POST /users/v1/login) and send its jwtToken.',
    );
    expect((await call(url('/users/v1/me'), { token: first })).status).toBe(401);

    const rotated = await makeSecret(jwtToken, { rotate: true });
    expect(rotated.status).toBe(201);
    const second = rotated.body.apiSecret as string;
    expect(second).not.toBe(first);
    expectRefusal(await hooks('', { token: first }), 401, 'UNAUTHORIZED', notValid);
    expect((await hooks('', { token: second })).status).toBe(200);

    expect((await call(url('/users/v1/api-secret'), { method: 'DELETE', token: jwtToken })).body).toEqual({ revoked: true });
    expect((await call(url('/users/v1/api-secret'), { method: 'DELETE', token: jwtToken })).body).toEqual({ revoked: false });
    expectRefusal(await hooks('', { token: second }), 401, 'UNAUTHORIZED', notValid);
    // Revoked, a new one can be made without rotate.
    expect((await makeSecret(jwtToken)).status).toBe(201);
  });

  it('manages webhooks with the API secret or a session token, never with the clientId alone', async () => {
    const { clientId, jwtToken } = await signup('grace@example.com');
    const other = await signup('linus@example.com');
    const apiSecret = (await makeSecret(jwtToken)).body.apiSecret as string;

    for (const [method, path] of [
      ['GET', ''],
      ['POST', ''],
      ['GET', '/x'],
      ['PATCH', '/x'],
      ['DELETE', '/x'],
      ['POST', '/x/test'],
      ['POST', '/x/replay'],
    ] as const) {
      const body = method === 'POST' || method === 'PATCH' ? { url: 'http://127.0.0.1:9/hook' } : undefined;
      expectRefusal(await hooks(`${path}?clientId=${clientId}`, { method, ...(body ? { body } : {}) }), 401, 'UNAUTHORIZED', needsSecret);
      expectRefusal(await hooks(path, { method, ...(body ? { body } : {}) }), 401, 'UNAUTHORIZED', needsSecret);
    }
    expectRefusal(
      await hooks('', { headers: { authorization: `Basic ${Buffer.from(`${clientId}:`).toString('base64')}` } }),
      401,
      'UNAUTHORIZED',
      needsSecret,
    );
    expectRefusal(await hooks('', { token: clientId }), 401, 'UNAUTHORIZED', needsSecret);
    expectRefusal(await hooks('', { token: 'txdesk_sk_short' }), 401, 'UNAUTHORIZED', notValid);
    expectRefusal(await hooks('', { token: `txdesk_sk_${'A'.repeat(43)}` }), 401, 'UNAUTHORIZED', notValid);
    expectRefusal(await hooks('', { token: 'eyJ.not.atoken' }), 401, 'UNAUTHORIZED', 'The session token is not valid; log in again.');

    const created = await hooks('', { method: 'POST', token: apiSecret, body: { url: 'http://127.0.0.1:9/hook' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // The session token (what the CLI sends) sees and changes the same webhooks.
    expect((await hooks('', { token: jwtToken })).body.data.map((w: { id: string }) => w.id)).toEqual([id]);
    expect((await hooks(`/${id}`, { method: 'PATCH', token: jwtToken, body: { state: 'paused' } })).body.state).toBe('paused');
    // Another account's credential: its own (empty) list, and this webhook is not its to see.
    expect((await hooks('', { token: other.jwtToken })).body).toEqual({ data: [] });
    expect((await hooks(`/${id}`, { token: other.jwtToken })).status).toBe(404);
    expectRefusal(
      await hooks(`/${id}?clientId=${clientId}`, { token: other.jwtToken }),
      403,
      'FORBIDDEN',
      "The clientId in the query is not this credential's account's: leave clientId out (the credential names the account), " +
        'or send the API secret of the account it belongs to.',
    );
    // The clientId beside the credential is accepted when it is the credential's account's (URLs written before).
    expect((await hooks(`/${id}?clientId=${clientId}`, { token: apiSecret })).status).toBe(200);
    expect((await hooks(`?clientId=${clientId}&clientId=${clientId}`, { token: apiSecret })).status).toBe(400);

    // The listing keeps taking the clientId alone.
    expect((await call(url(`/nft/v1/accounts/0x70997970C51812dc3A010C7d01b50e0d17dc79C8/tokens?clientId=${clientId}`))).status).toBe(200);

    // A password change ends the sessions, not the API secret (a program keeps working until the secret is rotated).
    const changed = await call(url('/users/v1/passwd'), {
      method: 'PATCH',
      token: jwtToken,
      body: { password, newPassword: 'another long password' },
    });
    expect(changed.status).toBe(200);
    expect((await hooks('', { token: jwtToken })).status).toBe(401);
    expect((await hooks('', { token: apiSecret })).status).toBe(200);
    expect((await call(url('/users/v1/logout'), { method: 'POST', token: changed.body.jwtToken })).status).toBe(204);
    expect((await hooks('', { token: apiSecret })).status).toBe(200);

    // Kept (as its hash) in the service's database: it works after a restart.
    await service.stop();
    service = await start();
    expect((await hooks(`/${id}`, { token: apiSecret })).body).toMatchObject({ id, state: 'paused' });
    expect((await hooks(`/${id}`, { method: 'DELETE', token: apiSecret })).body).toEqual({ deleted: true });
  });
});

describe('a database from before API secrets', () => {
  it('gains the table on start; its accounts keep their sessions and can make an API secret', async () => {
    const dir = tempDir('txdesk-api-secret-db-');
    const db = openDatabase(join(dir, 'service.sqlite'));
    try {
      const before = await createAccounts(openSqliteAccountsStore(db), { openSignup: true });
      const { jwtToken } = await before.signup({ email: 'ada@example.com', password, name: 'Ada', organization: '' });
      // Back to accounts schema version 2, as a service from before this change left it.
      db.exec("DROP TABLE accounts_api_secrets; UPDATE schema_migrations SET version = 2 WHERE module = 'accounts'");
      const after = await createAccounts(openSqliteAccountsStore(db), { openSignup: true });
      expect(db.prepare("SELECT version FROM schema_migrations WHERE module = 'accounts'").pluck().get()).toBe(3);
      const bearer = `Bearer ${jwtToken}`;
      expect((await after.authenticate(bearer)).email).toBe('ada@example.com');
      const { apiSecret } = await after.issueApiSecret(bearer, {});
      expect(await after.authorizeManagement(`Bearer ${apiSecret}`, 'Managing webhooks')).toMatchObject({ via: 'api-secret' });
      expect(await after.authorizeManagement(bearer, 'Managing webhooks')).toMatchObject({ via: 'session' });
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
