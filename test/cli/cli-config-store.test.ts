// Where the CLI keeps its config, and which endpoint wins: TXDESK_ENDPOINT, then the config file, then the default.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configDir, defaultEndpoint, openConfigStore, resolveEndpoint, userDataDir } from '../../src/cli/config-store.js';

const home = '/home/ada';

describe('configDir', () => {
  it.each([
    [{ TXDESK_CONFIG_DIR: '/tmp/x' }, 'linux', '/tmp/x'],
    [{}, 'linux', '/home/ada/.config/txdesk'],
    [{ XDG_CONFIG_HOME: '/xdg' }, 'linux', '/xdg/txdesk'],
    [{ XDG_CONFIG_HOME: 'relative' }, 'linux', '/home/ada/.config/txdesk'],
    [{}, 'darwin', '/home/ada/Library/Application Support/txdesk'],
    [{ APPDATA: '/appdata' }, 'win32', join('/appdata', 'txdesk')],
  ] as const)('%j on %s -> %s', (env, platform, dir) => {
    expect(configDir({ env: { ...env }, platform, home })).toBe(dir);
  });

  it('user data dir follows XDG_DATA_HOME', () => {
    expect(userDataDir({ env: {}, platform: 'linux', home })).toBe('/home/ada/.local/share/txdesk');
    expect(userDataDir({ env: { XDG_DATA_HOME: '/d' }, platform: 'linux', home })).toBe('/d/txdesk');
  });
});

describe('config store and endpoint', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'txdesk-cli-config-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('reads nothing from a missing file and keeps unknown keys on update', () => {
    const dir = join(tempDir(), 'nested', 'txdesk');
    const store = openConfigStore(dir);
    expect(store.read()).toEqual({});
    store.update({ endpoint: 'http://a:1' });
    writeFileSync(store.file, JSON.stringify({ endpoint: 'http://a:1', future: 42 }));
    store.update({ endpoint: 'http://b:2' });
    expect(JSON.parse(readFileSync(store.file, 'utf8'))).toEqual({ endpoint: 'http://b:2', future: 42 });
  });

  it.skipIf(process.platform !== 'linux')('a folder that cannot be made is one clear error, not a hang (Node 20 loops on /proc)', () => {
    const store = openConfigStore('/proc/txdesk-test-config');
    expect(() => store.update({ endpoint: 'http://a:1' })).toThrow(
      'Cannot create the folder /proc/txdesk-test-config (ENOENT): set TXDESK_CONFIG_DIR to a folder you can write.',
    );
  });

  it('a damaged file is one clear error with exit code 2', () => {
    const store = openConfigStore(tempDir());
    writeFileSync(store.file, '{ not json');
    expect(() => store.read()).toThrow(/is not valid JSON: fix it or delete it/);
  });

  it.each([
    [{}, {}, defaultEndpoint, 'default'],
    [{}, { endpoint: 'http://cfg:1/' }, 'http://cfg:1', 'config'],
    [{ TXDESK_ENDPOINT: 'https://env.example/' }, { endpoint: 'http://cfg:1' }, 'https://env.example', 'TXDESK_ENDPOINT'],
    [{ TXDESK_ENDPOINT: '' }, { endpoint: 'http://cfg:1' }, 'http://cfg:1', 'config'],
  ])('env %j + config %j -> %s (%s)', (env, config, url, source) => {
    expect(resolveEndpoint(env, config, '/c.json')).toEqual({ url, source });
  });

  it('names the bad variable or file', () => {
    expect(() => resolveEndpoint({ TXDESK_ENDPOINT: 'nope' }, {}, '/c.json')).toThrow(/^TXDESK_ENDPOINT "nope" is not a valid service URL/);
    expect(() => resolveEndpoint({}, { endpoint: 'ftp://x' }, '/c.json')).toThrow(/in \/c\.json is not a valid URL/);
  });
});
