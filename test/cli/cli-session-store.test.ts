// The session token store: keychain first, a 0600 file with a warning when the keychain fails, logout clears both.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSessionStore, tokenExpiry, type OpenKeychainEntry } from '../../src/cli/session-store.js';

const origin = 'http://127.0.0.1:4000';

/** An in-memory keychain, or one that throws like @napi-rs/keyring without a Secret Service. */
function fakeKeychain(available: boolean) {
  const items = new Map<string, string>();
  const open: OpenKeychainEntry = (service, account) => {
    const key = `${service}/${account}`;
    const guard = () => {
      if (!available) throw new Error('Platform failure: DBus error: Failed to connect to socket /nonexistent');
    };
    return {
      get: () => (guard(), items.get(key) ?? null),
      set: (s) => (guard(), void items.set(key, s)),
      delete: () => (guard(), items.delete(key)),
    };
  };
  return { items, open, setAvailable: (v: boolean) => (available = v) };
}

describe('session store', () => {
  const dirs: string[] = [];
  const configDir = () => {
    const d = join(mkdtempSync(join(tmpdir(), 'txdesk-cli-session-')), 'txdesk');
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(join(d, '..'), { recursive: true, force: true });
  });

  it('keeps the token in the keychain under (txdesk, origin) and writes no file', () => {
    const keychain = fakeKeychain(true);
    const store = openSessionStore({ configDir: configDir(), openEntry: keychain.open });
    expect(store.save(origin, 'tok-1')).toEqual({ location: 'keychain' });
    expect(keychain.items.get(`txdesk/${origin}`)).toBe('tok-1');
    expect(() => statSync(store.file)).toThrow();
    expect(store.load(origin)).toEqual({ token: 'tok-1', location: 'keychain' });
    expect(store.load('http://other:1')).toBeNull();
    expect(store.remove(origin)).toBe(true);
    expect(store.load(origin)).toBeNull();
    expect(store.remove(origin)).toBe(false);
  });

  it('falls back to a 0600 file with a one-line warning when the keychain fails', () => {
    const keychain = fakeKeychain(false);
    const store = openSessionStore({ configDir: configDir(), openEntry: keychain.open });
    const saved = store.save(origin, 'tok-2');
    expect(saved.location).toBe('file');
    expect(saved.warning).toMatch(
      /^Warning: no OS keychain available \(Platform failure: DBus error: .*\); the session token is saved in .*session\.json, readable only by you\.$/,
    );
    expect(saved.warning).not.toContain('\n');
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(store.file, '..')).mode & 0o077).toBe(0);
    expect(JSON.parse(readFileSync(store.file, 'utf8')).sessions[origin].token).toBe('tok-2');
    expect(store.load(origin)).toEqual({ token: 'tok-2', location: 'file' });
    expect(store.remove(origin)).toBe(true);
    expect(() => statSync(store.file)).toThrow(); // the last session gone, the file goes too
  });

  it('TXDESK_KEYCHAIN=off (useKeychain false) never touches the keychain', () => {
    const keychain = fakeKeychain(true);
    const store = openSessionStore({ configDir: configDir(), openEntry: keychain.open, useKeychain: false });
    expect(store.save(origin, 'tok').warning).toContain('turned off by TXDESK_KEYCHAIN=off');
    expect(keychain.items.size).toBe(0);
  });

  it('a keychain login replaces a file session from before, and logout clears both places', () => {
    const keychain = fakeKeychain(false);
    const dir = configDir();
    const store = openSessionStore({ configDir: dir, openEntry: keychain.open });
    store.save(origin, 'old');
    store.save('http://other:1', 'other');
    keychain.setAvailable(true);
    store.save(origin, 'new');
    expect(store.load(origin)).toEqual({ token: 'new', location: 'keychain' });
    expect(JSON.parse(readFileSync(store.file, 'utf8')).sessions).toEqual({ 'http://other:1': { token: 'other' } });
    expect(store.remove('http://other:1')).toBe(true);
  });

  it('a damaged session file reads as no session', () => {
    const dir = configDir();
    const store = openSessionStore({ configDir: dir, openEntry: fakeKeychain(false).open });
    store.save(origin, 'x');
    writeFileSync(store.file, 'garbage');
    expect(store.load(origin)).toBeNull();
  });
});

describe('tokenExpiry', () => {
  const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
  it.each([
    [jwt({ exp: 1700000000 }), 1700000000],
    [jwt({ sub: '1' }), null],
    [jwt({ exp: 'soon' }), null],
    ['opaque-token', null],
    ['a.!!!.c', null],
  ])('%s -> %s', (token, exp) => expect(tokenExpiry(token)).toBe(exp));
});
