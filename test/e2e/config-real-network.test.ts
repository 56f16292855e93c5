// Pointing txdesk at a "real" network as a person would: a stand-in Sepolia (anvil --chain-id 11155111), a separate
// `txdesk service --node …`, a client ID from `txdesk signup`, and `txdesk serve` configured by environment variables,
// all separate processes. Each misconfiguration people make is one row: the exact line (naming the variable or flag)
// and the exit code. Then the happy path: send, replace, confirm, restart the app, restart the service.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInfo } from '../../src/shared/desktop-api.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { ensureCliBuilt, runCli, startCliDaemon, type CliDaemon } from '../support/cli/cli-binary.js';
import { authHeader } from '../support/app/core-api-token.js';
import {
  FUNDED_KEY as KEY,
  SEPOLIA,
  cleanEnv,
  rpc,
  signUpClientId,
  startAnvil as startAnvilProcess,
  startDataService,
} from '../support/chain/real-network.js';
import { freePort } from '../support/faults/reliability-procs.js';
import { waitFor } from '../support/poll.js';

const temps: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
/** Every anvil by URL, so the happy path can kill the node and afterAll all of them. */
const anvils = new Map<string, ChildProcess>();
async function startAnvil(chainId: number | null, extra: string[] = []): Promise<string> {
  const { url, child } = await startAnvilProcess(chainId, extra);
  anvils.set(url, child);
  return url;
}

/** `waitFor` with this file's shorter timeout and poll. */
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 250): Promise<T> =>
  waitFor(what, check, { timeoutMs: timeoutMs, everyMs: everyMs, retryErrors: true });

/** Reads GET /api/events (with the API token) and keeps the tracker state of every `event: status` frame. */
function watchStatusEvents(base: string, auth: { authorization: string }) {
  const ctrl = new AbortController();
  const states: string[] = [];
  let open = false;
  void (async () => {
    const res = await fetch(`${base}/api/events`, { signal: ctrl.signal, headers: auth });
    open = res.ok;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const frame = buf.slice(0, i).split('\n');
        buf = buf.slice(i + 2);
        const data = frame.find((l) => l.startsWith('data: '));
        if (frame[0] === 'event: status' && data) states.push((JSON.parse(data.slice(6)) as AppInfo['status']).tracker.state);
      }
    }
  })().catch(() => undefined);
  return { open: () => open, trackerStates: () => [...states], close: () => ctrl.abort() };
}

/** The lines a person reads on stderr besides the timestamped log lines. */
const messageLines = (stderr: string) => stderr.split('\n').filter((l) => l && !/^\d{4}-\d\d-\d\dT/.test(l));

let sepolia: string;
let otherChain: string;
let deadPort: number;
let servicePort: number;
let serviceDir: string;
let service: CliDaemon;
let serviceUrl: string;
let clientId: string;

const startService = () => startDataService(sepolia, servicePort, serviceDir);

beforeAll(async () => {
  ensureCliBuilt();
  // No automatic mining on the stand-in Sepolia: a transaction stays pending until the test mines, so it gets replaced.
  [sepolia, otherChain, deadPort, servicePort] = await Promise.all([
    startAnvil(SEPOLIA, ['--no-mining']),
    startAnvil(null),
    freePort(),
    freePort(),
  ]);
  serviceDir = temp('txdesk-cfg-service-');
  service = await startService();
  serviceUrl = String(service.ready.serviceUrl);
  // Sign-up as a person does it, with the CLI against this service; the client ID comes from account:describe.
  clientId = await signUpClientId(serviceUrl, temp('txdesk-cfg-cli-'));
}, 180_000);

afterAll(async () => {
  await service?.stop();
  for (const a of anvils.values()) a.kill('SIGKILL');
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('the data service says what it serves', () => {
  it('/health and the ready line name the chain, platform, network and the indexer lag', async () => {
    expect(service.ready).toMatchObject({ chainId: SEPOLIA, platform: 'ethereum', network: 'sepolia', indexerLag: 12 });
    const health = (await (await fetch(`${serviceUrl}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', chainId: SEPOLIA, platform: 'ethereum', network: 'sepolia', indexerLag: 12 });
  });
});

describe('each misconfiguration stops start-up with one line naming what to change', () => {
  const good = (): NodeJS.ProcessEnv => ({
    ...cleanEnv(),
    NODE_ENDPOINT: sepolia,
    TXDESK_SERVICE_URL: serviceUrl,
    CLIENT_ID: clientId,
    PRIVATE_KEY: KEY,
  });
  const prefix = 'Could not start txdesk serve: ';
  // [case, environment changes, extra serve flags, the exact line, exit code]; `undefined` unsets a variable.
  const rows: (() => [string, NodeJS.ProcessEnv, string[], string, number])[] = [
    () => [
      'node on another chain than the service',
      { NODE_ENDPOINT: otherChain },
      [],
      `${prefix}NODE_ENDPOINT (${otherChain}) is on chain 31337 but TXDESK_SERVICE_URL (${serviceUrl}) serves ` +
        `chain ${SEPOLIA} (ethereum/sepolia): point both at the same network.`,
      2,
    ],
    () => [
      'NETWORK set to another network',
      { NETWORK: 'local' },
      [],
      `${prefix}NETWORK=local but the data service at ${serviceUrl} serves ethereum/sepolia: set NETWORK=sepolia, or unset it to take the service's.`,
      2,
    ],
    () => [
      'PLATFORM set to another platform',
      { PLATFORM: 'polygon' },
      [],
      `${prefix}PLATFORM=polygon but the data service at ${serviceUrl} serves ethereum/sepolia: set PLATFORM=ethereum, or unset it to take the service's.`,
      2,
    ],
    () => [
      'CLIENT_ID unknown to the service',
      { CLIENT_ID: 'not-a-client-id' },
      [],
      `${prefix}CLIENT_ID is not known to the data service at ${serviceUrl}: run \`txdesk login\` then \`txdesk ` +
        `account:describe\` with TXDESK_ENDPOINT=${serviceUrl}, and set CLIENT_ID to the ClientId it shows.`,
      2,
    ],
    () => [
      'CLIENT_ID missing',
      { CLIENT_ID: undefined },
      [],
      `${prefix}CLIENT_ID is not set: get one with \`txdesk login\` then \`txdesk account:describe\`, and set CLIENT_ID.`,
      2,
    ],
    () => [
      'TXDESK_SERVICE_URL pointing at the node',
      { TXDESK_SERVICE_URL: sepolia },
      [],
      `${prefix}TXDESK_SERVICE_URL (${sepolia}) is an Ethereum node (chain ${SEPOLIA}), not a txdesk data service: set ` +
        `TXDESK_SERVICE_URL to the URL \`txdesk service\` prints (port 4000 by default) and NODE_ENDPOINT to the node.`,
      2,
    ],
    () => [
      'NODE_ENDPOINT not a URL of a node',
      { NODE_ENDPOINT: 'ftp://node.example' },
      [],
      `${prefix}NODE_ENDPOINT must be an http(s):// or ws(s):// URL of an Ethereum JSON-RPC node, e.g. http://127.0.0.1:8545.`,
      2,
    ],
    () => [
      'PRIVATE_KEY zero',
      { PRIVATE_KEY: `0x${'0'.repeat(64)}` },
      [],
      `${prefix}PRIVATE_KEY is not a usable key: it must be above zero and below the secp256k1 order (the value is not ` +
        `shown); export the key from your wallet again, or unset PRIVATE_KEY and generate one in the app.`,
      2,
    ],
    () => [
      'PRIVATE_KEY above the curve order',
      { PRIVATE_KEY: `0x${'f'.repeat(64)}` },
      [],
      `${prefix}PRIVATE_KEY is not a usable key: it must be above zero and below the secp256k1 order (the value is not ` +
        `shown); export the key from your wallet again, or unset PRIVATE_KEY and generate one in the app.`,
      2,
    ],
    () => [
      'no key and nowhere to keep one',
      { PRIVATE_KEY: undefined },
      [],
      `${prefix}No signing key and nowhere to keep one: set PRIVATE_KEY to your key, or unset TXDESK_KEYCHAIN=off so the OS ` +
        `keychain keeps it, or set TXDESK_KEY_PASSPHRASE (8+ characters) to keep it in an encrypted file.`,
      2,
    ],
    () => [
      '--congestion and --block-time on a configured network',
      {},
      ['--congestion', 'high', '--block-time', '5'],
      `${prefix}--congestion and --block-time apply only to the embedded dev chain, and NODE_ENDPOINT/TXDESK_SERVICE_URL ` +
        `point at a configured network: drop them, or unset both variables to use the dev chain.`,
      2,
    ],
    () => [
      'a bad flag value',
      {},
      ['--port', 'abc'],
      'Invalid --port "abc": give a whole number from 0 to 65535 (0 picks a free port).',
      2,
    ],
    () => [
      'the node is down (a failure at run time, not bad input)',
      { NODE_ENDPOINT: `http://127.0.0.1:${deadPort}` },
      [],
      `${prefix}The Ethereum node at http://127.0.0.1:${deadPort} could not be reached; check NODE_ENDPOINT and that the node runs.`,
      1,
    ],
    () => [
      'a ws:// node that is down (no crash from the socket)',
      { NODE_ENDPOINT: `ws://127.0.0.1:${deadPort}` },
      [],
      `${prefix}The Ethereum node at ws://127.0.0.1:${deadPort} could not be reached; check NODE_ENDPOINT and that the node runs.`,
      1,
    ],
  ];

  it('txdesk serve: every row, its line and its exit code', async () => {
    const cases = rows.map((r) => r());
    // Three at a time: each is a short-lived process, and the machine is shared.
    const results: { name: string; line: string; code: number; got: { code: number | null; lines: string[]; stdout: string } }[] = [];
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3).map(async ([name, change, flags, line, code]) => {
        const env: NodeJS.ProcessEnv = { ...good(), TXDESK_DATA_DIR: temp('txdesk-cfg-app-') };
        for (const [k, v] of Object.entries(change)) {
          if (v === undefined) delete env[k];
          else env[k] = v;
        }
        const r = await runCli(['serve', '--port', '0', '--json', ...flags], { env, timeoutMs: 60_000 });
        results.push({ name, line, code, got: { code: r.code, lines: messageLines(r.stderr), stdout: r.stdout } });
        // The client ID never reaches a log.
        expect(r.stderr).not.toContain(clientId);
      });
      await Promise.all(batch);
    }
    for (const r of results) {
      expect({ case: r.name, code: r.got.code, lines: r.got.lines, stdout: r.got.stdout }).toEqual({
        case: r.name,
        code: r.code,
        lines: [r.line],
        stdout: '',
      });
    }
  });

  it('txdesk service: flags that do not apply, and the old name of --indexer-lag', async () => {
    const env = cleanEnv();
    const table: [string[], string][] = [
      [['service', '--node', sepolia, '--congestion', 'high'], '--congestion and --block-time apply to the dev chain: add --dev.'],
      [
        ['service', '--dev', '--indexer-lag', '3'],
        '--indexer-lag applies to a service on --node, --network or --config (a dev chain is indexed to its head): drop it, ' +
          'or use one of those instead of --dev.',
      ],
      [
        ['service', '--dev', '--confirmations', '3'],
        '--confirmations applies to a service on --node, --network or --config (a dev chain is indexed to its head): drop ' +
          'it, or use one of those instead of --dev.',
      ],
      [
        ['service', '--node', sepolia, '--indexer-lag', '3', '--confirmations', '4'],
        '--confirmations is the old name of --indexer-lag: give only --indexer-lag.',
      ],
    ];
    const got = await Promise.all(table.map(([args]) => runCli(args, { env })));
    expect(got.map((r) => ({ code: r.code, lines: messageLines(r.stderr) }))).toEqual(
      table.map(([, line]) => ({ code: 2, lines: [line] })),
    );
    const help = await runCli(['service', '--help'], { env });
    const flat = help.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(
      '--indexer-lag <blocks> blocks the token indexer stays behind the chain head, so short reorgs never reach the listing ' +
        "(default: 0 on dev chains 31337/1337, else 12); not the app's tracker confirmations",
    );
    expect(flat).toContain('--confirmations <blocks> old name of --indexer-lag');
  });
});

describe('a data service that is down is a state, not a crash and not a flood', () => {
  it('start-up goes on, the ready line says why, transactions are sent, the log has one line', async () => {
    const dead = `http://127.0.0.1:${deadPort}`;
    const app = await startCliDaemon(['serve', '--port', '0', '--json'], {
      env: {
        ...cleanEnv(),
        NODE_ENDPOINT: sepolia,
        TXDESK_SERVICE_URL: dead,
        CLIENT_ID: clientId,
        PRIVATE_KEY: KEY,
        TXDESK_DATA_DIR: temp('txdesk-cfg-down-'),
      },
    });
    try {
      // PLATFORM/NETWORK unset and no service to ask: they follow the node's chain id.
      expect(app.ready).toMatchObject({
        chainId: SEPOLIA,
        platform: 'ethereum',
        network: 'sepolia',
        status: { tracker: { state: 'unreachable' }, node: { state: 'connected' } },
      });
      const status = app.ready.status as AppInfo['status'];
      expect(status.tracker.reason).toContain(`Cannot reach the data service at ${dead}`);
      const sent = await fetch(`${String(app.ready.apiUrl)}/api/tx`, {
        method: 'POST',
        headers: authHeader(String(app.ready.apiTokenFile)),
      });
      expect(sent.status).toBe(201);
      // Several reconnect attempts happen meanwhile (200 ms backoff doubling): none is a log line of its own.
      await new Promise((r) => setTimeout(r, 2_500));
      const trackerLines = app
        .stderr()
        .split('\n')
        .filter((l) => /\[serve:link\] tracker/.test(l));
      expect(trackerLines).toHaveLength(1);
      expect(trackerLines[0]).toMatch(
        /warn \[serve:link\] tracker unreachable: Cannot reach the data service at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); retrying with backoff/,
      );
      expect(app.stderr()).not.toContain(clientId);
    } finally {
      await app.stop();
    }
  });
});

describe('the happy path: send, replace, confirm, restart the app, restart the service', () => {
  it('works end to end, and the links say what happens', async () => {
    const appEnv = {
      ...cleanEnv(),
      NODE_ENDPOINT: sepolia,
      TXDESK_SERVICE_URL: serviceUrl,
      CLIENT_ID: clientId,
      PRIVATE_KEY: KEY,
      TXDESK_DATA_DIR: temp('txdesk-cfg-happy-'),
    };
    const app = await startCliDaemon(['serve', '--port', '0', '--json'], { env: appEnv });
    const base = String(app.ready.apiUrl);
    const auth = authHeader(String(app.ready.apiTokenFile));
    const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
      const res = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string> | undefined) } });
      return { status: res.status, body: (await res.json()) as T };
    };
    const patch = (body: unknown) =>
      api<Record<string, unknown>>('/api/settings', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const appInfo = async () => (await api<AppInfo>('/api/app')).body;
    const records = async () => (await api<TxRecord[]>('/api/tx')).body;
    try {
      // NETWORK and PLATFORM were not set: they came from the service.
      expect(app.ready).toMatchObject({ chainId: SEPOLIA, platform: 'ethereum', network: 'sepolia', mode: 'configured' });
      await until('the tracker link', async () => ((await appInfo()).status.tracker.state === 'connected' ? true : undefined));

      // A client ID is saved only once the service accepts it.
      const bad = await patch({ clientId: 'typo-in-the-id' });
      expect(bad.status).toBe(400);
      expect((bad.body as { error: { message: string } }).error.message).toBe(
        `The data service at ${serviceUrl} does not know this client ID; copy the ClientId that \`txdesk account:describe\` ` +
          `shows for an account on that service, or sign in instead.`,
      );
      expect((await patch({ clientId })).status).toBe(200);
      // The seed preset: a chain that mines no block gives the market policy nothing to judge, while the seed's
      // timeout replaces a transaction the tracker reports pending.
      expect((await patch({ policy: { pricing: 'seed', timeoutMs: 1_000, confirmations: 1 } })).status).toBe(200);

      // Send: the chain does not mine, so the tracker reports it pending and the app replaces it.
      const first = await api<TxRecord>('/api/tx', { method: 'POST' });
      expect(first.status).toBe(201);
      const replacement = await until('a replacement', async () =>
        (await records()).find((r) => r.replaces === first.body.transactionHash),
      );
      expect(replacement.nonce).toBe(first.body.nonce);
      // Now blocks come every second: one of the nonce's hashes is mined and confirmed, the other replaced.
      await rpc(sepolia, 'evm_setIntervalMining', [1]);
      const settled = await until('the nonce to settle', async () => {
        const mine = (await records()).filter((r) => r.nonce === first.body.nonce);
        return mine.some((r) => r.status === 'confirmation') && mine.every((r) => r.status === 'confirmation' || r.status === 'replaced')
          ? mine
          : undefined;
      });
      expect(settled.filter((r) => r.status === 'confirmation')).toHaveLength(1);

      // Restart the app in-process: 202 first, then the same port answers again with the same records.
      const restart = await fetch(`${base}/api/restart`, { method: 'POST', headers: auth });
      expect(restart.status).toBe(202);
      await until('the restarted app', async () => (app.stderr().includes('[serve] restarted: ') ? true : undefined));
      expect((await appInfo()).status.tracker.state).toMatch(/connecting|connected/);
      expect((await records()).map((r) => r.transactionHash)).toEqual(expect.arrayContaining(settled.map((r) => r.transactionHash)));

      // Restart the service: the tracker is lost (one line), sending goes on, and it comes back by itself; the
      // changes are pushed on the event stream (`event: status`) as they happen.
      const pushed = watchStatusEvents(base, auth);
      await until('the event stream', async () => (pushed.open() ? true : undefined));
      await service.stop();
      await until('the tracker lost', async () => ((await appInfo()).status.tracker.state === 'unreachable' ? true : undefined));
      const whileDown = await api<TxRecord>('/api/tx', { method: 'POST' });
      expect(whileDown.status).toBe(201);
      service = await startService();
      await until('the tracker back', async () => ((await appInfo()).status.tracker.state === 'connected' ? true : undefined));
      await until('the pushed link changes', async () => (pushed.trackerStates().includes('connected') ? true : undefined), 10_000);
      expect(pushed.trackerStates()).toEqual(['unreachable', ...pushed.trackerStates().slice(1, -1), 'connected']);
      pushed.close();
      await until('the transaction sent while the service was down to confirm', async () =>
        (await records()).some((r) => r.nonce === whileDown.body.nonce && r.status === 'confirmation') ? true : undefined,
      );

      const log = app.stderr();
      expect(log).toMatch(/info \[serve:link\] tracker connected/);
      expect(log).toMatch(/warn \[serve:link\] tracker lost: The tracker at http:\/\/127\.0\.0\.1:\d+ is unreachable/);
      expect(log).toMatch(/info \[serve:link\] tracker back after \d+ s/);
      expect(log.split('\n').filter((l) => /\[serve:link\] tracker lost/.test(l))).toHaveLength(1);
      expect(log).not.toContain(clientId);

      // Last, the node goes away: the next call to it (a send) marks the node link unreachable, with one log line.
      anvils.get(sepolia)!.kill('SIGKILL');
      await fetch(`${base}/api/tx`, { method: 'POST', headers: auth });
      const node = await until('the node link lost', async () => {
        const s = (await appInfo()).status.node;
        return s.state === 'unreachable' ? s : undefined;
      });
      expect(node.reason).toMatch(/^The node at http:\/\/127\.0\.0\.1:\d+ could not be reached .* Checking again every 15 s/);
      expect(
        app
          .stderr()
          .split('\n')
          .filter((l) => /\[serve:link\] Ethereum node lost/.test(l)),
      ).toHaveLength(1);
    } finally {
      await app.stop();
    }
  });
});
