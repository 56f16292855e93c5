// Settings read back from disk are validated field by field: a tampered electron-store file (the desktop app's store,
// opened by the real electron-store and conf under Node; only the `electron` module itself, whose binary is not
// installed here, is replaced by an empty one) and a tampered settings.json keep their valid fields and lose the bad
// ones, so no bad fee cap, URL or flag ever reaches the core.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createFileSettingsStore } from '../../../src/core/adapters/settings/settings-file.js';
import { validatePersistedSettings } from '../../../src/core/adapters/settings/settings-validate.js';
import { loadConfig } from '../../../src/core/config.js';
import type { Logger } from '../../../src/lib/log.js';
import { createElectronSettingsStore } from '../../../src/main/settings-electron-store.js';

// Outside Electron, electron-store finds no `app` and uses the absolute cwd it is given, as it would in main.
vi.mock('electron', () => ({ default: {} }));

const dir = mkdtempSync(join(tmpdir(), 'txdesk-settings-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const warnings: string[] = [];
const log: Logger = { info: () => {}, warn: (m) => warnings.push(m), error: () => {}, child: () => log };

/** What an attacker or a broken editor could leave in the file, beside fields that are fine. */
const tampered = {
  clientId: 'client-1',
  signedInAs: 'not an e-mail',
  nodeUrl: 'javascript:alert(1)',
  serviceUrl: 'http://127.0.0.1:4000',
  platform: 'Ethereum Mainnet',
  network: 'sepolia',
  localApi: 'yes',
  policy: { maxFeeWei: 'a lot', bumpPercent: 1000000, maxReplacements: 3, initialFeeWei: 1e30, txType: 'eip1559' },
  extra: { anything: true },
};
const kept = {
  clientId: 'client-1',
  serviceUrl: 'http://127.0.0.1:4000',
  network: 'sepolia',
  policy: { maxReplacements: 3, txType: 'eip1559' },
};

describe('settings read back', () => {
  it('a tampered electron-store file keeps its valid fields and drops the rest, with a warning naming them', () => {
    const cwd = join(dir, 'electron');
    createElectronSettingsStore(cwd, log).save({ clientId: 'client-1' });
    const file = join(cwd, 'settings.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ settings: { clientId: 'client-1' } });
    writeFileSync(file, JSON.stringify({ settings: tampered }));
    warnings.length = 0;
    expect(createElectronSettingsStore(cwd, log).load()).toEqual(kept);
    expect(warnings.join('\n')).toMatch(
      /nodeUrl, platform, localApi, signedInAs, policy\.initialFeeWei, policy\.bumpPercent, policy\.maxFeeWei/,
    );
    // The core starts on what is left: the defaults stand in for the dropped fields.
    const config = loadConfig({ env: { NODE_ENDPOINT: 'http://127.0.0.1:8545' }, saved: createElectronSettingsStore(cwd, log).load() });
    expect(config.policy).toMatchObject({ maxFeeWei: '500000000000', bumpPercent: 12.5, maxReplacements: 3 });
  });

  it('an electron-store file that is not JSON, or whose settings are not an object, gives the defaults', () => {
    const cwd = join(dir, 'electron-broken');
    createElectronSettingsStore(cwd, log).save({});
    for (const text of [
      '{not json',
      JSON.stringify({ settings: [1, 2] }),
      JSON.stringify({ settings: 'x' }),
      JSON.stringify({ settings: null }),
    ]) {
      writeFileSync(join(cwd, 'settings.json'), text);
      expect(createElectronSettingsStore(cwd, log).load()).toEqual({});
    }
  });

  it('settings.json gets the same treatment', () => {
    const dataDir = join(dir, 'headless');
    createFileSettingsStore(dataDir, log).save({});
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(tampered));
    expect(createFileSettingsStore(dataDir, log).load()).toEqual(kept);
  });

  it.each([
    ['a cap below the first fee drops both', { initialFeeWei: '1000', maxFeeWei: '999' }, {}],
    ['a cap below the default first fee drops the cap', { maxFeeWei: '5' }, {}],
    ['a cap above a saved first fee is kept', { initialFeeWei: '1000', maxFeeWei: '1000' }, { initialFeeWei: '1000', maxFeeWei: '1000' }],
  ])('%s', (_name, policy, expected) => {
    expect(validatePersistedSettings({ policy }).settings.policy).toEqual(expected);
  });

  it('keeps a valid localApi and drops non-objects', () => {
    expect(validatePersistedSettings({ localApi: true }).settings).toEqual({ localApi: true });
    expect(validatePersistedSettings([1]).dropped).toEqual(['settings']);
    expect(validatePersistedSettings({ policy: 'x' }).dropped).toEqual(['policy']);
  });
});
