// Where the indexer keeps the index: the operations its loop needs, whatever the backend (SQLite in sqlite/, PostgreSQL
// in postgres/), and the rules both keep. Both apply ranges and rollbacks through the same functions (indexer-apply.ts,
// indexer-reorg.ts) and the listing's IndexWriter.
import type { Logger } from '../../lib/log.js';
import type { Checkpointer } from '../../lib/sqlite-checkpointer.js';
import type { Batch, MissingUri } from './indexer-apply.js';
import type { MetadataUpdate } from './indexer-events.js';
import type { PrepareLookups } from './indexer-prepare.js';
import type { Checkpoint } from './indexer-reorg.js';

/** An EIP-2309 range indexed only up to the cap, as /health lists it. */
export interface TruncatedRow {
  block: number;
  contract: string;
  fromTokenId: string;
  toTokenId: string;
  indexed: number;
}

export interface IndexStore {
  /** A SQLite file the reader thread may open read-only; null: ranges are read on the indexer's own thread. */
  readonly readerFile: string | null;
  /** What the read-ahead asks of the index (is a contract known, is an ERC-1155 id known). */
  readonly lookups: PrepareLookups;
  /** The last block indexed, as committed (null: nothing yet). */
  tip(): Promise<number | null>;
  storedHash(block: number): Promise<string | null>;
  /** Checkpoints at or below `below`, newest first. */
  checkpointsBelow(below: number, limit: number): Promise<Checkpoint[]>;
  /** Writes one range on top of `tip` (the store refuses when its committed tip is another: a second writer). */
  apply(batch: Batch, tip: number): Promise<MissingUri[]>;
  /** Undoes everything above `ancestor`; returns the contracts whose totalSupply must be read again. */
  rollback(ancestor: number, tip: number): Promise<string[]>;
  /** Stores uris read after a write (tokens first seen through a transfer, ERC-4906 updates, refreshes). */
  writeUris(missing: readonly MissingUri[], uris: readonly string[]): Promise<void>;
  /** Tokens and ids of the index that ERC-4906 events (or a refresh) name. */
  metadataTargets(updates: readonly MetadataUpdate[]): Promise<MissingUri[]>;
  truncated(): Promise<{ count: number; latest: TruncatedRow[] }>;
  /** Keeps every checkpoint of the last CHECKPOINT_KEEP_BLOCKS blocks below `tip` and the newest one below them. */
  pruneCheckpoints(tip: number): Promise<void>;
  /**
   * Told after each write (once its outcome is recorded) whether more ranges follow at once, before a write that more
   * ranges follow, and `false` when the indexer stops. A store may batch housekeeping over a catch-up (SQLite: WAL
   * checkpoints, CHECKPOINT_EVERY_MOVES).
   */
  catchingUp?(behind: boolean): void;
  /**
   * A thread that runs the checkpoints owed after a catch-up's hold on another connection of `readerFile` (null: run
   * them on the writer's connection, as when the thread cannot run or has failed).
   */
  useCheckpointer?(checkpointer: Checkpointer | null): void;
  /**
   * The same index written on a thread of its own, so that a catch-up's writes never block the thread that answers
   * other networks (SQLite: sqlite/indexer-write-thread.ts); null where no such thread can run.
   */
  onWriteThread?(log: Logger): (IndexStore & { close(): Promise<void> }) | null;
}

/** Blocks below the tip whose checkpoints are all kept: a reorganisation deeper than this finds its ancestor slower. */
export const CHECKPOINT_KEEP_BLOCKS = 10_000;
/** pruneCheckpoints in either dialect, its one parameter `tip - CHECKPOINT_KEEP_BLOCKS`. */
export const PRUNE_CHECKPOINTS_SQL = 'DELETE FROM idx_blocks WHERE number < (SELECT max(number) FROM idx_blocks WHERE number < ?)';
/** The newest truncated ranges, as /health lists them. */
export const LATEST_TRUNCATED_SQL =
  'SELECT block, contract, from_id, to_id, indexed FROM idx_truncated ORDER BY block DESC, log_index DESC LIMIT 5';

export const toTruncatedRow = (r: { block: number; contract: string; from_id: string; to_id: string; indexed: number }): TruncatedRow => ({
  block: r.block,
  contract: r.contract,
  fromTokenId: r.from_id,
  toTokenId: r.to_id,
  indexed: r.indexed,
});
