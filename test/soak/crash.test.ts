// SIGKILL of the data service and of the app core at random points while 200 transactions are generated (POST /api/tx),
// replaced (high congestion) and confirmed; see test/support/faults/reliability-crash.ts for what is checked after the run.
import { describe, it } from 'vitest';
import { printCrashFigures, runCrashScenario } from '../support/faults/reliability-crash.js';

const TARGET = Number(process.env.TXDESK_SOAK_TXS ?? 200);
const KILLS = Number(process.env.TXDESK_SOAK_KILLS ?? 10);

describe('SIGKILL of the data service and the app core under load', () => {
  it(`loses nothing across ${KILLS} random kills while ${TARGET} transactions are generated, replaced and confirmed`, async () => {
    // ~0.25 s between POSTs spreads generation over the first kills; the rest land during replacements and confirmations.
    printCrashFigures('soak', await runCrashScenario({ target: TARGET, kills: KILLS, postPauseMs: 400 }));
  });
});
