// The short crash test of every CI run: one SIGKILL of the data service and one of the app core while 20 transactions
// are generated, replaced and confirmed (the 200-transaction, 10-kill version runs in `npm run test:soak`).
import { describe, it } from 'vitest';
import { printCrashFigures, runCrashScenario } from '../support/faults/reliability-crash.js';

describe('SIGKILL of the data service and the app core (short)', () => {
  it(
    'loses nothing, uses no nonce twice, drains the tracker outbox and keeps both stores intact',
    async () => {
      const figures = await runCrashScenario({
        target: 20,
        kills: ['service', 'core'],
        pauseMs: { min: 500, spread: 2_500 },
        settleTimeoutMs: 5 * 60_000,
      });
      printCrashFigures('reliability', figures);
    },
    10 * 60_000,
  );
});
