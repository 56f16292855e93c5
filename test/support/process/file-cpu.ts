// Setup file of every project: with TXDESK_TEST_CPU_LOG=<file> set, appends one JSON line per test file with the CPU
// seconds its worker process spent on it (imports included), those of the child processes it started and reaped
// (anvil, txdesk, Chromium, tool scripts), and its wall seconds. bench/suite-cpu runs the suite with it and prints
// where the CPU goes. Files run one at a time in a worker, so the differences are the file's own. Linux /proc.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

const logFile = process.env.TXDESK_TEST_CPU_LOG;

/** CPU seconds of this process's reaped children (cutime + cstime, in clock ticks of 1/100 s). */
function childrenCpuS(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

if (logFile) {
  // Module evaluation: before the test file is imported, so its imports count.
  const self0 = process.cpuUsage();
  const children0 = childrenCpuS();
  const wall0 = performance.now();
  afterAll(() => {
    const self = process.cpuUsage(self0);
    const line = {
      file: expect.getState().testPath,
      selfS: (self.user + self.system) / 1e6,
      childrenS: childrenCpuS() - children0,
      wallS: (performance.now() - wall0) / 1000,
    };
    appendFileSync(logFile, `${JSON.stringify(line)}\n`);
  });
}
