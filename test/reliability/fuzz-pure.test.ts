// Property-based tests of the pure validators at every edge (IPC guard and schemas, environment parser, tracker
// frame parser, listing query parser): random and hostile inputs never throw past the validator, and every refusal
// is one of our coded errors with a sentence (no secret echoed back).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readEnv } from '../../src/core/config.js';
import { validatedApi } from '../../src/core/services/desktop-api-validated.js';
import { invokeGuarded, isTrustedSenderUrl, toIpcError } from '../../src/main/ipc-guard.js';
import { callMethods } from '../../src/shared/desktop-api.js';
import { desktopArgs } from '../../src/shared/desktop-schemas.js';
import { parseListingParams, readQuery } from '../../src/service/listing/listing-params.js';
import { parseFrame } from '../../src/service/tracker/tracker-rpc.js';
import type { DesktopApi } from '../../src/shared/desktop-api.js';
import { isTxdeskError } from '../../src/shared/errors.js';
import {
  TrackerError,
  TransactionTracker,
  checkAckTimeout,
  checkConfirmation,
  checkSubscriptionId,
  checkTimeout,
  checkTxHash,
} from '@txdesk/tracker';

const RUNS = 400;
const knownCodes = [
  'BAD_REQUEST',
  'INVALID_PARAMETER',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
  'CHAIN_ERROR',
  'INTERNAL',
];

/** Arbitrary JSON-ish values including the awkward ones: -0, NaN-free huge numbers, deep nesting, long strings. */
const hostileValue = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(null, undefined, '', ' ', '0x', -0, 1e308, -1, 2 ** 53, '__proto__', 'constructor', { __proto__: null }, [], {}),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.integer({ min: 1, max: 4 }).map((n) => 'x'.repeat(n * 100_000)),
);

/** A fake core that records every call: the guard must only ever hand it validated arguments. */
function recordingApi(): { api: DesktopApi; calls: { method: string; args: unknown[] }[] } {
  const calls: { method: string; args: unknown[] }[] = [];
  const api = new Proxy({} as DesktopApi, {
    get:
      (_t, method: string) =>
      async (...args: unknown[]) => {
        calls.push({ method, args });
        return { ok: true };
      },
  });
  return { api, calls };
}

const APP_URL = 'app://txdesk/index.html';
const appSender = { senderUrl: `${APP_URL}#/settings`, fromMainFrame: true };

describe('IPC guard (src/main/ipc-guard.ts)', () => {
  it('random method names and argument lists: never throws, refuses with a known code, or calls the core with args its schema accepts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(...callMethods, 'onTransactionChanged', 'constructor', '__proto__', 'toString', 'hasOwnProperty'),
          fc.string({ maxLength: 40 }),
        ),
        fc.array(hostileValue, { maxLength: 4 }),
        async (method, args) => {
          const { api, calls } = recordingApi();
          const r = await invokeGuarded(validatedApi(api), APP_URL, { method, args, ...appSender });
          if (r.ok) {
            expect(calls).toHaveLength(1);
            const schema = desktopArgs[method as keyof typeof desktopArgs];
            const given = [...args];
            while (given.length > 0 && given[given.length - 1] === undefined) given.pop();
            expect(schema.safeParse(given).success).toBe(true);
          } else {
            expect(calls).toHaveLength(0);
            expect(['INVALID_PARAMETER', 'NOT_FOUND']).toContain(r.error.code);
            expect(r.error.message.length).toBeGreaterThan(0);
            expect(r.error.message.length).toBeLessThan(1000);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('well-formed arguments pass: importKey with a valid key, setCongestion with a level, updateSettings with a policy patch', async () => {
    const { api, calls } = recordingApi();
    for (const [method, args] of [
      ['importKey', [{ privateKey: 'ab'.repeat(32) }]],
      ['setCongestion', ['high']],
      ['updateSettings', [{ policy: { bumpPercent: 20, maxReplacements: 3 } }]],
      ['listTokens', ['0x' + '1'.repeat(40), { page: 0, size: 15, order_direction: 'asc' }]],
    ] as const) {
      const r = await invokeGuarded(validatedApi(api), APP_URL, { method, args: [...args], ...appSender });
      expect(r, method).toEqual({ ok: true, value: { ok: true } });
    }
    expect(calls.map((c) => c.method)).toEqual(['importKey', 'setCongestion', 'updateSettings', 'listTokens']);
  });

  it('a refused importKey never echoes the submitted key material', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[0-9a-f]{20,80}$/), fc.constantFrom('', '0x', '0X', ' '), async (hex, prefix) => {
        const { api } = recordingApi();
        const r = await invokeGuarded(validatedApi(api), APP_URL, {
          method: 'importKey',
          args: [{ privateKey: prefix + hex, extra: hex }],
          ...appSender,
        });
        if (!r.ok) expect(r.error.message).not.toContain(hex);
      }),
      { numRuns: 200 },
    );
  });

  it('senders other than our own page are refused before validation and the core is never called', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.webUrl(),
          fc.constantFrom(
            'about:blank',
            'file:///etc/passwd',
            'file:///opt/txdesk/out/renderer/index.html',
            'app://evil/index.html',
            'data:text/html,x',
            'null',
            '',
            'javascript:alert(1)',
            'devtools://devtools/bundled/x.html',
          ),
          fc.string({ maxLength: 60 }),
        ),
        fc.boolean(),
        fc.constantFrom(...callMethods),
        async (senderUrl, fromMainFrame, method) => {
          const { api, calls } = recordingApi();
          const r = await invokeGuarded(api, APP_URL, { method, args: [], senderUrl, fromMainFrame });
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.error.code).toBe('FORBIDDEN');
          expect(calls).toHaveLength(0);
        },
      ),
      { numRuns: RUNS },
    );
    expect(isTrustedSenderUrl(undefined, APP_URL)).toBe(false);
  });

  it('anything thrown by the core maps to a known code; foreign errors lose their text (it may hold secrets)', () => {
    fc.assert(
      fc.property(hostileValue, (thrown) => {
        const e = toIpcError(thrown);
        expect(knownCodes).toContain(e.code);
        expect(typeof e.message).toBe('string');
      }),
      { numRuns: RUNS },
    );
    const secret = 'ab'.repeat(32);
    expect(toIpcError(new Error(`bad key ${secret}`)).message).not.toContain(secret);
    expect(toIpcError({ code: 'EACCES', message: secret }).message).not.toContain(secret);
  });
});

const envNames = [
  'CLIENT_ID',
  'PRIVATE_KEY',
  'NODE_ENDPOINT',
  'PLATFORM',
  'NETWORK',
  'TXDESK_SERVICE_URL',
  'TXDESK_DATA_DIR',
  'TXDESK_KEY_PASSPHRASE',
] as const;
const envValue = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.webUrl(),
  fc.stringMatching(/^(0x)?[0-9a-fA-F]{60,70}$/),
  fc.constantFrom(
    '',
    ' ',
    'ftp://x',
    'http://',
    'ethereum',
    'local',
    'javascript:1',
    'file:///tmp',
    '\u0000',
    'http://[::1]:8545',
    'ws://127.0.0.1:1',
  ),
);

describe('environment configuration (src/core/config.ts)', () => {
  it('random environments: readEnv returns or throws ConfigError, one line per variable, never echoing a secret', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...envNames, 'HOME', 'PATH', 'X'), envValue, { maxKeys: 8 }), (env) => {
        let problems: string[] | null = null;
        try {
          readEnv(env);
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
          problems = (e as ConfigError).problems;
        }
        if (problems === null) return;
        expect(problems.length).toBeGreaterThan(0);
        for (const line of problems) {
          expect(
            envNames.some((n) => line.startsWith(`${n} `)),
            line,
          ).toBe(true);
          expect(line).not.toContain('\n');
        }
        // A secret's own line never carries its value (other lines may contain it by coincidence, e.g. "ethereum").
        for (const secret of ['PRIVATE_KEY', 'TXDESK_KEY_PASSPHRASE'] as const) {
          const v = env[secret]?.trim();
          const line = (problems as string[]).find((l) => l.startsWith(`${secret} `));
          if (v && v.length >= 6 && line) expect(line.slice(secret.length), `${secret} echoed`).not.toContain(v);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('random environments and saved settings: loadConfig returns a config or throws ConfigError, nothing else', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...envNames), envValue, { maxKeys: 8 }),
        fc.record(
          {
            nodeUrl: fc.option(fc.webUrl(), { nil: undefined }),
            serviceUrl: fc.option(fc.webUrl(), { nil: undefined }),
            clientId: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
          },
          { requiredKeys: [] },
        ),
        (env, saved) => {
          try {
            const c = loadConfig({ env, dataDir: '/tmp/txdesk-fuzz', saved: saved as never });
            expect(['embedded', 'configured']).toContain(c.mode);
            if (c.mode === 'configured') expect(c.network?.clientId).toBeTruthy();
            if (c.envPrivateKey) expect(c.envPrivateKey).toMatch(/^0x[0-9a-fA-F]{64}$/);
          } catch (e) {
            expect(e).toBeInstanceOf(ConfigError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('tracker frame parser (src/service/tracker/tracker-rpc.ts)', () => {
  const method = fc.constantFrom(
    'track_transaction',
    'tracker_subscribe',
    'tracker_unsubscribe',
    'ack',
    'HEARTBEAT',
    'eth_call',
    '',
    'ACK',
    '__proto__',
  );
  const request = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), hostileValue),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), hostileValue),
      method: fc.oneof(method, hostileValue),
      params: fc.oneof(fc.array(hostileValue, { maxLength: 4 }), hostileValue),
    },
    { requiredKeys: [] },
  );
  const frame = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    request.map((r) => JSON.stringify(r)),
    fc.array(request, { maxLength: 5 }).map((r) => JSON.stringify(r)),
    fc.constantFrom('', '[]', '{}', 'null', '[[]]', '[1,2]', '{"jsonrpc":"2.0"}', '\u0000', '{"__proto__":{"x":1}}'),
  );

  it('any text frame yields commands or JSON-RPC errors with the spec codes; parsing never throws', () => {
    fc.assert(
      fc.property(frame, (text) => {
        const parsed = parseFrame(text, 10_000);
        expect(parsed.items.length).toBeGreaterThan(0);
        for (const item of parsed.items) {
          if (item.ok)
            expect(['track_transaction', 'tracker_subscribe', 'tracker_unsubscribe', 'ack', 'HEARTBEAT']).toContain(item.command.method);
          else {
            expect([-32700, -32600, -32601, -32602]).toContain(item.code);
            expect(item.message.length).toBeGreaterThan(0);
          }
          expect(item.id === null || typeof item.id === 'number' || typeof item.id === 'string').toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('listing query parser (src/service/listing/listing-params.ts)', () => {
  const key = fc.constantFrom('page', 'size', 'order_by', 'order_direction', 'contractAddresses', 'clientId', 'Page', 'x', '');
  const value = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.integer({ min: -5, max: 300 }).map(String),
    fc.constantFrom(
      'asc',
      'DESC',
      'token_id',
      'contract_address',
      'transfer_block_number',
      '1e3',
      '0x10',
      '99999999999999999999',
      '1.5',
      '-0',
      ' 1',
      '',
    ),
    fc.array(fc.stringMatching(/^0x[0-9a-fA-F]{40}$/), { maxLength: 60 }).map((a) => a.join(',')),
  );
  it('any query either parses into values within the spec ranges or is a 400 INVALID_PARAMETER', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 8 }), fc.constantFrom('account', 'contract'), (pairs, kind) => {
        const search = '?' + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        try {
          const p = parseListingParams(readQuery(search), kind as 'account' | 'contract');
          expect(Number.isInteger(p.page) && p.page >= 0).toBe(true);
          expect(p.size >= 1 && p.size <= 200).toBe(true);
          expect(['transfer_block_number', 'token_id', 'contract_address']).toContain(p.orderBy);
          expect(['asc', 'desc']).toContain(p.direction);
          if (p.contracts) expect(p.contracts.length).toBeLessThanOrEqual(50);
        } catch (e) {
          expect(isTxdeskError(e, 'INVALID_PARAMETER'), String(e)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('tracker SDK options (src/sdk/index.ts)', () => {
  const noNetwork = () => {
    throw new Error('no network in this test');
  };
  const opt = fc.oneof(
    hostileValue,
    fc.constantFrom('ethereum', 'local', 'http://127.0.0.1:4000', 'ws://x', 'wss://h:1/p', 'ftp://x'),
    fc.integer({ min: -5, max: 100_000 }),
  );

  it('random constructor arguments: a tracker, or a TrackerError INVALID_OPTIONS thrown at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostileValue, fc.string({ minLength: 1, maxLength: 40 })),
        fc.record(
          {
            platform: opt,
            network: opt,
            url: opt,
            requestTimeoutMs: opt,
            initialBackoffMs: opt,
            maxBackoffMs: opt,
            heartbeatMs: opt,
            minAckTimeout: opt,
          },
          { requiredKeys: [] },
        ),
        async (clientId, options) => {
          let t: TransactionTracker | undefined;
          try {
            t = new TransactionTracker(clientId as string, { ...(options as object), socketFactory: noNetwork } as never);
          } catch (e) {
            expect(e, String(e)).toBeInstanceOf(TrackerError);
            expect((e as TrackerError).code).toBe('INVALID_OPTIONS');
            expect((e as Error).message.length).toBeGreaterThan(0);
            return;
          }
          t.on('error', () => {});
          await t.close();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('random trackTransaction and subscribe options are refused at once with INVALID_OPTIONS, before any network use', async () => {
    const t = new TransactionTracker('some-client', {
      platform: 'ethereum',
      network: 'local',
      url: 'http://127.0.0.1:9',
      socketFactory: noNetwork,
    });
    t.on('error', () => {});
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(hostileValue, fc.stringMatching(/^0x[0-9a-f]{64}$/)),
          fc.record({ confirmation: hostileValue, timeout: hostileValue }, { requiredKeys: [] }),
          async (hash, options) => {
            const o = options as { confirmation?: unknown; timeout?: unknown };
            const valid = checkTxHash(hash).ok && checkConfirmation(o.confirmation ?? 6).ok && checkTimeout(o.timeout ?? 10_000).ok;
            if (valid) return;
            await expect(t.trackTransaction(hash as string, options as never)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
          },
        ),
        { numRuns: RUNS },
      );
      fc.assert(
        fc.property(fc.record({ subscriptionId: hostileValue, ackTimeout: hostileValue }, { requiredKeys: [] }), (options) => {
          const o = options as { subscriptionId?: unknown; ackTimeout?: unknown };
          if (checkSubscriptionId(o.subscriptionId).ok && checkAckTimeout(o.ackTimeout).ok) return;
          expect(() => t.subscribe('transaction', options as never)).toThrow(TrackerError);
        }),
        { numRuns: RUNS },
      );
    } finally {
      await t.close();
    }
  });
});
