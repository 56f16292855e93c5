// The account commands end to end: the real `txdesk` binary against real `txdesk service` processes (`--dev`, and one on
// `--node` of that dev chain with sign-up closed), passwords typed at a real pseudo-terminal and piped on stdin, the
// token in a real Secret Service or the 0600 file. Last, SIGTERM stops both services with no anvil left behind.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, ptyAvailable, runCli, runCliInPty, startCliDaemon, type CliDaemon } from '../support/cli/cli-binary.js';
import { commandLine, descendants, isAlive } from '../support/cli/cli-process-tree.js';
import {
  keychainWorks,
  readKeychain,
  secretServiceInstalled,
  startSecretService,
  type SecretService,
} from '../support/cli/cli-secret-service.js';
import { keychainSuites, ptySuites } from '../support/required-tools.js';
import { waitFor } from '../support/poll.js';

/** What account:describe says without a session, naming the endpoint it asked (TXDESK_ENDPOINT in these tests). */
const notLoggedIn = (endpoint: string) => `Not logged in to ${endpoint} (TXDESK_ENDPOINT): run \`txdesk login\` first.\n`;
const noKeychainBus = 'unix:path=/nonexistent/txdesk-test-bus';
/** Whether the terminal and keychain tests run: a missing `script` or Secret Service fails the file unless skipped on purpose. */
const ptyTests = ptySuites(ptyAvailable);
keychainSuites(secretServiceInstalled());

let open: CliDaemon;
let closed: CliDaemon;
let secrets: SecretService | null = null;
let keychainReady = false;
const temps: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** A fresh CLI environment: its own config dir, the given endpoint, and the private keychain or none at all. */
function cliEnv(opts: { endpoint?: string; keychain?: boolean } = {}) {
  const configDir = join(tempDir('txdesk-cli-home-'), 'config');
  const env: NodeJS.ProcessEnv = { ...process.env, TXDESK_CONFIG_DIR: configDir, TXDESK_LOG: 'silent' };
  delete env.TXDESK_ENDPOINT;
  delete env.TXDESK_KEYCHAIN;
  if (opts.endpoint) env.TXDESK_ENDPOINT = opts.endpoint;
  env.DBUS_SESSION_BUS_ADDRESS = opts.keychain && secrets ? secrets.address : noKeychainBus;
  return { env, configDir, sessionFile: join(configDir, 'session.json') };
}

let counter = 0;
const newEmail = () => `user${process.pid}-${++counter}@example.com`;
const password = 'correct horse battery';

async function signupScripted(email: string, env: NodeJS.ProcessEnv) {
  return runCli(['signup', '--name', 'Grace Hopper', '--organization', 'Navy', '--email', email, '--password-stdin'], {
    env,
    input: `${password}\n`,
  });
}

function freePortThatIsClosed(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  ensureCliBuilt();
  const baseEnv = { ...process.env, TXDESK_LOG: 'silent' };
  [open, secrets] = await Promise.all([
    startCliDaemon(['service', '--dev', '--port', '0', '--json'], { env: baseEnv }),
    startSecretService(),
  ]);
  // The second service reads the same node through its WebSocket URL (anvil serves both on one port).
  closed = await startCliDaemon(
    [
      'service',
      '--node',
      String(open.ready.nodeUrl).replace(/^http/, 'ws'),
      '--port',
      '0',
      '--json',
      '--data-dir',
      tempDir('txdesk-cli-svc-closed-'),
    ],
    { env: baseEnv },
  );
  // startSecretService pointed this process at its bus, so direct keychain reads see what the CLI writes.
  keychainReady = secrets !== null && keychainWorks();
}, 300_000); // a build, a dev chain and two services on a busy 2-core machine

afterAll(async () => {
  await Promise.all([open?.stop('SIGKILL'), closed?.stop('SIGKILL')]); // no-ops when the last test stopped them
  await secrets?.stop();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('txdesk service --json', () => {
  it('prints exactly one JSON ready line with the service URL (and the dev clientId with --dev)', () => {
    for (const service of [open, closed]) {
      expect(service.ready).toMatchObject({ ready: true, chainId: 31337, platform: 'ethereum', network: 'local' });
      expect(service.ready.serviceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(service.stdoutLines()).toHaveLength(1);
    }
    expect(closed.ready.nodeUrl).toBe(String(open.ready.nodeUrl).replace(/^http/, 'ws'));
    expect(open.ready.clientId).toMatch(/^[0-9a-f]{32}$/);
    expect(closed.ready.clientId).toBeUndefined();
  });

  it('indexes to the head through a ws:// node URL as through http://', async () => {
    const health = async (s: typeof open) =>
      (await (await fetch(`${String(s.ready.serviceUrl)}/health`)).json()) as { indexedBlock: number; headBlock: number };
    const target = (await health(open)).indexedBlock;
    expect(target).toBeGreaterThan(0); // the head moves with the clock (1 s blocks): any block past genesis
    const seen = await waitFor(
      `the ws:// service indexing as far as the http:// one (block ${target})`,
      async () => {
        const indexed = (await health(closed)).indexedBlock;
        return indexed >= target ? indexed : undefined;
      },
      { timeoutMs: 60_000, everyMs: 200 },
    );
    expect(seen).toBeGreaterThanOrEqual(target);
  });
});

describe('the account cycle', () => {
  it('a Secret Service runs for the keychain test wherever gnome-keyring and dbus-daemon are installed', () => {
    // So a broken keychain set-up fails here instead of passing quietly through the file fallback.
    expect(keychainReady).toBe(secretServiceInstalled());
  });

  it.skipIf(!ptyTests)('at a real terminal, with the token in the Secret Service keychain (where one runs)', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env, sessionFile } = cliEnv({ endpoint, keychain: keychainReady });
    // Without a Secret Service the cycle still runs; the token then sits in the file (tested in depth below).
    const tokenInKeychain = () => (keychainReady ? readKeychain('txdesk', endpoint) : null);
    const email = newEmail();

    // A typo fixed with Backspace, and a second password entry: both must be invisible.
    const signup = await runCliInPty(
      ['signup'],
      [
        { waitFor: 'Name: ', send: 'Ada Lovelace\r' },
        { waitFor: 'Organization: ', send: 'Analytical Engines\r' },
        { waitFor: 'Email: ', send: `${email}\r` },
        { waitFor: 'Password: ', send: `${password}Z\x7f\r` },
        { waitFor: 'Repeat password: ', send: `${password}\r` },
      ],
      { env },
    );
    expect(signup.output).toContain(`Signed up and logged in to ${endpoint} as ${email}.`);
    expect(signup.output).toContain('Name: Ada Lovelace'); // visible answers are echoed, so an echo would show here...
    expect(signup.output).not.toContain('correct horse'); // ...the password is not, not even partly
    expect(signup.output).not.toContain('Z');
    expect(signup.code).toBe(0);
    const clientId = /ClientId: (\S+)/.exec(signup.output)?.[1];
    expect(clientId).toMatch(/^[0-9a-f]{32}$/);

    if (keychainReady) expect(tokenInKeychain()?.split('.')).toHaveLength(3);
    expect((await runCli(['logout'], { env })).stdout).toBe(`Logged out of ${endpoint}.\n`);
    expect(tokenInKeychain()).toBeNull();

    const login = await runCliInPty(
      ['login'],
      [
        { waitFor: 'Email: ', send: `${email}\r` },
        { waitFor: 'Password: ', send: `${password}\r` },
      ],
      { env },
    );
    expect(login.output).toContain(`Logged in to ${endpoint} as ${email}.`);
    expect(login.output).not.toContain(password);
    expect(login.code).toBe(0);

    if (keychainReady) {
      // Really in the keychain (service "txdesk", account = the endpoint's origin), and not in a file.
      expect(login.output).not.toContain('Warning');
      expect(tokenInKeychain()?.split('.')).toHaveLength(3);
      expect(existsSync(sessionFile)).toBe(false);
    } else {
      expect(existsSync(sessionFile)).toBe(true);
    }

    const describeAccount = await runCli(['account:describe'], { env });
    expect(describeAccount.stdout).toBe(`Email: ${email}\nName: Ada Lovelace\nOrganization: Analytical Engines\nClientId: ${clientId}\n`);
    expect(describeAccount.code).toBe(0);

    const asJson = await runCli(['account:describe', '--json'], { env });
    expect(asJson.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(asJson.stdout)).toEqual({ email, name: 'Ada Lovelace', organization: 'Analytical Engines', clientId });

    const logout = await runCli(['logout'], { env });
    expect(logout.stdout).toBe(`Logged out of ${endpoint}.\n`);
    expect(tokenInKeychain()).toBeNull();
    expect(existsSync(sessionFile)).toBe(false);
    const after = await runCli(['account:describe'], { env });
    expect(after.stderr).toBe(notLoggedIn(endpoint));
    expect(after.code).toBe(1);
  });

  it('scripted with --password-stdin and no keychain: a 0600 file, a one-line warning, removed by logout', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env, sessionFile, configDir } = cliEnv({ endpoint });
    const email = newEmail();

    const signup = await signupScripted(email, env);
    expect(signup.stdout).toContain(`Signed up and logged in to ${endpoint} as ${email}.\nClientId: `);
    expect(signup.stderr).toMatch(
      /^Warning: no OS keychain available \(.+\); the session token is saved in .+session\.json, readable only by you\.\n$/,
    );
    expect(signup.code).toBe(0);
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o077).toBe(0);

    expect((await runCli(['logout'], { env })).code).toBe(0);
    expect(existsSync(sessionFile)).toBe(false);

    const login = await runCli(['login', '--email', email, '--password-stdin'], { env, input: `${password}\n` });
    expect(login.stdout).toBe(`Logged in to ${endpoint} as ${email}.\n`);
    expect(login.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(login.code).toBe(0);
    const saved = JSON.parse(readFileSync(sessionFile, 'utf8')) as { sessions: Record<string, { token: string }> };
    expect(Object.keys(saved.sessions)).toEqual([endpoint]);
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600);

    const describeAccount = await runCli(['account:describe'], { env });
    expect(describeAccount.stdout).toMatch(
      new RegExp(`^Email: ${email.replace(/\./g, '\\.')}\nName: Grace Hopper\nOrganization: Navy\nClientId: [0-9a-f]{32}\n$`),
    );
    expect(describeAccount.stderr).toBe('');

    expect((await runCli(['logout'], { env })).stdout).toBe(`Logged out of ${endpoint}.\n`);
    expect(existsSync(sessionFile)).toBe(false);
    expect((await runCli(['logout'], { env })).stdout).toBe(`Not logged in to ${endpoint}; nothing to remove.\n`);
    expect((await runCli(['account:describe'], { env })).stderr).toBe(notLoggedIn(endpoint));
  });

  it('config:set endpoint persists the endpoint the account commands use', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env, configDir } = cliEnv();
    const before = await runCli(['config:get', 'endpoint'], { env });
    expect(before.stdout).toBe('http://127.0.0.1:4000\n');

    const set = await runCli(['config:set', 'endpoint', `${endpoint}/`], { env });
    expect(set.stdout).toBe(`Endpoint set to ${endpoint} (saved in ${join(configDir, 'config.json')}).\n`);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'))).toEqual({ endpoint });
    expect((await runCli(['config:get'], { env })).stdout).toBe(`${endpoint}\n`);

    const email = newEmail();
    expect((await signupScripted(email, env)).code).toBe(0);
    expect((await runCli(['account:describe'], { env })).stdout).toContain(`Email: ${email}\n`);
    expect((await runCli(['logout'], { env })).code).toBe(0);
  });
});

// Each case has a config folder and e-mail of its own and changes nothing the others read: they run at once.
describe.concurrent('errors: one clear line and a non-zero exit code', () => {
  const oneLine = (text: string) => expect(text.trimEnd().split('\n')).toHaveLength(1);

  it('not logged in', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env } = cliEnv({ endpoint });
    const r = await runCli(['account:describe'], { env });
    expect(r.stderr).toBe(notLoggedIn(endpoint));
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
  });

  it('wrong password and unknown e-mail get the same answer', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env } = cliEnv({ endpoint });
    const email = newEmail();
    expect((await signupScripted(email, env)).code).toBe(0);
    for (const who of [email, newEmail()]) {
      const r = await runCli(['login', '--email', who, '--password-stdin'], { env, input: 'not the password\n' });
      expect(r.stderr).toBe('Wrong e-mail or password: check both and run `txdesk login` again.\n');
      expect(r.code).toBe(1);
    }
  });

  it('an expired session says to log in again', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env, configDir, sessionFile } = cliEnv({ endpoint });
    const claims = Buffer.from(JSON.stringify({ sub: '1', gen: 0, iat: 1, exp: 2 })).toString('base64url');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(sessionFile, JSON.stringify({ sessions: { [endpoint]: { token: `e30.${claims}.c2ln` } } }), { mode: 0o600 });
    const r = await runCli(['account:describe'], { env });
    expect(r.stderr).toBe('Your session has expired: run `txdesk login` again.\n');
    expect(r.code).toBe(1);
  });

  it('a session the service no longer accepts says to log in again', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env, configDir, sessionFile } = cliEnv({ endpoint });
    mkdirSync(configDir, { recursive: true });
    writeFileSync(sessionFile, JSON.stringify({ sessions: { [endpoint]: { token: 'forged.token.value' } } }), { mode: 0o600 });
    const r = await runCli(['account:describe'], { env });
    expect(r.stderr).toBe('Your session is no longer valid: run `txdesk login` again.\n');
    expect(r.code).toBe(1);
  });

  it('an unreachable service names the URL and what to do', async () => {
    const endpoint = `http://127.0.0.1:${await freePortThatIsClosed()}`;
    const { env } = cliEnv({ endpoint });
    const r = await runCli(['login', '--email', 'a@example.com', '--password-stdin'], { env, input: 'whatever1\n' });
    oneLine(r.stderr);
    expect(r.stderr).toContain(`Cannot reach the txdesk service at ${endpoint} (ECONNREFUSED)`);
    expect(r.stderr).toContain('`txdesk service --dev`');
    expect(r.stderr).toContain('`txdesk config:set endpoint <url>`');
    expect(r.code).toBe(3);

    // At a terminal the check comes before the prompts: nobody types a password for a service that is not there.
    if (!ptyTests) return;
    const atTerminal = await runCliInPty(['login'], [], { env });
    expect(atTerminal.output).not.toContain('Email:');
    expect(atTerminal.output).toContain(`Cannot reach the txdesk service at ${endpoint}`);
    expect(atTerminal.code).toBe(3);
  });

  it('a bad endpoint URL is refused, from config:set and from TXDESK_ENDPOINT', async () => {
    const { env, configDir } = cliEnv();
    const r = await runCli(['config:set', 'endpoint', 'localhost:4000'], { env });
    expect(r.stderr).toBe('Invalid endpoint URL "localhost:4000": give an http:// or https:// URL such as http://127.0.0.1:4000.\n');
    expect(r.code).toBe(2);
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);

    const unknown = await runCli(['config:set', 'colour', 'blue'], { env });
    expect(unknown.stderr).toBe('Unknown setting "colour": the only setting is endpoint.\n');
    expect(unknown.code).toBe(2);

    const fromEnv = await runCli(['account:describe'], { env: { ...env, TXDESK_ENDPOINT: 'ftp://x' } });
    expect(fromEnv.stderr).toBe(
      'TXDESK_ENDPOINT "ftp://x" is not a valid service URL: give an http:// or https:// URL such as http://127.0.0.1:4000.\n',
    );
    expect(fromEnv.code).toBe(2);
  });

  it('TXDESK_KEYCHAIN=off keeps the token out of the keychain; another value is refused', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env, sessionFile } = cliEnv({ endpoint, keychain: keychainReady });
    const signup = await signupScripted(newEmail(), { ...env, TXDESK_KEYCHAIN: 'off' });
    expect(signup.stderr).toContain('(turned off by TXDESK_KEYCHAIN=off)');
    expect(signup.code).toBe(0);
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600);
    if (keychainReady) expect(readKeychain('txdesk', endpoint)).toBeNull();

    const bad = await runCli(['account:describe'], { env: { ...env, TXDESK_KEYCHAIN: 'maybe' } });
    expect(bad.stderr).toBe('TXDESK_KEYCHAIN "maybe" is not valid: set it to off (only the session file) or on, or leave it unset.\n');
    expect(bad.code).toBe(2);
    expect((await runCli(['logout'], { env: { ...env, TXDESK_KEYCHAIN: 'off' } })).code).toBe(0);
  });

  it('closed sign-up', async () => {
    const endpoint = String(closed.ready.serviceUrl);
    const { env } = cliEnv({ endpoint });
    const r = await signupScripted(newEmail(), env);
    expect(r.stderr).toBe(
      `Sign-up is closed on ${endpoint}: ask whoever runs that service for an account, or run your own with \`txdesk service --dev\`.\n`,
    );
    expect(r.code).toBe(1);
  });

  it('an e-mail that already has an account, and a password the service refuses', async () => {
    const endpoint = String(open.ready.serviceUrl);
    const { env } = cliEnv({ endpoint });
    const email = newEmail();
    expect((await signupScripted(email, env)).code).toBe(0);
    const again = await signupScripted(email, env);
    expect(again.stderr).toBe(`An account with that e-mail already exists on ${endpoint}: run \`txdesk login\` instead.\n`);
    expect(again.code).toBe(1);

    const weak = await runCli(['signup', '--name', 'N', '--organization', 'O', '--email', newEmail(), '--password-stdin'], {
      env,
      input: 'short\n',
    });
    oneLine(weak.stderr);
    expect(weak.stderr).toMatch(/^The service refused: .*password.*8 characters/);
    expect(weak.code).toBe(1);
  });

  it('without a terminal, login needs --email and --password-stdin', async () => {
    const { env } = cliEnv({ endpoint: String(open.ready.serviceUrl) });
    const r = await runCli(['login'], { env });
    expect(r.stderr).toBe(
      'Without a terminal to prompt on, `txdesk login` needs --email and --password-stdin (the password goes on stdin).\n',
    );
    expect(r.code).toBe(2);
    const empty = await runCli(['login', '--email', 'a@example.com', '--password-stdin'], { env, input: '' });
    expect(empty.stderr).toBe('The password on stdin is empty: pipe the password into --password-stdin.\n');
    expect(empty.code).toBe(2);
  });

  it.skipIf(!ptyTests)('Ctrl-C at the password prompt cancels, and mismatched sign-up passwords are refused', async () => {
    const { env } = cliEnv({ endpoint: String(open.ready.serviceUrl) });
    const cancelled = await runCliInPty(['login', '--email', 'a@example.com'], [{ waitFor: 'Password: ', send: 'secret\x03' }], { env });
    expect(cancelled.output).toContain('Cancelled.');
    expect(cancelled.output).not.toContain('secret');
    expect(cancelled.code).toBe(130);

    const mismatch = await runCliInPty(
      ['signup', '--name', 'N', '--organization', 'O', '--email', newEmail()],
      [
        { waitFor: 'Password: ', send: 'first-password\r' },
        { waitFor: 'Repeat password: ', send: 'second-password\r' },
      ],
      { env },
    );
    expect(mismatch.output).toContain('The passwords do not match: run `txdesk signup` again.');
    expect(mismatch.output).not.toContain('password\r');
    expect(mismatch.code).toBe(1);
  });
});

describe('stopping the services', () => {
  it.skipIf(process.platform !== 'linux')('SIGTERM and SIGINT stop them, exit 0, and no anvil is left behind', async () => {
    const tree = descendants(open.child.pid!);
    expect(tree.some((pid) => /anvil/.test(commandLine(pid)))).toBe(true);
    const [devExit, nodeExit] = await Promise.all([open.stop('SIGTERM'), closed.stop('SIGINT')]);
    expect(devExit).toEqual({ code: 0, signal: null });
    expect(nodeExit).toEqual({ code: 0, signal: null });
    await waitFor('the dev service processes to end', () => tree.every((pid) => !isAlive(pid)), { timeoutMs: 20_000 });
  });
});
