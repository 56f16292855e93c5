// Leadership of one role (indexer, watcher) among the instances on one database: a session-level advisory lock held
// on a dedicated connection. PostgreSQL drops the lock the moment that connection ends (the process died, was killed,
// or lost the database), and a waiting instance takes it at its next try. A leader that may not lead any more (its
// node link is broken: `mayLead`) stops its role first, then releases the lock, and tries again only once it may.
import pg from 'pg';
import type { Logger } from '../../lib/log.js';
import { LOCK_CLASS, LOCKS, type LockName } from './pg-locks.js';

export interface LeadershipHooks {
  /** Called once this instance holds the lock; the role starts here. */
  onAcquire(): Promise<void> | void;
  /** Called when the lock's connection is lost while leading; the role must stop (another instance may take it). */
  onLose(): Promise<void> | void;
}

export interface LeadershipOptions {
  /** How often a follower tries the lock, and a leader checks its connection (default 2 s). */
  retryMs?: number;
  /** The network's lock class (networkLockClass); LOCK_CLASS, the default network's, unless set. */
  lockClass?: number;
  /**
   * Whether this instance may hold the role now (asked at every try, every `retryMs`): false steps a leader down (its
   * role stops, then the lock is released for a healthy instance) and keeps a follower from taking the lock.
   */
  mayLead?: () => boolean;
}

export interface Leadership {
  isLeader(): boolean;
  /** Stops trying; a leader calls onLose and releases the lock. */
  stop(): Promise<void>;
}

export function startLeadership(
  url: string,
  role: LockName,
  log: Logger,
  hooks: LeadershipHooks,
  opts: LeadershipOptions = {},
): Leadership {
  const retryMs = opts.retryMs ?? 2_000;
  let client: pg.Client | null = null;
  let leader = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let busy: Promise<void> = Promise.resolve();

  /**
   * Ends the lock's connection. On a stop the role stops first and the lock goes after it, so the next leader never
   * runs beside this one; a lost connection has already released the lock, so the role stops as soon as it can.
   */
  async function drop(reason: string): Promise<void> {
    const c = client;
    client = null;
    c?.removeAllListeners('error');
    c?.on('error', () => {});
    if (stopped && leader) {
      leader = false;
      log.info(`handing over the ${role} leadership (${reason})`);
      await stopRole();
    }
    await c?.end().catch(() => {});
    if (leader) {
      leader = false;
      log.warn(`lost the ${role} leadership (${reason}); stopping the ${role} here`);
      await stopRole();
    }
  }

  const stopRole = () =>
    Promise.resolve(hooks.onLose()).catch((e) => log.error(`stopping the ${role} failed: ${e instanceof Error ? e.message : String(e)}`));

  async function attempt(): Promise<void> {
    if (stopped) return;
    try {
      if (!client) {
        // A query that hangs (a half-open connection) counts as a lost connection after this long.
        const c = new pg.Client({
          connectionString: url,
          keepAlive: true,
          query_timeout: Math.max(retryMs * 2, 4_000),
          application_name: `txdesk-${role}-lock`,
        });
        c.on('error', (e) => void schedule(() => drop(e.message)));
        await c.connect();
        client = c;
      }
      const may = opts.mayLead?.() ?? true;
      if (leader && !may) return await stepDown(client);
      if (leader) {
        await client.query('SELECT 1');
        return;
      }
      if (!may) return;
      const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
        opts.lockClass ?? LOCK_CLASS,
        LOCKS[role],
      ]);
      if (r.rows[0]?.ok && !stopped) {
        leader = true;
        log.info(`this instance is the ${role} leader`);
        await hooks.onAcquire();
      }
    } catch (e) {
      await drop(e instanceof Error ? e.message : String(e));
    }
  }

  /** The role stops before the lock goes: the instance taking it over never runs beside this one. */
  async function stepDown(c: pg.Client): Promise<void> {
    leader = false;
    log.warn(`stepping down as the ${role} leader (this instance cannot use any node of the network); another instance may take the role`);
    await stopRole();
    await c.query('SELECT pg_advisory_unlock($1, $2)', [opts.lockClass ?? LOCK_CLASS, LOCKS[role]]);
  }

  function schedule(fn: () => Promise<void>): Promise<void> {
    busy = busy.then(fn, fn);
    return busy;
  }

  function loop(): void {
    void schedule(attempt).finally(() => {
      if (!stopped) {
        timer = setTimeout(loop, retryMs);
        timer.unref();
      }
    });
  }
  loop();

  return {
    isLeader: () => leader,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await schedule(() => drop('stopping'));
    },
  };
}
