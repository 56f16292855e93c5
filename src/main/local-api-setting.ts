// Whether the desktop app serves the localhost API: only when the user turned Settings > localApi on (read at start;
// a change applies after a restart). The window itself never needs it (IPC), and key routes stay IPC-only even then.
import type { CoreOptions } from '../core/create-core.js';
import type { PersistedSettings } from '../core/ports.js';
import { DEFAULT_APP_PORT } from '../shared/defaults.js';

export function httpFromLocalApiSetting(saved: PersistedSettings, rendererDir: string): CoreOptions['http'] {
  return saved.localApi === true ? { port: DEFAULT_APP_PORT, rendererDir, allowKeyRoutes: false } : false;
}
