// The desktop app's port 3000: off unless Settings > localApi is on, never with key routes; a changed setting is
// reported as pending a restart (Electron), never headless (txdesk serve always serves).
import { describe, expect, it } from 'vitest';
import { createMemorySettingsStore } from '../../src/core/adapters/settings/settings-file.js';
import { defaultPolicy } from '../../src/core/config.js';
import { createSettingsManager } from '../../src/core/services/settings-manager.js';
import { httpFromLocalApiSetting } from '../../src/main/local-api-setting.js';

const running = {
  nodeUrl: 'http://127.0.0.1:8545',
  serviceUrl: 'http://127.0.0.1:4000',
  platform: 'ethereum',
  network: 'local',
  clientId: 'c',
};

describe('localApi', () => {
  it('serves port 3000 only when turned on, without key routes', () => {
    expect(httpFromLocalApiSetting({}, '/r')).toBe(false);
    expect(httpFromLocalApiSetting({ localApi: false }, '/r')).toBe(false);
    expect(httpFromLocalApiSetting({ localApi: true }, '/r')).toEqual({ port: 3000, rendererDir: '/r', allowKeyRoutes: false });
  });

  it('is off by default and, changed, waits for a restart in the desktop app only', () => {
    const desktop = createSettingsManager({
      store: createMemorySettingsStore(),
      running: { ...running, localApi: false },
      policy: defaultPolicy,
      embedded: true,
    });
    expect(desktop.get()).toMatchObject({ localApi: false, pendingRestart: [] });
    expect(desktop.update({ localApi: true })).toMatchObject({ localApi: true, pendingRestart: ['localApi'] });
    const headless = createSettingsManager({ store: createMemorySettingsStore(), running, policy: defaultPolicy, embedded: true });
    expect(headless.update({ localApi: true }).pendingRestart).toEqual([]);
  });
});
