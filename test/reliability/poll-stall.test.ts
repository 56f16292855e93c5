// The tests' polling (test/support/poll.js) survives a process that stands still: a child polling with a 5 s budget is
// stopped (SIGSTOP) for 7 s, once between polls and once in the middle of a slow check, and still gets the rest of
// its budget afterwards, saying that it stood still; without the stall-aware deadline its first poll after the pause
// would fail.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { it } from 'vitest';

const poll = join(import.meta.dirname, '..', 'support', 'poll.js');

// Polls a condition that becomes true only after 10 polls made after the pause, so it needs time after the pause.
// With SLOW_CHECK, the first check takes 2 s, so the pause hits the check rather than the wait between polls.
const CHILD = `
import { waitFor } from ${JSON.stringify(poll)};
let resumed = false;
let after = 0;
let first = process.env.SLOW_CHECK === '1';
process.on('SIGCONT', () => (resumed = true));
console.log('polling');
try {
  await waitFor('ten polls after the pause', async () => {
    if (first) {
      first = false;
      await new Promise((r) => setTimeout(r, 2_000));
    }
    return resumed && ++after >= 10;
  }, { timeoutMs: 5_000, everyMs: 100 });
  console.log('done');
} catch (e) {
  console.log(e.message);
}
`;

// The two cases stop different children, so they run at the same time (each stands still for 7 s).
it.for([
  ['between polls', '0'],
  ['in the middle of a slow check', '1'],
] as const)(
  'does not count time the process stood still (%s) against the deadline',
  { concurrent: true, timeout: 60_000 },
  async ([, slowCheck], { expect }) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SLOW_CHECK: slowCheck },
    });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += String(b)));
    const lines = createInterface({ input: child.stdout });
    const out: string[] = [];
    const polling = new Promise<void>((resolve) => lines.on('line', (l) => (out.push(l), l === 'polling' && resolve())));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await polling;
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 7_000));
    child.kill('SIGCONT');
    await exited;
    expect(out).toEqual(['polling', 'done']);
    expect(stderr).toMatch(/stood still for [67] s/);
  },
);
