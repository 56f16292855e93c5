// The order test files start in, so the two workers finish together: the longest files first. Vitest orders by the
// durations it cached on the last run, but a clean clone (CI) has no cache, and ordered by file size it started the
// 40-second files last, leaving one worker busy alone at the end. So the files that took longest (seconds on the
// 2-core CI box, set-up included) come first in this order, then vitest's own order for the rest, integration before
// unit (vitest sorts projects by name).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first; a file missing here only starts later. Refresh from a run's JSON report when the order drifts. */
export const SLOWEST_FILES = [
  'test/service/webhooks/webhook-outage.test.ts', // 80 s, most of it the minute its receiver is down (a wait, not work)
  'test/service/service-fleet-listing.test.ts', // 52 s
  'test/service/webhooks/webhook-crash.test.ts', // 40-54 s, 30 s of it a claim's lease running out
  'test/service/service-fleet-networks.test.ts', // 45-50 s on a busy box
  'test/core/core-faults.test.ts', // 45 s
  'test/e2e/renderer-truth.test.ts', // 43 s
  'test/core/core-fault-run.test.ts', // 38 s
  'test/reliability/fuzz-service.test.ts', // 34 s
  'test/e2e/renderer-serve.test.ts', // 25 s
  'test/cli/command-webhook.test.ts', // 25 s
  'test/e2e/config-real-network.test.ts', // 20 s
  'test/service/service-listing.test.ts', // 20 s
  'test/reliability/app-edge.test.ts', // 19 s
  'test/e2e/renderer-approvals.test.ts', // 19 s
  'test/service/tracker/tracker-service.test.ts', // 15 s
  'test/service/webhooks/webhook-delivery.test.ts', // 12 s
  'test/service/network/service-networks.test.ts', // 15 s
  'test/devchain/devchain-congestion.test.ts', // 15 s
  'test/core/core-congestion.test.ts', // 14 s
  'test/service/tracker/tracker-bounds.test.ts', // 14 s
  'test/core/core-send.test.ts', // 14 s
  'test/e2e/renderer-send.test.ts', // 14 s
  'test/cli/cli-commands.test.ts', // 13 s
  'test/service/service-fleet.test.ts', // 12 s
  'test/cli/cli-accounts.test.ts', // 12 s
  'test/core/rpc-libraries.test.ts', // 11 s
  'test/core/core-retry.test.ts', // 11 s
  'test/service/listing/listing-mixed.test.ts', // 11 s
  'test/reliability/security-service.test.ts', // 10 s
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FILES.findIndex((s) => f.moduleId.endsWith(s));
      return i < 0 ? SLOWEST_FILES.length : i;
    };
    const base = await super.sort(files);
    return base.map((f, i) => ({ f, i, r: rank(f) })).sort((a, b) => a.r - b.r || a.i - b.i).map(({ f }) => f);
  }
}
