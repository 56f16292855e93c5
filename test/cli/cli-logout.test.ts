// `txdesk logout` end to end: the real binary against a real service (bare anvil, SQLite in temp dirs) revokes the token
// on the service and removes it from the Secret Service keychain (where one runs) or the 0600 file; with the service
// down it still removes it and says in one line that the token stays valid until it expires. Also the accounts
// client's logout outcomes against canned HTTP answers.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsClient } from '../../src/cli/accounts-client.js';
import { tokenExpiry } from '../../src/cli/session-store.js';
import { startAnvil, type RunningAnvil } from '../../src/devchain/devchain.js';
import { silentLogger } from '../../src/lib/log.js';
import { startService, type RunningService } from '../../src/service/index.js';
import { ensureCliBuilt, runCli } from '../support/cli/cli-binary.js';
import { keychainWorks, readKeychain, startSecretService, type SecretService } from '../support/cli/cli-secret-service.js';
import { keychainSuites } from '../support/required-tools.js';
import { call } from '../support/service/service-harness.js';

/** What account:describe says without a session, naming the endpoint it asked (TXDESK_ENDPOINT in these tests). */
const notLoggedIn = (endpoint: string) => `Not logged in to ${endpoint} (TXDESK_ENDPOINT): run \`txdesk login\` first.\n`;
const noKeychainBus = 'unix:path=/nonexistent/txdesk-test-bus';
const password = 'correct horse battery';

let anvil: RunningAnvil;
let secrets: SecretService | null = null;
let keychainReady = false;
const services: RunningService[] = [];
const temps: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

async function startTestService(dataDir: string): Promise<RunningService> {
  const service = await startService({ nodeUrl: anvil.url, dataDir, port: 0, openSignup: true, log: silentLogger });
  services.push(service);
  return service;
}

/** A fresh CLI environment for `endpoint`: its own config dir, and the private keychain or none at all. */
function cliEnv(endpoint: string, keychain: boolean) {
  const configDir = join(tempDir('txdesk-logout-home-'), 'config');
  const env: NodeJS.ProcessEnv = { ...process.env, TXDESK_CONFIG_DIR: configDir, TXDESK_ENDPOINT: endpoint, TXDESK_LOG: 'silent' };
  delete env.TXDESK_KEYCHAIN;
  env.DBUS_SESSION_BUS_ADDRESS = keychain && secrets ? secrets.address : noKeychainBus;
  const sessionFile = join(configDir, 'session.json');
  const savedToken = (): string | null => {
    if (keychain) return readKeychain('txdesk', endpoint);
    if (!existsSync(sessionFile)) return null;
    return (
      (JSON.parse(readFileSync(sessionFile, 'utf8')) as { sessions: Record<string, { token: string }> }).sessions[endpoint]?.token ?? null
    );
  };
  return { env, configDir, sessionFile, savedToken };
}

let counter = 0;
const newEmail = () => `logout${process.pid}-${++counter}@example.com`;

async function signup(email: string, env: NodeJS.ProcessEnv): Promise<void> {
  const r = await runCli(['signup', '--name', 'Ada', '--organization', 'Engines', '--email', email, '--password-stdin'], {
    env,
    input: `${password}\n`,
  });
  expect(r.code).toBe(0);
}

beforeAll(async () => {
  ensureCliBuilt();
  [anvil, secrets] = await Promise.all([startAnvil({ blockTimeSeconds: 2 }), startSecretService()]);
  // startSecretService pointed this process at its bus, so direct keychain reads see what the CLI writes.
  keychainReady = secrets !== null && keychainWorks();
}, 300_000);

afterAll(async () => {
  for (const service of services) await service.stop();
  await anvil?.stop();
  await secrets?.stop();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('txdesk logout against a running service', () => {
  it('revokes the token on the service and removes it here; account:describe then says to log in', async () => {
    const service = await startTestService(tempDir('txdesk-logout-svc-'));
    const endpoint = service.url;
    const { env, configDir, sessionFile, savedToken } = cliEnv(endpoint, keychainReady);
    const email = newEmail();
    await signup(email, env);
    const token = savedToken();
    expect(token?.split('.')).toHaveLength(3);
    const elsewhere = await call(`${endpoint}/users/v1/login`, { method: 'POST', body: { email, password } });
    const other = elsewhere.body.jwtToken as string;

    expect((await runCli(['account:describe'], { env })).stdout).toContain(`Email: ${email}\n`);
    expect((await call(`${endpoint}/users/v1/me`, { token: token! })).status).toBe(200);

    const logout = await runCli(['logout'], { env });
    expect(logout).toMatchObject({ code: 0, stdout: `Logged out of ${endpoint}.\n`, stderr: '' });
    expect(savedToken()).toBeNull();
    expect(existsSync(sessionFile)).toBe(false);

    const revoked = await call(`${endpoint}/users/v1/me`, { token: token! });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toMatch(/revoked by a logout; log in again with `txdesk login`/);
    // The session logged in elsewhere is not this machine's to end.
    expect((await call(`${endpoint}/users/v1/me`, { token: other })).body.email).toBe(email);

    const describeAfter = await runCli(['account:describe'], { env });
    expect(describeAfter).toMatchObject({ code: 1, stderr: notLoggedIn(endpoint) });

    // A copy of the revoked token put back by hand is refused by the service, and logging out with it just removes it.
    mkdirSync(configDir, { recursive: true });
    writeFileSync(sessionFile, JSON.stringify({ sessions: { [endpoint]: { token } } }), { mode: 0o600 });
    const withCopy = await runCli(['account:describe'], { env });
    expect(withCopy).toMatchObject({ code: 1, stderr: 'Your session is no longer valid: run `txdesk login` again.\n' });
    expect(await runCli(['logout'], { env })).toMatchObject({ code: 0, stdout: `Logged out of ${endpoint}.\n`, stderr: '' });
    expect(existsSync(sessionFile)).toBe(false);
  });
});

describe('txdesk logout with the service down', () => {
  it.for(['keychain', 'file'] as const)(
    'removes the session from the %s and says in one line the token stays valid',
    async (where, ctx) => {
      if (where === 'keychain' && !keychainSuites(keychainReady)) ctx.skip();
      const dataDir = tempDir('txdesk-logout-svc-');
      let service = await startTestService(dataDir);
      const endpoint = service.url;
      const { env, sessionFile, savedToken } = cliEnv(endpoint, where === 'keychain');
      const email = newEmail();
      await signup(email, env);
      const token = savedToken()!;
      expect(existsSync(sessionFile)).toBe(where === 'file');
      const exp = tokenExpiry(token)!;

      await service.stop();
      const logout = await runCli(['logout'], { env });
      expect(logout.code).toBe(0);
      expect(logout.stdout).toBe(`Logged out of ${endpoint}.\n`);
      const expiresAt = new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      expect(logout.stderr).toBe(
        `Warning: the session token could not be revoked on ${endpoint} (cannot reach it: ECONNREFUSED); it stays valid ` +
          `there until it expires at ${expiresAt}.\n`,
      );
      expect(savedToken()).toBeNull();
      expect(existsSync(sessionFile)).toBe(false);
      expect(await runCli(['account:describe'], { env })).toMatchObject({ code: 1, stderr: notLoggedIn(endpoint) });

      // As the warning says: the service never heard of the logout, so the token works once it is back.
      service = await startTestService(dataDir);
      expect((await call(`${service.url}/users/v1/me`, { token })).body.email).toBe(email);
      await service.stop();
    },
  );
});

describe('the accounts client logout', () => {
  let server: Server;
  let base: string;
  let next = { status: 204, body: '' };
  let seen: { method?: string; url?: string; headers?: IncomingHttpHeaders } = {};

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen = { method: req.method, url: req.url, headers: req.headers };
      res.writeHead(next.status, next.body ? { 'content-type': 'application/json' } : {});
      res.end(next.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const envelope = (code: string, message: string) => JSON.stringify({ error: { code, message } });

  it.each([
    [204, '', { kind: 'revoked' }],
    [200, '{}', { kind: 'revoked' }],
    [401, envelope('UNAUTHORIZED', 'The session token has expired; log in again.'), { kind: 'invalid' }],
    [
      404,
      envelope('NOT_FOUND', 'There is no endpoint POST /users/v1/logout; see /openapi.json for the API.'),
      { kind: 'kept', why: 'HTTP 404: There is no endpoint POST /users/v1/logout; see /openapi.json for the API' },
    ],
    [500, '<html>oops</html>', { kind: 'kept', why: 'HTTP 500' }],
    [429, envelope('RATE_LIMITED', 'Too many requests.'), { kind: 'kept', why: 'HTTP 429: Too many requests' }],
  ] as const)('HTTP %i %s -> %j', async (status, body, outcome) => {
    next = { status, body };
    expect(await createAccountsClient(base).logout('a.b.c')).toEqual(outcome);
    expect(seen).toMatchObject({ method: 'POST', url: '/users/v1/logout', headers: { authorization: 'Bearer a.b.c' } });
  });

  it('reports an unreachable service instead of throwing', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await createAccountsClient(`http://127.0.0.1:${port}`).logout('a.b.c')).toEqual({
      kind: 'kept',
      why: 'cannot reach it: ECONNREFUSED',
    });
  });
});
