// `txdesk webhook` end to end: the real binary against a real `txdesk service --dev` (private addresses allowed) and a
// service on the same dev chain without --allow-private-webhooks, delivering to a real HTTP receiver on 127.0.0.1.
// The cycle add -> list -> test -> a real delivery (failed, retried, replayed) -> pause -> rotate -> remove, and the
// service's refusals shown as its own sentence. The CLI manages webhooks with its login session alone; a program uses
// the API secret `txdesk account:api-secret` prints, and the clientId alone is refused.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@txdesk/tracker/webhook-signature';
import { ensureCliBuilt, runCli, startCliDaemon, type CliDaemon } from '../support/cli/cli-binary.js';
import { killServiceProcesses, startServiceProcess, type ServiceProcess } from '../support/service/service-process.js';
import { RawTrackerClient, trackerWsUrl } from '../support/service/tracker-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/service/webhook-receiver.js';
import { waitFor } from '../support/poll.js';

let dev: CliDaemon;
let strict: ServiceProcess;
let receiver: WebhookReceiver;
const temps: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

let accounts = 0;
/** A new account on the service at `endpoint`, logged in from a config folder of its own (session file, no keychain). */
async function newAccount(endpoint: string): Promise<{ env: NodeJS.ProcessEnv; clientId: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TXDESK_ENDPOINT: endpoint,
    TXDESK_CONFIG_DIR: join(tempDir('txdesk-webhook-cli-'), 'config'),
    TXDESK_KEYCHAIN: 'off',
    TXDESK_LOG: 'silent',
  };
  const email = `hooks${process.pid}-${++accounts}@example.com`;
  const signup = await runCli(['signup', '--name', 'Hook Owner', '--organization', 'Hooks', '--email', email, '--password-stdin'], {
    env,
    input: 'correct horse battery\n',
  });
  expect(signup.code, signup.stderr).toBe(0);
  const clientId = /ClientId: (\S+)/.exec(signup.stdout)?.[1];
  expect(clientId).toMatch(/^[0-9a-f]{32}$/);
  return { env, clientId: clientId! };
}

const webhook = (args: string[], env: NodeJS.ProcessEnv) => runCli(['webhook', ...args], { env });
/** The account's API secret, made through the CLI as a user would before giving it to a program. */
async function apiSecretOf(env: NodeJS.ProcessEnv): Promise<string> {
  const made = await runCli(['account:api-secret', '--json'], { env });
  expect(made.code, made.stderr).toBe(0);
  return JSON.parse(made.stdout).apiSecret as string;
}
/** The webhook API as a program calls it, with `credential` in the Authorization header (none: the clientId alone). */
const api = (endpoint: string, path: string, credential: string | null, init: { method?: string; body?: unknown; query?: string } = {}) =>
  fetch(`${endpoint}/tracker/v1/webhooks${path}${init.query ?? ''}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
const header = (r: { headers: Record<string, string | string[] | undefined> }, name: string) => r.headers[name] as string | undefined;

beforeAll(async () => {
  ensureCliBuilt();
  [dev, receiver] = await Promise.all([
    startCliDaemon(['service', '--dev', '--port', '0', '--json'], { env: { ...process.env, TXDESK_LOG: 'silent' } }),
    startWebhookReceiver(),
  ]);
  // Without --allow-private-webhooks, as a service offered to strangers runs.
  strict = await startServiceProcess({ nodeUrl: String(dev.ready.nodeUrl), dataDir: tempDir('txdesk-webhook-strict-') });
}, 300_000);

afterAll(async () => {
  killServiceProcesses();
  await dev?.stop(); // SIGTERM: the dev chains stop with it
  await receiver?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('txdesk webhook', () => {
  it('adds (the secret shown once), lists, tests, delivers, replays, pauses, rotates and removes', async () => {
    const endpoint = String(dev.ready.serviceUrl);
    const { env, clientId } = await newAccount(endpoint);
    const apiSecret = await apiSecretOf(env);

    const added = await webhook(['add', receiver.url], env);
    expect(added.code, added.stderr).toBe(0);
    const id = /^Created webhook (\S+) on ethereum\/local: tracker messages to (\S+)\n/.exec(added.stdout)?.[1];
    expect(id).toBeDefined();
    const secret = /^Secret: (whsec_\S+)$/m.exec(added.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(added.stdout).toContain('This secret is shown only this once');
    expect(added.stdout.split(secret!)).toHaveLength(2); // printed exactly once

    const list = await webhook(['list'], env);
    expect(list.code, list.stderr).toBe(0);
    const [head, row, ...rest] = list.stdout.trimEnd().split('\n');
    expect(head).toMatch(/^ID\s+NETWORK\s+STATE\s+PENDING\s+URL\s+DELIVERS\s+LAST ERROR$/);
    expect(row).toMatch(new RegExp(`^${id}\\s+ethereum/local\\s+active\\s+0\\s+${receiver.url}\\s+tracker messages\\s+-$`));
    expect(rest).toEqual([]);
    expect(list.stdout).not.toContain('whsec_');
    const listed = JSON.parse((await webhook(['list', '--json'], env)).stdout);
    expect(listed).toMatchObject([
      { id, platform: 'ethereum', network: 'local', url: receiver.url, trackerMessages: true, addresses: [], state: 'active' },
    ]);
    expect(listed[0]).not.toHaveProperty('secret');

    // A test: a signed `test` message now, outside the outbox.
    const tested = await webhook(['test', id!], env);
    expect(tested.stdout).toMatch(new RegExp(`^Test delivery to webhook ${id}: the receiver answered 200 in \\d+ ms\\.\\n$`));
    expect(tested.code).toBe(0);
    const testRequest = receiver.requests.find((r) => header(r, 'txdesk-webhook') === id)!;
    const testBody = JSON.parse(testRequest.body);
    expect(testBody).toEqual({
      deliveryId: header(testRequest, 'txdesk-delivery'),
      messageId: 'test',
      webhookId: id,
      platform: 'ethereum',
      network: 'local',
      payload: { type: 'test', result: {} },
    });
    expect(header(testRequest, 'txdesk-attempt')).toBe('1');
    expect(verifyWebhook(testRequest.body, header(testRequest, 'txdesk-signature'), secret!)).toEqual({
      ok: true,
      timestamp: expect.any(Number),
    });
    expect(verifyWebhook(testRequest.body, header(testRequest, 'txdesk-signature'), 'whsec_wrong').ok).toBe(false);

    // A receiver that fails: the test says so and exits 1, and a real delivery waits with the error in the list.
    receiver.mode = { kind: 'status', status: 500 };
    const failedTest = await webhook(['test', id!, '--json'], env);
    expect(JSON.parse(failedTest.stdout)).toEqual({
      ok: false,
      status: 500,
      error: 'the receiver answered 500',
      durationMs: expect.any(Number),
    });
    expect(failedTest.stderr).toMatch(
      new RegExp(
        `^The test delivery failed after \\d+ ms: the receiver answered 500; fix that and run \`txdesk webhook test ${id}\` again\\.\\n$`,
      ),
    );
    expect(failedTest.code).toBe(1);

    const trackedFrom = Date.now();
    const hash = `0x${randomBytes(32).toString('hex')}`;
    const ws = await RawTrackerClient.connect(trackerWsUrl(endpoint, clientId));
    // No node knows the hash: with timeout 0 its `pending` falls due at once.
    expect((await ws.request('track_transaction', [hash, 1, 0])).result).toBe(true);
    await ws.close();
    const get = async () => (await (await api(endpoint, `/${id}`, apiSecret)).json()) as { lastError: string | null };
    await waitFor('the failed try of the pending message recorded', async () => (await get()).lastError !== null);
    const failing = await webhook(['list'], env);
    expect(failing.stdout).toMatch(
      new RegExp(`\\n${id}\\s+ethereum/local\\s+active\\s+1\\s+\\S+\\s+tracker messages\\s+the receiver answered 500\\n$`),
    );
    receiver.mode = { kind: 'ok' };
    const delivered = await waitFor('the pending message delivered once the receiver answers', () =>
      receiver.accepted().find((a) => a.body.webhookId === id && a.body.payload.type === 'pending'),
    );
    expect(delivered.body.payload.result).toMatchObject({ transactionHash: hash, confirmation: 1, timeout: 0 });
    expect(Number(header(delivered.req, 'txdesk-attempt'))).toBeGreaterThanOrEqual(2);
    expect(header(delivered.req, 'txdesk-delivery')).toBe(delivered.body.deliveryId);
    expect(header(delivered.req, 'txdesk-replay')).toBeUndefined();
    expect(verifyWebhook(delivered.req.body, header(delivered.req, 'txdesk-signature'), secret!).ok).toBe(true);

    // Replay: the same delivery again, same deliveryId, marked as a replay.
    const replayed = await webhook(['replay', id!, '--from', new Date(trackedFrom - 1000).toISOString()], env);
    expect(replayed.stdout).toBe(`Replaying 1 delivery to webhook ${id}: each keeps its deliveryId and carries Txdesk-Replay: 1.\n`);
    expect(replayed.code).toBe(0);
    const again = await waitFor('the replayed delivery', () =>
      receiver.accepted().find((a) => a.body.deliveryId === delivered.body.deliveryId && header(a.req, 'txdesk-replay') === '1'),
    );
    expect(again.body).toEqual(delivered.body);
    expect(JSON.parse((await webhook(['replay', id!, '--from', String(Date.now() + 60_000), '--json'], env)).stdout)).toEqual({
      replayed: 0,
    });
    const unknownMessage = await webhook(['replay', id!, '--from-message', 'no-such-message'], env);
    expect(unknownMessage.stderr).toBe('No message "no-such-message" is kept for this clientId; sent messages are kept for 7 days.\n');
    expect(unknownMessage.code).toBe(1);

    const paused = await webhook(['update', id!, '--state', 'paused'], env);
    expect(paused.stdout, paused.stderr).toBe(`Updated webhook ${id}: paused, tracker messages to ${receiver.url}\n`);
    expect(JSON.parse((await webhook(['list', '--json'], env)).stdout)[0].state).toBe('paused');

    // Rotation: the new secret once; during the overlap every delivery is signed with both.
    const rotated = await webhook(['update', id!, '--state', 'active', '--rotate-secret', '--overlap', '60', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const after = JSON.parse(rotated.stdout);
    expect(after).toMatchObject({ id, state: 'active', secret: expect.stringMatching(/^whsec_/) });
    expect(after.secret).not.toBe(secret);
    expect(Date.parse(after.previousSecretUntil) - Date.now()).toBeGreaterThan(50_000);
    expect(rotated.stderr).toMatch(/^This secret is shown only this once: .* The old secret also signs deliveries until \S+Z\.\n$/);
    const seen = receiver.requests.length;
    expect((await webhook(['test', id!], env)).code).toBe(0);
    const signedTwice = receiver.requests.slice(seen).find((r) => header(r, 'txdesk-webhook') === id)!;
    expect(header(signedTwice, 'txdesk-signature')).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const key of [after.secret, secret!])
      expect(verifyWebhook(signedTwice.body, header(signedTwice, 'txdesk-signature'), key).ok).toBe(true);

    const removed = await webhook(['remove', id!], env);
    expect(removed.stdout).toBe(`Removed webhook ${id}.\n`);
    expect(removed.code).toBe(0);
    const empty = await webhook(['list'], env);
    expect(empty.stdout).toBe('No webhooks yet: add one with `txdesk webhook add <url>`.\n');
    expect(JSON.parse((await webhook(['list', '--json'], env)).stdout)).toEqual([]);
    const twice = await webhook(['remove', id!], env);
    expect(twice.stderr).toBe(
      `No webhook "${id}" belongs to this clientId; list yours with GET /tracker/v1/webhooks or \`txdesk webhook list\`.\n`,
    );
    expect(twice.code).toBe(1);
  });

  it('adds address activity on another network, with --json', async () => {
    const { env } = await newAccount(String(dev.ready.serviceUrl));
    const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const added = await webhook(
      ['add', receiver.url, '--network', 'ethereum/local-2', '--no-tracker-messages', '--address', address, '--json'],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(added.stdout);
    expect(created).toMatchObject({
      platform: 'ethereum',
      network: 'local-2',
      trackerMessages: false,
      addresses: [address.toLowerCase()],
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(added.stderr).toContain('This secret is shown only this once');
    const list = await webhook(['list'], env);
    expect(list.stdout).toMatch(
      new RegExp(`\\n${created.id}\\s+ethereum/local-2\\s+active\\s+0\\s+\\S+\\s+activity of 1 address\\s+-\\n$`),
    );
    const both = await webhook(['update', created.id, '--tracker-messages', '--clear-addresses', '--json'], env);
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout)).toMatchObject({ trackerMessages: true, addresses: [] });
    const nothing = await webhook(['update', created.id, '--no-tracker-messages'], env);
    expect(nothing.stderr).toBe('This webhook would deliver nothing: keep trackerMessages true, or give addresses to watch.\n');
    expect(nothing.code).toBe(1);
    const elsewhere = await webhook(['add', receiver.url, '--network', 'ethereum/sepolia'], env);
    expect(elsewhere.stderr).toBe(
      'This service does not serve ethereum/sepolia; it serves ethereum/local, ethereum/local-2 (GET /nft/v1/networks lists them).\n',
    );
    expect(elsewhere.code).toBe(1);
  });

  it('shows the limit of 20 webhooks per clientId as the service says it', async () => {
    const { env } = await newAccount(String(dev.ready.serviceUrl));
    const apiSecret = await apiSecretOf(env);
    for (let i = 0; i < 20; i++) {
      const r = await api(String(dev.ready.serviceUrl), '', apiSecret, { method: 'POST', body: { url: `${receiver.url}/${i}` } });
      expect(r.status).toBe(201);
    }
    const over = await webhook(['add', receiver.url], env);
    expect(over.stderr).toBe('A clientId may have at most 20 webhooks; remove one you no longer use (`txdesk webhook remove <id>`).\n');
    expect(over.code).toBe(1);
    expect(JSON.parse((await webhook(['list', '--json'], env)).stdout)).toHaveLength(20);
  });

  it('refuses the clientId alone; the API secret of `txdesk account:api-secret` manages webhooks until rotated or revoked', async () => {
    const endpoint = String(dev.ready.serviceUrl);
    const { env, clientId } = await newAccount(endpoint);
    const added = await webhook(['add', receiver.url, '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const { id } = JSON.parse(added.stdout) as { id: string };

    // Whoever has only the clientId (it is in every listing URL) can neither read nor change the account's webhooks.
    const needed =
      'Managing webhooks needs your account\'s API secret, not only the clientId: send "Authorization: Bearer <API secret>" ' +
      '(make one with `txdesk account:api-secret`), or use the txdesk command while logged in.';
    const attempts: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['POST', '', { url: `${receiver.url}/thief` }],
      ['GET', `/${id}`, undefined],
      ['PATCH', `/${id}`, { url: `${receiver.url}/thief`, rotateSecret: true }],
      ['DELETE', `/${id}`, undefined],
      ['POST', `/${id}/test`, undefined],
      ['POST', `/${id}/replay`, { from: 0 }],
    ];
    for (const [method, path, body] of attempts) {
      const r = await api(endpoint, path, null, { method, body, query: `?clientId=${clientId}` });
      expect({ method, path, status: r.status, body: await r.json() }).toEqual({
        method,
        path,
        status: 401,
        body: { error: { code: 'UNAUTHORIZED', message: needed } },
      });
    }
    // The listing and the tracker keep taking the clientId alone.
    expect((await fetch(`${endpoint}/nft/v1/accounts/0x70997970C51812dc3A010C7d01b50e0d17dc79C8/tokens?clientId=${clientId}`)).status).toBe(
      200,
    );
    const ws = await RawTrackerClient.connect(trackerWsUrl(endpoint, clientId));
    expect((await ws.request('track_transaction', [`0x${randomBytes(32).toString('hex')}`, 1, 60_000])).result).toBe(true);
    await ws.close();

    // The API secret: shown once, then it does what the clientId alone may not, with or without the clientId beside it.
    const made = await runCli(['account:api-secret'], { env });
    expect(made.code, made.stderr).toBe(0);
    const secret = /^API secret: (txdesk_sk_[A-Za-z0-9_-]{43})\n/.exec(made.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(made.stdout).toContain('This API secret is shown only this once');
    const listed = await api(endpoint, '', secret!);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: { id: string }[] }).data.map((w) => w.id)).toEqual([id]);
    expect((await api(endpoint, `/${id}`, secret!, { query: `?clientId=${clientId}` })).status).toBe(200);
    const elsewhere = await api(endpoint, `/${id}`, secret!, { query: `?clientId=${dev.ready.clientId}` });
    expect(elsewhere.status).toBe(403);
    expect(((await elsewhere.json()) as { error: { message: string } }).error.message).toBe(
      "The clientId in the query is not this credential's account's: leave clientId out (the credential names the account), " +
        'or send the API secret of the account it belongs to.',
    );
    // Never in a URL: a secret in the query is an unknown parameter.
    expect((await api(endpoint, '', null, { query: `?apiSecret=${secret}` })).status).toBe(401);
    expect((await api(endpoint, '', secret!, { query: `?apiSecret=${secret}` })).status).toBe(400);

    const again = await runCli(['account:api-secret'], { env });
    expect({ stderr: again.stderr, code: again.code }).toEqual({
      stderr:
        'This account already has an API secret, shown only when it was made: run `txdesk account:api-secret --rotate` to ' +
        'replace it (the old one stops working at once).\n',
      code: 1,
    });
    const rotated = await runCli(['account:api-secret', '--rotate', '--json'], { env });
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = JSON.parse(rotated.stdout) as { apiSecret: string; createdAt: string };
    expect(next.apiSecret).toMatch(/^txdesk_sk_/);
    expect(next.apiSecret).not.toBe(secret);
    expect(rotated.stderr).toContain('This API secret is shown only this once');
    const old = await api(endpoint, '', secret!);
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: { message: string } }).error.message).toBe(
      'This API secret is not valid (it was rotated or revoked, or is mistyped): send the current one, or make a new one ' +
        'with `txdesk account:api-secret --rotate`.',
    );
    const patched = await api(endpoint, `/${id}`, next.apiSecret, { method: 'PATCH', body: { state: 'paused' } });
    expect(((await patched.json()) as { state: string }).state).toBe('paused');
    // The API secret cannot make or end API secrets: that takes a login.
    const bySecret = await fetch(`${endpoint}/users/v1/api-secret`, {
      method: 'POST',
      headers: { authorization: `Bearer ${next.apiSecret}` },
    });
    expect(bySecret.status).toBe(401);

    const revoked = await runCli(['account:api-secret', '--revoke'], { env });
    expect(revoked.stdout).toBe('Revoked the API secret: programs using it can no longer manage webhooks.\n');
    expect((await api(endpoint, '', next.apiSecret)).status).toBe(401);
    expect((await runCli(['account:api-secret', '--revoke', '--json'], { env })).stdout).toBe('{"revoked":false}\n');
    // The CLI goes on with the login session: nothing to paste.
    const list = await webhook(['list', '--json'], env);
    expect(JSON.parse(list.stdout)).toMatchObject([{ id, state: 'paused' }]);
    expect((await webhook(['remove', id], env)).code).toBe(0);

    // `txdesk service --dev` hands out the dev account's API secret beside its clientId: its webhooks need no login.
    expect(dev.ready.apiSecret).toMatch(/^txdesk_sk_/);
    const devHooks = await api(endpoint, '', String(dev.ready.apiSecret), { query: `?clientId=${dev.ready.clientId}` });
    expect(devHooks.status).toBe(200);
  });

  it('refuses URLs the service may not reach, in its own words (no --allow-private-webhooks)', async () => {
    const { env } = await newAccount(strict.serviceUrl);
    const refusals: [string, string][] = [
      [
        'http://10.0.0.1/',
        'Webhook URLs must start with https://; plain http:// is only accepted for a receiver on this machine (localhost, 127.0.0.1, [::1]).',
      ],
      [
        'https://10.0.0.1/hook',
        "The URL's host 10.0.0.1 is a private address; webhooks may only reach public addresses unless the service runs with --allow-private-webhooks.",
      ],
      [
        receiver.url,
        "The URL's host 127.0.0.1 is a loopback address; webhooks may only reach public addresses unless the service runs with --allow-private-webhooks.",
      ],
      [
        'https://169.254.169.254/latest/meta-data',
        "The URL's host 169.254.169.254 is a cloud metadata address; webhooks never reach those, not even with --allow-private-webhooks.",
      ],
      ['ftp://x', 'Webhook URLs must start with https:// (ftp: is not supported).'],
    ];
    // Refusals change nothing, so the commands run at once.
    const answers = await Promise.all(refusals.map(([url]) => webhook(['add', url], env)));
    for (const [i, [url, sentence]] of refusals.entries())
      expect({ url, stderr: answers[i]!.stderr, code: answers[i]!.code }).toEqual({ url, stderr: `${sentence}\n`, code: 1 });
    expect(JSON.parse((await webhook(['list', '--json'], env)).stdout)).toEqual([]);
    // The dev service lets a receiver on this machine through, never a metadata address.
    const { env: devEnv } = await newAccount(String(dev.ready.serviceUrl));
    const metadata = await webhook(['add', 'https://169.254.169.254/'], devEnv);
    expect(metadata.stderr).toMatch(/is a cloud metadata address; webhooks never reach those, not even with --allow-private-webhooks\.\n$/);
  });

  it('checks its own flags before asking the service (exit 2), and needs a login (exit 1)', async () => {
    const { env } = await newAccount(String(dev.ready.serviceUrl));
    const usage: [string[], string][] = [
      [['add', receiver.url, '--address', '0x12'], 'Invalid --address: "0x12" is not an address; give 0x followed by 40 hex digits.'],
      [
        ['add', receiver.url, '--no-tracker-messages'],
        'This webhook would deliver nothing: drop --no-tracker-messages, or give --address for each address to watch.',
      ],
      [
        ['add', receiver.url, '--network', 'Ethereum/Local'],
        'Invalid --network "Ethereum/Local": give <platform>/<network> (e.g. ethereum/local-2) or a network of the default ' +
          'platform, in lowercase letters, digits and dashes.',
      ],
      [['replay', 'x'], 'Give --from <time> (with an optional --to <time>) or --from-message <messageId>, one of the two.'],
      [
        ['replay', 'x', '--from', 'yesterday'],
        'Invalid --from "yesterday": give an ISO 8601 time such as 2026-01-31T12:00:00Z, or milliseconds since 1970.',
      ],
      [
        ['replay', 'x', '--from', '2026-01-02T00:00:00Z', '--to', '2026-01-01T00:00:00Z'],
        '--from is later than --to: give the earlier time to --from.',
      ],
      [
        ['update', 'x'],
        'Nothing to change: give --url, --state, --rotate-secret, --address, --clear-addresses or --[no-]tracker-messages.',
      ],
      [['update', 'x', '--state', 'failing'], 'Invalid --state "failing": give active (resumes a paused or failing webhook) or paused.'],
      [['update', 'x', '--overlap', '60'], '--overlap goes with --rotate-secret: add it, or drop --overlap.'],
    ];
    // Usage errors never reach the service, so the commands run at once.
    const answers = await Promise.all(usage.map(([args]) => webhook(args, env)));
    for (const [i, [args, sentence]] of usage.entries())
      expect({ args, stderr: answers[i]!.stderr, code: answers[i]!.code }).toEqual({ args, stderr: `${sentence}\n`, code: 2 });
    const endpoint = String(dev.ready.serviceUrl);
    const loggedOut = await webhook(['list'], { ...env, TXDESK_CONFIG_DIR: join(tempDir('txdesk-webhook-cli-none-'), 'config') });
    expect(loggedOut.stderr).toBe(`Not logged in to ${endpoint} (TXDESK_ENDPOINT): run \`txdesk login\` first.\n`);
    expect(loggedOut.code).toBe(1);
    const noSecret = await runCli(['account:api-secret'], {
      env: { ...env, TXDESK_CONFIG_DIR: join(tempDir('txdesk-webhook-cli-none-'), 'config') },
    });
    expect({ stderr: noSecret.stderr, code: noSecret.code }).toEqual({
      stderr: `Not logged in to ${endpoint} (TXDESK_ENDPOINT): run \`txdesk login\` first.\n`,
      code: 1,
    });
    const both = await runCli(['account:api-secret', '--rotate', '--revoke'], { env });
    expect({ stderr: both.stderr, code: both.code }).toEqual({
      stderr: '--rotate and --revoke contradict each other: give one of them.\n',
      code: 2,
    });
  });
});
