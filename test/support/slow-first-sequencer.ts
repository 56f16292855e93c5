// The order test files start in, so the workers finish together: the longest files first. Vitest orders by the
// durations it cached on the last run, but a clean clone (CI) has no cache, and ordered by file size it started the
// 40-second files last, leaving one worker busy alone at the end. So within each project the files that took longest
// (seconds on the 2-core CI box, set-up included) come first in this order, then vitest's own order for the rest.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest first; a file missing here only starts later. Refresh from a run's JSON report when the order drifts. The
 * seconds are one full run's per-file walls on the 2-core box with four workers, files sharing a process per worker
 * (so under load; a clean worktree's `.ci/run`, 2026-11-29); files of 10 s and more, and the slowest of the other two
 * projects.
 */
export const SLOWEST_FILES = [
  'test/service/network/service-back-pressure.test.ts', // 163 s with 100,000 transfers (143 s alone)
  'test/core/core-fault-run.test.ts', // 65 s
  'test/e2e/renderer-truth.test.ts', // 56 s
  'test/service/service-network-isolation.test.ts', // 55 s
  'test/reliability/fuzz-service.test.ts', // 50 s
  'test/core/core-faults.test.ts', // 49 s
  'test/cli/cli-key-export.test.ts', // 46 s
  'test/e2e/renderer-serve.test.ts', // 44 s
  'test/service/service-fleet-listing.test.ts', // 44 s
  'test/reliability/app-edge.test.ts', // 43 s
  'test/service/webhooks/webhook-activity.test.ts', // 42 s
  'test/core/core-market-phases.test.ts', // 41 s
  'test/reliability/security-service.test.ts', // 38 s
  'test/service/network/node-watch.test.ts', // 38 s
  'test/e2e/renderer-send.test.ts', // 37 s
  'test/core/rpc-tools.test.ts', // 35 s
  'test/devchain/devchain-market.test.ts', // 32 s
  'test/e2e/renderer-networks.test.ts', // 32 s
  'test/service/tracker/tracker-service.test.ts', // 30 s
  'test/service/webhooks/webhook-crash.test.ts', // 30 s
  'test/service/webhooks/webhook-outage.test.ts', // 29 s
  'test/cli/cli-commands.test.ts', // 27 s
  'test/cli/command-webhook.test.ts', // 27 s
  'test/service/service-fleet-networks.test.ts', // 27 s
  'test/e2e/config-real-network.test.ts', // 26 s
  'test/service/db/rate-limits-fleet.test.ts', // 25 s
  'test/service/service-fleet.test.ts', // 24 s
  'test/core/core-crash.test.ts', // 22 s
  'test/reliability/crash-short.test.ts', // 21 s
  'test/e2e/renderer-approvals.test.ts', // 21 s
  'test/service/network/service-fleet-step-down.test.ts', // 20 s
  'test/service/listing/listing-store-pg.test.ts', // 20 s
  'test/service/indexer/index-store-pg.test.ts', // 19 s
  'test/service/webhooks/webhook-fleet-limits.test.ts', // 19 s
  'test/devchain/devchain-plan.test.ts', // 19 s
  'test/core/core-congestion.test.ts', // 17 s
  'test/devchain/devchain-congestion.test.ts', // 16 s
  'test/core/rpc-tools-refusals.test.ts', // 16 s
  'test/service/indexer/indexer-standards.test.ts', // 15 s
  'test/core/core-send.test.ts', // 14 s
  'test/e2e/renderer-tokens.test.ts', // 14 s
  'test/service/listing/listing-mixed.test.ts', // 13 s
  'test/service/webhooks/webhook-delivery.test.ts', // 13 s
  'test/service/network/service-networks.test.ts', // 13 s
  'test/service/network/service-failover.test.ts', // 13 s
  'test/service/tracker/tracker-bounds.test.ts', // 13 s
  'test/service/indexer/indexer-call-batch.test.ts', // 12 s
  'test/core/core-http.test.ts', // 12 s
  'test/core/rpc-crash.test.ts', // 11 s
  'test/core/core-retry.test.ts', // 10 s
  'test/service/tracker/tracker-restart.test.ts', // 10 s
  'test/main/electron-main.test.ts', // 18 s (a process of its own)
  'test/cli/cli-accounts.test.ts', // 18 s (a process of its own)
  'test/cli/cli-logout.test.ts', // 10 s (a process of its own)
  'test/core/adapters/vault-file.test.ts', // 16 s (unit)
  'test/service/listing/listing-store.test.ts', // 13 s (unit)
];

/**
 * Projects in the order they run, each one's files together: a worker keeps its process for the next file only when
 * the next file in the queue is of the same non-isolated project (vitest's pool looks at the head of the queue), so
 * files of projects taken in turn would each start a process again. The files that need a process of their own go
 * first, beside the first integration files.
 */
const PROJECT_ORDER = ['integration-own-process', 'integration', 'unit'];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FILES.findIndex((s) => f.moduleId.endsWith(s));
      return i < 0 ? SLOWEST_FILES.length : i;
    };
    const project = (f: TestSpecification) => {
      const i = PROJECT_ORDER.indexOf(f.project.name);
      return i < 0 ? PROJECT_ORDER.length : i;
    };
    const base = await super.sort(files);
    return base
      .map((f, i) => ({ f, i, p: project(f), r: rank(f) }))
      .sort((a, b) => a.p - b.p || a.r - b.r || a.i - b.i)
      .map(({ f }) => f);
  }
}
