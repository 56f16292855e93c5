// `npm run test:soak`: the long reliability runs (crash loops, the 60 s load test) on real processes; one file at a time
// so their figures are not skewed by each other, with timeouts sized for 2 shared cores.
import { defineConfig } from 'vitest/config';
import { trackerSourceAlias } from './vitest.config.js';

export default defineConfig({
  resolve: { alias: trackerSourceAlias },
  test: {
    include: ['test/soak/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30 * 60_000,
    hookTimeout: 5 * 60_000,
    teardownTimeout: 60_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
