// The token indexer on a shared database: only the instance holding the indexer lock runs it, into the index every
// instance's listing reads (PostgreSQL, indexer/postgres/indexer-store-postgres.ts). Alone, the indexer just runs.
import type { Logger } from '../../lib/log.js';
import type { Indexer } from '../indexer/index.js';
import { startLeadership, type Leadership } from './pg-leadership.js';

export interface IndexerRole {
  /** The running indexer, or null on a follower. */
  current(): Indexer | null;
  isLeader(): boolean;
  /** Resolves when the indexer (once this instance runs it) has caught up. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalIndexer(start: () => Indexer | Promise<Indexer>): Promise<IndexerRole> {
  const indexer = await start();
  return { current: () => indexer, isLeader: () => true, caughtUp: () => indexer.caughtUp(), stop: () => indexer.stop() };
}

export function startLeaderIndexer(url: string, start: () => Indexer | Promise<Indexer>, log: Logger): IndexerRole {
  let indexer: Indexer | null = null;
  let leadership: Leadership | null = null;
  let becameLeader: () => void = () => {};
  const leading = new Promise<void>((resolve) => (becameLeader = resolve));
  leadership = startLeadership(url, 'indexer', log, {
    async onAcquire() {
      indexer = await start();
      becameLeader();
    },
    async onLose() {
      const i = indexer;
      indexer = null;
      await i?.stop();
    },
  });
  return {
    current: () => indexer,
    isLeader: () => leadership?.isLeader() ?? false,
    caughtUp: async () => {
      await leading;
      await indexer?.caughtUp();
    },
    stop: async () => {
      await leadership?.stop();
    },
  };
}
