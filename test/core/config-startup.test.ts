// The pure parts of the start-up checks and link tracking, table by table: comparing the node with the service,
// the tracker's errors in the app's words, one log line per link state change, tracking queued while down, the client
// ID guard, and the log levels.
import { describe, expect, it } from 'vitest';
import { ConfigError, type NetworkConfig } from '../../src/core/config.js';
import { VaultError } from '../../src/core/ports.js';
import { describeTrackerError, keyLoadRefusal, refuseDevchainFlags, startupTrackerRefusal } from '../../src/core/startup-refusals.js';
import { clientIdGuard } from '../../src/core/services/client-id-guard.js';
import { createLinkStatus } from '../../src/core/services/link-status.js';
import { createTrackingQueue } from '../../src/core/services/tracking-queue.js';
import { compareParts, servedNetworkFor, type ServiceHealth } from '../../src/core/startup-checks.js';
import { createLogger, logLevelFromEnv, type Logger } from '../../src/lib/log.js';
import { TrackerError } from '@txdesk/tracker';
import type { AppSettings } from '../../src/shared/desktop-api.js';
import { isTxdeskError } from '../../src/shared/errors.js';

const env = { nodeUrl: 'env', serviceUrl: 'env', clientId: 'env', platform: 'env', network: 'env' } as const;
const net = (o: Partial<NetworkConfig> = {}): NetworkConfig => ({
  nodeUrl: 'http://node:8545',
  serviceUrl: 'http://svc:4000',
  clientId: 'cid-secret',
  platform: null,
  network: null,
  origin: env,
  ...o,
});
const sepolia: ServiceHealth = { chainId: 11155111, platform: 'ethereum', network: 'sepolia' };

function problemOf(f: () => unknown): string[] | 'none' {
  try {
    f();
    return 'none';
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
}

describe('compareParts: the node, the service and PLATFORM/NETWORK', () => {
  it.each<
    [string, Partial<NetworkConfig>, number, ServiceHealth | null, { platform: string; network: string; warnings: string[] } | RegExp]
  >([
    ['unset values come from the service', {}, 11155111, sepolia, { platform: 'ethereum', network: 'sepolia', warnings: [] }],
    [
      'set values that match are kept',
      { platform: 'ethereum', network: 'sepolia' },
      11155111,
      sepolia,
      { platform: 'ethereum', network: 'sepolia', warnings: [] },
    ],
    [
      'service down: unset network follows the node chain id',
      {},
      11155111,
      null,
      { platform: 'ethereum', network: 'sepolia', warnings: [] },
    ],
    ['service down: an unknown chain id gets chain-<id>', {}, 999, null, { platform: 'ethereum', network: 'chain-999', warnings: [] }],
    [
      'service down: set values are used as given',
      { platform: 'ethereum', network: 'local' },
      11155111,
      null,
      { platform: 'ethereum', network: 'local', warnings: [] },
    ],
    [
      'chain ids differ',
      {},
      1,
      sepolia,
      new RegExp(
        /^NODE_ENDPOINT \(http:\/\/node:8545\) is on chain 1 but TXDESK_SERVICE_URL \(http:\/\/svc:4000\) /.source +
          /serves chain 11155111 \(ethereum\/sepolia\): point both at the same network\.$/.source,
      ),
    ],
    [
      'NETWORK differs',
      { network: 'local' },
      11155111,
      sepolia,
      /^NETWORK=local but the data service at http:\/\/svc:4000 serves ethereum\/sepolia: set NETWORK=sepolia, or unset it/,
    ],
    ['PLATFORM differs', { platform: 'polygon' }, 11155111, sepolia, /^PLATFORM=polygon but .* set PLATFORM=ethereum/],
    [
      'a saved node URL names the app setting',
      { origin: { ...env, nodeUrl: 'saved' } },
      5,
      sepolia,
      /^the node URL saved in the app \(http:\/\/node:8545\) is on chain 5 but TXDESK_SERVICE_URL/,
    ],
  ])('%s', (_name, o, chainId, health, expected) => {
    if (expected instanceof RegExp) {
      const p = problemOf(() => compareParts(net(o), chainId, health));
      expect(p).not.toBe('none');
      expect(p).toHaveLength(1);
      expect((p as string[])[0]).toMatch(expected);
    } else {
      // A service with one network: that network is its default.
      expect(compareParts(net(o), chainId, health)).toEqual({ ...(expected as object), isDefault: true });
    }
  });

  it('a saved network that does not match is not fatal: the service wins and a warning names the app setting', () => {
    expect(compareParts(net({ network: 'holesky', origin: { ...env, network: 'saved' } }), 11155111, sepolia)).toEqual({
      platform: 'ethereum',
      network: 'sepolia',
      isDefault: true,
      warnings: [
        'the network saved in the app (holesky) does not match the data service at http://svc:4000, which serves ' +
          "ethereum/sepolia: using sepolia; change it in the app's settings.",
      ],
    });
  });

  it('both PLATFORM and NETWORK wrong: one line each', () => {
    expect(problemOf(() => compareParts(net({ platform: 'polygon', network: 'local' }), 11155111, sepolia))).toHaveLength(2);
  });
});

describe("the tracker SDK's errors in the app's words", () => {
  const tnet = { serviceUrl: 'http://svc:4000', origin: env, platform: 'ethereum', network: 'local' };
  it.each<[TrackerError, RegExp]>([
    [
      new TrackerError(
        'UNKNOWN_CLIENT_ID',
        'The tracker at ws://svc does not know this clientId; … pass it to new TransactionTracker().',
        false,
      ),
      /^CLIENT_ID is not known to the data service at http:\/\/svc:4000: run `txdesk login`/,
    ],
    [
      new TrackerError('NOT_FOUND', 'Nothing is served at ws://svc. Check the platform and network options.', false),
      /^The data service at http:\/\/svc:4000 does not serve ethereum\/local: set NETWORK \(and PLATFORM\) to what http:\/\/svc:4000\/health names/,
    ],
    [
      new TrackerError(
        'UNREACHABLE',
        'Lost the txdesk tracker at ws://svc:4000/tracker/ethereum/local: cannot connect (connect ECONNREFUSED 127.0.0.1:4000); reconnecting in 312 ms.',
        true,
        undefined,
        {
          reason: 'CONNECT_FAILED',
          detail: 'connect ECONNREFUSED 127.0.0.1:4000',
        },
      ),
      /^The tracker at http:\/\/svc:4000 is unreachable \(cannot connect \(connect ECONNREFUSED 127\.0\.0\.1:4000\)\); retrying with backoff/,
    ],
    [
      // The SDK's form with several URLs ("reconnecting to <next> in"), which the old message parser missed.
      new TrackerError(
        'UNREACHABLE',
        'Lost the txdesk tracker at ws://a:4000/tracker/ethereum/local: the connection dropped; reconnecting to ws://b:4000/tracker/ethereum/local in 250 ms.',
        true,
        undefined,
        {
          reason: 'CONNECTION_DROPPED',
        },
      ),
      /^The tracker at http:\/\/svc:4000 is unreachable \(the connection dropped\); retrying with backoff/,
    ],
    [
      new TrackerError(
        'UNREACHABLE',
        'Lost the txdesk tracker at ws://svc:4000/t: the service answered HTTP 503; reconnecting in 250 ms.',
        true,
        undefined,
        { reason: 'HTTP_STATUS', httpStatus: 503 },
      ),
      /is unreachable \(the service answered HTTP 503\); retrying/,
    ],
  ])('%s', (e, words) => {
    const w = describeTrackerError(e, tnet);
    expect(w).toMatch(words);
    expect(w).not.toMatch(/TransactionTracker|options|reconnecting|ws:\/\//);
  });

  it('reads the code and facts, never the message: a reworded SDK sentence changes nothing', () => {
    const facts = { reason: 'CONNECT_FAILED', detail: 'getaddrinfo ENOTFOUND svc' } as const;
    for (const code of ['UNKNOWN_CLIENT_ID', 'NOT_FOUND', 'UNREACHABLE'] as const) {
      const first = new TrackerError(
        code,
        'Lost the txdesk tracker at ws://svc: cannot connect; reconnecting in 5 ms.',
        false,
        undefined,
        facts,
      );
      const reworded = new TrackerError(
        code,
        'Entirely different words; with: colons and ; semicolons in odd places.',
        false,
        undefined,
        facts,
      );
      expect(describeTrackerError(reworded, tnet)).toBe(describeTrackerError(first, tnet));
      expect(describeTrackerError(reworded, tnet, 'starting')).toBe(describeTrackerError(first, tnet, 'starting'));
    }
  });

  it('at start-up a refusal becomes a ConfigError (exit 2); anything else passes through', () => {
    const refused = startupTrackerRefusal(new TrackerError('UNKNOWN_CLIENT_ID', 'x', false), tnet);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).exitCode).toBe(2);
    expect((refused as ConfigError).problems[0]).not.toMatch(/restart/);
    const other = new Error('boom');
    expect(startupTrackerRefusal(other, tnet)).toBe(other);
  });
});

describe('a key file the passphrase does not open', () => {
  it('is bad input naming TXDESK_KEY_PASSPHRASE; other load failures stay run-time failures', () => {
    const wrong = keyLoadRefusal(
      new VaultError(
        'wrong-passphrase',
        'The key file /d/k.json cannot be decrypted with TXDESK_KEY_PASSPHRASE; set the passphrase it was saved with.',
      ),
    );
    expect(wrong).toBeInstanceOf(ConfigError);
    const locked = new VaultError('keychain-unreadable', 'The OS keychain could not be read; unlock it and try again.');
    expect(keyLoadRefusal(locked)).toBe(locked);
  });

  it("is told by the vault's reason code, not its words", () => {
    const reworded = keyLoadRefusal(new VaultError('wrong-passphrase', 'That passphrase does not open the key file.'));
    expect(reworded).toBeInstanceOf(ConfigError);
    expect((reworded as ConfigError).problems).toEqual(['That passphrase does not open the key file.']);
    const mentions = new Error('TXDESK_KEY_PASSPHRASE appears in a message that is not a vault failure');
    expect(keyLoadRefusal(mentions)).toBe(mentions);
  });
});

describe('flags that do not apply', () => {
  it.each<[boolean, { congestion?: string; blockTimeSeconds?: number }, RegExp | null]>([
    [true, { congestion: 'high', blockTimeSeconds: 5 }, null],
    [false, {}, null],
    [false, { congestion: 'high' }, /^--congestion applies only to the embedded dev chain.*drop it,/],
    [false, { blockTimeSeconds: 5 }, /^--block-time applies only/],
    [false, { congestion: 'low', blockTimeSeconds: 1 }, /^--congestion and --block-time apply only .* drop them,/],
  ])('embedded=%s %o', (embedded, o, line) => {
    const p = problemOf(() => refuseDevchainFlags(embedded, o));
    if (line === null) expect(p).toBe('none');
    else expect((p as string[])[0]).toMatch(line);
  });
});

function recorder(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log: Logger = {
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
    child: () => log,
  };
  return { log, lines };
}

describe('link status: one log line per change of state, never per retry', () => {
  it('connecting -> connected -> lost (retries quiet) -> back, each pushed', () => {
    const { log, lines } = recorder();
    const pushed: string[] = [];
    let t = Date.parse('2026-01-01T00:00:00Z');
    const board = createLinkStatus({ log, emit: (s) => pushed.push(`${s.tracker.state}|${s.node.state}`), now: () => new Date(t) });
    expect(board.get().tracker).toEqual({ state: 'connecting', reason: null, since: '2026-01-01T00:00:00.000Z' });
    board.set('tracker', 'connected');
    board.set('tracker', 'connected');
    t += 1000;
    board.set('tracker', 'unreachable', 'down (ECONNREFUSED); retrying with backoff');
    for (let i = 0; i < 20; i++) board.set('tracker', 'unreachable', 'down (ECONNREFUSED); retrying with backoff');
    board.set('tracker', 'unreachable', 'down (the connection dropped); retrying with backoff');
    t += 12_000;
    board.set('tracker', 'connected', 'ignored when connected');
    board.set('node', 'unreachable', 'node gone');
    board.set('node', 'connected');
    expect(lines).toEqual([
      'info tracker connected',
      'warn tracker lost: down (ECONNREFUSED); retrying with backoff',
      'info tracker back after 12 s',
      'warn Ethereum node lost: node gone',
      'info Ethereum node back after 0 s',
    ]);
    // The reason changed quietly (pushed, not logged); `since` is when the state changed.
    expect(pushed).toEqual([
      'connected|connected',
      'unreachable|connected',
      'unreachable|connected',
      'connected|connected',
      'connected|unreachable',
      'connected|connected',
    ]);
    expect(board.get().tracker).toEqual({ state: 'connected', reason: null, since: new Date(t).toISOString() });
  });

  it('never connected yet: "unreachable", not "lost"', () => {
    const { log, lines } = recorder();
    const board = createLinkStatus({ log, emit: () => undefined });
    board.set('tracker', 'unreachable', 'x');
    board.set('tracker', 'connected');
    expect(lines.map((l) => l.replace(/after \d+ s/, 'after N s'))).toEqual(['warn tracker unreachable: x', 'info tracker connected']);
  });
});

/** A tracker feed whose track() fails while `setFail(true)`, and records what went through. */
function flakyFeed() {
  let fail = true;
  const sent: string[] = [];
  const feed = {
    track: async (h: string) => {
      if (fail) throw new Error('dropped');
      sent.push(h);
    },
    start: async () => undefined,
    stop: async () => undefined,
  };
  return { feed, sent, setFail: (f: boolean) => void (fail = f) };
}

describe('tracking while the tracker is down', () => {
  it('queues, resolves at once, and registers everything when it is back; failures wait for the next flush', async () => {
    const { log } = recorder();
    let up = false;
    const { feed, sent, setFail } = flakyFeed();
    const q = createTrackingQueue({ feed: () => feed, isUp: () => up, log });
    await q.track('0xa', { timeout: 1, confirmation: 1 });
    await q.track('0xb', { timeout: 1, confirmation: 1 });
    await q.track('0xa', { timeout: 1, confirmation: 1 });
    expect(q.size()).toBe(2);
    up = true;
    q.flush();
    await new Promise((r) => setImmediate(r));
    expect(q.size()).toBe(2);
    setFail(false);
    q.flush();
    await new Promise((r) => setImmediate(r));
    expect(sent.sort()).toEqual(['0xa', '0xb']);
    expect(q.size()).toBe(0);
    // Up: the call goes straight through and its failure reaches the caller (the engine retries).
    setFail(true);
    await expect(q.track('0xc', { timeout: 1, confirmation: 1 })).rejects.toThrow('dropped');
  });

  it('flushes again by itself while up when a queued registration failed, and never after stop', async () => {
    const { log } = recorder();
    const { feed, sent, setFail } = flakyFeed();
    let up = false;
    const q = createTrackingQueue({ feed: () => feed, isUp: () => up, log, retryMs: 20 });
    await q.track('0xa', { timeout: 1, confirmation: 1 });
    up = true;
    q.flush();
    await new Promise((r) => setImmediate(r));
    expect(q.size()).toBe(1);
    setFail(false);
    await new Promise((r) => setTimeout(r, 80));
    expect([sent, q.size()]).toEqual([['0xa'], 0]);
    // Stopped: a failed registration stays queued and nothing flushes it any more.
    up = false;
    await q.track('0xb', { timeout: 1, confirmation: 1 });
    up = true;
    setFail(true);
    q.flush();
    await new Promise((r) => setImmediate(r));
    q.stop();
    setFail(false);
    await new Promise((r) => setTimeout(r, 80));
    expect([sent, q.size()]).toEqual([['0xa'], 1]);
  });
});

describe('the client ID guard', () => {
  const running = () => ({ serviceUrl: 'http://svc:4000' }) as AppSettings;
  it.each<[unknown, 'accepted' | 'unknown' | 'unreachable', string | null, string]>([
    [{ clientId: 'good' }, 'accepted', null, 'http://svc:4000'],
    [{ clientId: 'typo' }, 'unknown', 'INVALID_PARAMETER 400', 'http://svc:4000'],
    [{ clientId: 'x' }, 'unreachable', 'UPSTREAM_UNAVAILABLE 502', 'http://svc:4000'],
    [{ clientId: 'x', serviceUrl: 'http://other:4000/' }, 'unreachable', 'INVALID_PARAMETER 400', 'http://other:4000'],
    [{ clientId: 'x', serviceUrl: 'http://other:4000' }, 'accepted', null, 'http://other:4000'],
  ])('%o, service says %s', async (patch, answer, error, asked) => {
    const calls: string[] = [];
    const guard = clientIdGuard({ running, check: async (url) => (calls.push(url), answer) });
    const r = await guard(patch).then(
      () => null,
      (e: unknown) => (isTxdeskError(e) ? `${e.code} ${e.status}` : String(e)),
    );
    expect(r).toBe(error);
    expect(calls).toEqual([asked]);
  });

  it.each([[{ clientId: null }], [{ policy: { bumpPercent: 20 } }], [{ clientId: 42 }], ['garbage']])(
    'asks nothing for %o',
    async (patch) => {
      const calls: string[] = [];
      await clientIdGuard({ running, check: async (url) => (calls.push(url), 'unknown') })(patch);
      expect(calls).toEqual([]);
    },
  );
});

describe('TXDESK_LOG', () => {
  it.each([
    [undefined, 'info'],
    ['', 'info'],
    ['debug', 'debug'],
    ['WARN', 'warn'],
    ['silent', 'silent'],
    ['loud', 'info'],
  ])('%s -> %s', (value, level) => expect(logLevelFromEnv(value)).toBe(level));

  it('writes only at or above its level', () => {
    const written: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (written.push(s), true)) as typeof process.stderr.write;
    try {
      const log = createLogger('t', 'warn');
      log.debug?.('d');
      log.info('i');
      log.warn('w');
      log.child('c').info('ci');
      log.child('c').error('ce');
      createLogger('t', 'debug').debug?.('dd');
    } finally {
      process.stderr.write = orig;
    }
    expect(written.map((l) => l.replace(/^\S+ /, '').trim())).toEqual(['warn [t] w', 'error [t:c] ce', 'debug [t] dd']);
  });
});

describe('servedNetworkFor: the configured network on a service that serves several', () => {
  const multi: ServiceHealth = {
    chainId: 31337,
    platform: 'ethereum',
    network: 'local',
    networks: [
      { platform: 'ethereum', network: 'local', chainId: 31337, default: true },
      { platform: 'ethereum', network: 'local-2', chainId: 31338, default: false },
    ],
  };
  it.each([
    [
      'NETWORK names a served network',
      { platform: null, network: 'local-2' },
      31338,
      { network: 'local-2', chainId: 31338, isDefault: false },
    ],
    [
      "none named: the one on the node's chain",
      { platform: null, network: null },
      31338,
      { network: 'local-2', chainId: 31338, isDefault: false },
    ],
    [
      'none named, no chain matches: the default',
      { platform: null, network: null },
      5,
      { network: 'local', chainId: 31337, isDefault: true },
    ],
    [
      'a service without `networks`: its default',
      { platform: null, network: 'local-2' },
      31338,
      { network: 'local', chainId: 31337, isDefault: true },
    ],
  ])('%s', (name, net, chainId, expected) => {
    const health = name.startsWith('a service without') ? { chainId: 31337, platform: 'ethereum', network: 'local' } : multi;
    expect(servedNetworkFor(net, chainId, health)).toMatchObject(expected);
  });
});
