// The data service's entry for the CLI, the embedded default, benches and tests: starting it (start-service.ts), the
// dev service (dev-service.ts) and the types and defaults that go with them.
export { startService } from './start-service.js';
export { startDevService, type DevService, type DevServiceOptions } from './dev-service.js';
export {
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  DEFAULT_REFRESH_RATE_LIMIT_PER_MINUTE,
  DEFAULT_SERVICE_PORT,
  WEBHOOK_TESTS_PER_MINUTE,
  type RunningService,
  type ServiceOptions,
  type ServiceRole,
} from './service-options.js';
export type { Accounts } from './accounts/accounts.js';
export type { NetworkConfig } from './network/network-config.js';
export type { ServedNetwork, NetworkReport } from './network/served-network.js';
