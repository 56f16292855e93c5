// Start-up configuration: each bad environment value is one line naming the variable (never echoing a secret),
// and the embedded/configured choice follows environment, then saved settings.
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultPolicy, loadConfig } from '../../src/core/config.js';

const KEY = '0x' + '1f'.repeat(32);
const good = { NODE_ENDPOINT: 'http://127.0.0.1:8545', TXDESK_SERVICE_URL: 'http://127.0.0.1:4000/', CLIENT_ID: 'abc123' };

function problems(env: NodeJS.ProcessEnv, saved = {}): string[] {
  try {
    loadConfig({ env, saved, dataDir: '/tmp/x' });
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
}

describe('loadConfig', () => {
  it.each([
    [{ NODE_ENDPOINT: 'ftp://node' }, /^NODE_ENDPOINT must be an http\(s\):\/\/ or ws\(s\):\/\/ URL/],
    [{ NODE_ENDPOINT: 'not a url' }, /^NODE_ENDPOINT /],
    [{ TXDESK_SERVICE_URL: 'ws://x' }, /^TXDESK_SERVICE_URL must be the http\(s\):\/\/ base URL/],
    [{ CLIENT_ID: 'has spaces in it' }, /^CLIENT_ID must be 1-200 visible characters/],
    [{ PRIVATE_KEY: 'deadbeef' }, /^PRIVATE_KEY must be 64 hex digits.*not shown/],
    [{ PRIVATE_KEY: `0x${'a'.repeat(62)}zz` }, /^PRIVATE_KEY must be 64 hex digits.*not shown/],
    // Out of secp256k1's range: zero, the group order n itself, and all ones (above n).
    [
      { PRIVATE_KEY: `0x${'0'.repeat(64)}` },
      /^PRIVATE_KEY is not a usable key: it must be above zero and below the secp256k1 order \(the value is not shown\)/,
    ],
    [{ PRIVATE_KEY: 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141' }, /^PRIVATE_KEY is not a usable key/],
    [{ PRIVATE_KEY: `0x${'f'.repeat(64)}` }, /^PRIVATE_KEY is not a usable key/],
    [{ PLATFORM: 'Ethereum Main' }, /^PLATFORM must be lowercase/],
    [{ NETWORK: 'x'.repeat(41) }, /^NETWORK must be lowercase/],
    [{ TXDESK_KEY_PASSPHRASE: 'short' }, /^TXDESK_KEY_PASSPHRASE must be at least 8 characters/],
    [{ TXDESK_KEYCHAIN: 'maybe' }, /^TXDESK_KEYCHAIN must be on or off/],
    [{ TXDESK_METADATA_ORIGINS: 'http://127.0.0.1:8546/path' }, /^TXDESK_METADATA_ORIGINS must be comma-separated http\(s\) origins/],
    [{ TXDESK_METADATA_ORIGINS: 'http://a.test, file:///etc' }, /^TXDESK_METADATA_ORIGINS must be comma-separated http\(s\) origins/],
  ])('%o is refused with one clear line', (env, line) => {
    const p = problems(env as NodeJS.ProcessEnv);
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(line);
  });

  it('lists every bad variable, one per line, and never echoes a private key', () => {
    const secret = 'ab'.repeat(31);
    const p = problems({ NODE_ENDPOINT: 'nope', PRIVATE_KEY: secret, CLIENT_ID: ' ' + 'x y' });
    expect(p.map((l) => l.split(' ')[0])).toEqual(['CLIENT_ID', 'PRIVATE_KEY', 'NODE_ENDPOINT']);
    expect(p.join('\n')).not.toContain(secret);
  });

  it.each([
    [{ NODE_ENDPOINT: good.NODE_ENDPOINT }, ['TXDESK_SERVICE_URL is not set', 'CLIENT_ID is not set']],
    [{ TXDESK_SERVICE_URL: good.TXDESK_SERVICE_URL, CLIENT_ID: 'x' }, ['NODE_ENDPOINT is not set']],
  ])('a half-configured network is an error: %o', (env, starts) => {
    const p = problems(env);
    expect(p.map((l) => starts.find((s) => l.startsWith(s)))).toEqual(starts);
  });

  it('nothing set: the embedded default, with the default policy', () => {
    const c = loadConfig({ env: {}, saved: {}, dataDir: '/tmp/x' });
    expect(c).toMatchObject({
      mode: 'embedded',
      network: null,
      envPrivateKey: null,
      keyPassphrase: null,
      useKeychain: true,
      metadataOrigins: [],
      policy: defaultPolicy,
      dataDir: '/tmp/x',
    });
  });

  it('metadata origins that may be local are read as origins', () => {
    const c = loadConfig({ env: { TXDESK_METADATA_ORIGINS: 'http://127.0.0.1:8546/, https://meta.local' }, saved: {}, dataDir: '/tmp/x' });
    expect(c.metadataOrigins).toEqual(['http://127.0.0.1:8546', 'https://meta.local']);
  });

  it('a configured network from the environment, key normalised, trailing slash dropped', () => {
    const c = loadConfig({ env: { ...good, PRIVATE_KEY: KEY.slice(2), NETWORK: 'sepolia' }, saved: {}, dataDir: '/tmp/x' });
    expect(c.mode).toBe('configured');
    expect(c.network).toEqual({
      nodeUrl: good.NODE_ENDPOINT,
      serviceUrl: 'http://127.0.0.1:4000',
      clientId: 'abc123',
      platform: null,
      network: 'sepolia',
      origin: { nodeUrl: 'env', serviceUrl: 'env', clientId: 'env', platform: 'env', network: 'env' },
    });
    expect(c.envPrivateKey).toBe(KEY);
  });

  it('saved settings configure a network when the environment does not; the environment wins over them', () => {
    const saved = {
      nodeUrl: 'http://node:1',
      serviceUrl: 'http://svc:2',
      clientId: 'saved',
      network: 'holesky',
      policy: { bumpPercent: 30 },
    };
    expect(loadConfig({ env: {}, saved, dataDir: '/d' }).network).toMatchObject({
      nodeUrl: 'http://node:1',
      clientId: 'saved',
      network: 'holesky',
    });
    const c = loadConfig({ env: { CLIENT_ID: 'env' }, saved, dataDir: '/d', policy: { timeoutMs: 2000 } });
    expect(c.network?.clientId).toBe('env');
    expect(c.network?.origin).toEqual({ nodeUrl: 'saved', serviceUrl: 'saved', clientId: 'env', platform: 'env', network: 'saved' });
    expect(c.policy).toEqual({ ...defaultPolicy, pricing: 'market', bumpPercent: 30, timeoutMs: 2000 });
  });

  it('data dir: explicit, then TXDESK_DATA_DIR, then ~/.txdesk', () => {
    expect(loadConfig({ env: { TXDESK_DATA_DIR: '/from/env' }, saved: {} }).dataDir).toBe('/from/env');
    expect(loadConfig({ env: {}, saved: {} }).dataDir).toMatch(/\.txdesk$/);
  });
});
