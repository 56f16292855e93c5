// The token indexer on a shared database: only the instance holding the indexer lock runs it, into the index every
// instance's listing reads (PostgreSQL, indexer/postgres/indexer-store-postgres.ts). Alone, the indexer just runs.
import type { Logger } from '../../lib/log.js';
import type { Indexer } from '../indexer/indexer.js';
import { startLeadership, type Leadership } from './pg-leadership.js';
import type { SharedDatabase } from './service-database.js';

export interface IndexerRole {
  /** The running indexer, or null on a follower. */
  current(): Indexer | null;
  isLeader(): boolean;
  /** Stops a running (or paused) indexer and starts a new one (a node failover); it resumes from the committed tip. */
  restart(): Promise<void>;
  /** Stops the indexer, keeping the role, until restart() (no node of the network's chain answers). */
  pause(): Promise<void>;
  /** Resolves when the indexer (once this instance runs it) has caught up. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalIndexer(start: () => Indexer | Promise<Indexer>): Promise<IndexerRole> {
  let indexer: Indexer | null = await start();
  let queue: Promise<void> = Promise.resolve();
  const serially = (job: () => Promise<void>) => (queue = queue.then(job));
  const halt = async () => {
    const i = indexer;
    indexer = null;
    await i?.stop();
  };
  return {
    current: () => indexer,
    isLeader: () => true,
    restart: () =>
      serially(async () => {
        await halt();
        indexer = await start();
      }),
    pause: () => serially(halt),
    caughtUp: async () => {
      await queue;
      await indexer?.caughtUp();
    },
    stop: () => serially(halt),
  };
}

/** `db`: the shared database, the network's lock class and whether this instance may lead now (service-database.ts). */
export function startLeaderIndexer(
  db: Pick<SharedDatabase, 'url' | 'lockClass' | 'mayLead'>,
  start: () => Indexer | Promise<Indexer>,
  log: Logger,
): IndexerRole {
  let indexer: Indexer | null = null;
  let leadership: Leadership | null = null;
  let becameLeader: () => void = () => {};
  const leading = new Promise<void>((resolve) => (becameLeader = resolve));
  leadership = startLeadership(
    db.url,
    'indexer',
    log,
    {
      async onAcquire() {
        indexer = await start();
        becameLeader();
      },
      async onLose() {
        const i = indexer;
        indexer = null;
        await i?.stop();
      },
    },
    { lockClass: db.lockClass, ...(db.mayLead ? { mayLead: db.mayLead } : {}) },
  );
  return {
    current: () => indexer,
    isLeader: () => leadership?.isLeader() ?? false,
    async restart() {
      if (!leadership?.isLeader()) return;
      const i = indexer;
      indexer = null;
      await i?.stop();
      if (leadership.isLeader()) indexer = await start();
    },
    async pause() {
      const i = indexer;
      indexer = null;
      await i?.stop();
    },
    caughtUp: async () => {
      await leading;
      await indexer?.caughtUp();
    },
    stop: async () => {
      await leadership?.stop();
    },
  };
}
