// A leader that may no longer lead (its node link is broken) steps down on PostgreSQL: its role stops before the lock
// is released, another instance takes the lock, and the one that stepped down takes it again only by the normal
// election once it may lead.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { startLeadership, type Leadership } from '../../../src/service/db/pg-leadership.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { waitFor } from '../../support/poll.js';

let db: TestDatabase;
const running: Leadership[] = [];
beforeAll(async () => {
  db = await createTestDatabase('leadership');
});
afterAll(async () => {
  for (const l of running) await l.stop();
  await db?.drop();
});

it('steps down while it may not lead, hands the role over without overlap, and stays a follower after', async () => {
  const events: string[] = [];
  let aMay = true;
  /** Whoever runs the role now: a second onAcquire while one runs would be two leaders at once. */
  let holder: string | null = null;
  const hooks = (name: string) => ({
    onAcquire() {
      events.push(`${name} acquires`);
      expect(holder, `${name} acquired while ${holder} still ran the role`).toBeNull();
      holder = name;
    },
    async onLose() {
      // Stopping a role takes a while (an indexer finishing its write): the lock must still be held meanwhile.
      await new Promise((r) => setTimeout(r, 300));
      events.push(`${name} loses`);
      holder = null;
    },
  });
  const a = startLeadership(db.url, 'indexer', silentLogger, hooks('A'), { retryMs: 100, mayLead: () => aMay });
  running.push(a);
  await waitFor('A leading', () => a.isLeader(), { timeoutMs: 10_000, everyMs: 20 });
  const b = startLeadership(db.url, 'indexer', silentLogger, hooks('B'), { retryMs: 100 });
  running.push(b);

  aMay = false;
  await waitFor('B leading', () => b.isLeader(), { timeoutMs: 10_000, everyMs: 20 });
  expect(a.isLeader()).toBe(false);
  expect(events).toEqual(['A acquires', 'A loses', 'B acquires']);

  // A may lead again: it does not take the role from B (there is no preemption), only when B goes.
  aMay = true;
  await new Promise((r) => setTimeout(r, 500)); // several of A's tries
  expect([a.isLeader(), b.isLeader()]).toEqual([false, true]);
  await b.stop();
  await waitFor('A leading again', () => a.isLeader(), { timeoutMs: 10_000, everyMs: 20 });
  expect(events).toEqual(['A acquires', 'A loses', 'B acquires', 'B loses', 'A acquires']);
});

it('does not take a free lock while it may not lead', async () => {
  let may = false;
  const c = startLeadership(db.url, 'watcher', silentLogger, { onAcquire() {}, onLose() {} }, { retryMs: 50, mayLead: () => may });
  running.push(c);
  await new Promise((r) => setTimeout(r, 300));
  expect(c.isLeader()).toBe(false);
  may = true;
  await waitFor('C leading once it may', () => c.isLeader(), { timeoutMs: 10_000, everyMs: 20 });
});
