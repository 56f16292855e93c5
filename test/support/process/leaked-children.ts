// Setup file of the integration projects: a test file must stop the processes it starts (anvil, txdesk, PostgreSQL,
// Chromium, tool scripts). Files share a worker's process, so a child left running would outlive its file, take CPU
// from every later one and hold ports and data dirs. After the file's own hooks, any child of this process that was
// not there when the file began and is still running 2 s later fails the file, named, and is killed.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

/** Running children of this process (zombies are exited: Node reaps them), with their command lines. Linux only. */
function runningChildren(): Map<number, string> {
  const out = new Map<number, string>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${process.pid}/task`);
  } catch {
    return out; // no /proc: not checked
  }
  for (const tid of tasks) {
    let pids: number[] = [];
    try {
      pids = readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      continue; // the thread ended meanwhile
    }
    for (const pid of pids) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat[stat.lastIndexOf(')') + 2] === 'Z') continue;
        out.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().slice(0, 200));
      } catch {
        // it exited while being read
      }
    }
  }
  return out;
}

let atStart = new Map<number, string>();

beforeAll(() => {
  atStart = runningChildren();
});

afterAll(async () => {
  const left = () => [...runningChildren()].filter(([pid]) => !atStart.has(pid));
  // A child told to stop may take a moment to exit (a graceful shutdown, a watchdog's escalation).
  for (let i = 0; i < 20 && left().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  const leaked = left();
  if (leaked.length === 0) return;
  for (const [pid] of leaked) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  throw new Error(
    `This test file left ${leaked.length} process(es) running; stop what it starts in its afterAll:\n` +
      leaked.map(([pid, cmd]) => `  ${pid} ${cmd}`).join('\n'),
  );
});
