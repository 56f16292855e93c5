// The token indexer on a shared database: only the instance holding the indexer lock runs it, into the index every
// instance's listing reads (PostgreSQL, indexer/postgres/indexer-store-postgres.ts). Alone, the indexer just runs.
import type { Logger } from '../../lib/log.js';
import type { Indexer } from '../indexer/index.js';
import { startLeadership, type Leadership } from './pg-leadership.js';

export interface IndexerRole {
  /** The running indexer, or null on a follower. */
  current(): Indexer | null;
  isLeader(): boolean;
  /** Stops a running indexer and starts a new one (a node failover); it resumes from the committed tip. */
  restart(): Promise<void>;
  /** Resolves when the indexer (once this instance runs it) has caught up. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalIndexer(start: () => Indexer | Promise<Indexer>): Promise<IndexerRole> {
  let indexer = await start();
  let restarting: Promise<void> = Promise.resolve();
  return {
    current: () => indexer,
    isLeader: () => true,
    restart: () =>
      (restarting = restarting.then(async () => {
        await indexer.stop();
        indexer = await start();
      })),
    caughtUp: () => indexer.caughtUp(),
    stop: () => restarting.then(() => indexer.stop()),
  };
}

/** `db`: the shared database and the network's lock class (service-database.ts). */
export function startLeaderIndexer(db: { url: string; lockClass: number }, start: () => Indexer | Promise<Indexer>, log: Logger): IndexerRole {
  let indexer: Indexer | null = null;
  let leadership: Leadership | null = null;
  let becameLeader: () => void = () => {};
  const leading = new Promise<void>((resolve) => (becameLeader = resolve));
  leadership = startLeadership(db.url, 'indexer', log, {
    async onAcquire() {
      indexer = await start();
      becameLeader();
    },
    async onLose() {
      const i = indexer;
      indexer = null;
      await i?.stop();
    },
  }, { lockClass: db.lockClass });
  return {
    current: () => indexer,
    isLeader: () => leadership?.isLeader() ?? false,
    async restart() {
      const i = indexer;
      if (!i) return;
      await i.stop();
      if (indexer !== i) return;
      indexer = await start();
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
