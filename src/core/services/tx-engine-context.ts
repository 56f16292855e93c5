// What the transaction engine's parts share: their dependencies, the one serial queue, change notifications, the
// nonce problem and record-change writes every part makes, and the stop flag.
import type { Logger } from '../../lib/log.js';
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import { TxdeskError } from '../../shared/errors.js';
import type { NonceProblem, NonceProblemFacts, TxRecord } from '../../shared/tx-record.js';
import type { TxPayload } from '../../shared/tx-request.js';
import { kindNoun, short } from '../domain/describe.js';
import { formatGwei } from '../../shared/fee-words.js';
import type { FeeFields } from '../domain/fees.js';
import { problemChanges } from '../domain/problem-facts.js';
import { isMined } from '../domain/replacement.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import type { RecordChange } from '../domain/transitions.js';
import type { Chain, Clock, Signer, TrackerFeed, TxStore, UnsignedTx } from '../ports.js';
import { createSerialQueue, type SerialQueue } from './serial-queue.js';

/** The transaction the signer signs: `payload` at `nonce` with `fees`. */
export function unsignedTx(chainId: number, nonce: number, payload: TxPayload, fees: FeeFields): UnsignedTx {
  return {
    chainId,
    nonce,
    to: payload.to,
    valueWei: BigInt(payload.value),
    input: payload.input,
    gasLimit: BigInt(payload.gasLimit),
    fees,
  };
}

/** A signed transaction and the payload it was signed with, not yet stored. */
export interface SignedTx {
  hash: string;
  raw: string;
  payload: TxPayload;
}

export interface TxEngineDeps {
  store: TxStore;
  chain: Chain;
  feed: TrackerFeed;
  clock: Clock;
  log: Logger;
  chainId: number;
  signer(): Signer | null;
  policy(): ReplacementPolicy;
  /** Called after every commit with the records it changed. */
  changed(records: TxRecord[]): void;
}

/** A problem to set: its reason, sentence and facts (`since` is kept or stamped by setProblem). */
export type NewProblem = Omit<NonceProblem, 'since'> & { facts: NonceProblemFacts };

export interface TxEngineContext {
  d: TxEngineDeps;
  /** Nonce allocation, tracker messages and every send of the same nonce run here one at a time. */
  serial: SerialQueue;
  /** Set by stop(): loops end early and nothing new is tracked. */
  stopped: boolean;
  /** Refusals in a row per hash (memory only: after a restart the count starts again, which only delays a cancel). */
  refusals: Map<string, number>;
  /** The clock's now as an ISO string, for events and `updatedAt`. */
  iso(): string;
  /** Reads the records of these hashes back and tells `changed` (once per hash). */
  emit(hashes: Iterable<string>): void;
  /** Runs a node call a person is waiting on, turning a failure into the sentence that says what to check. */
  chainCall<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Puts the problem on the newest record of the nonce (keeping `since` while the reason stands) unless the same
   * reason and facts are there already, or clears it with null. Returns the hash it changed, if any. Call inside a
   * store transaction.
   */
  setProblem(from: string, nonce: number, problem: NewProblem | null): string | null;
  /** Applies record changes, clears the problem of every nonce they settle, and logs settled nonces. Call inside a store transaction. */
  applyChanges(changes: readonly RecordChange[]): void;
}

export function createTxEngineContext(d: TxEngineDeps): TxEngineContext {
  const iso = () => new Date(d.clock.now()).toISOString();
  return {
    d,
    serial: createSerialQueue(),
    stopped: false,
    refusals: new Map(),
    iso,
    emit(hashes) {
      const recs = [...new Set(hashes)].map((h) => d.store.get(h)).filter((r): r is TxRecord => r !== null);
      if (recs.length) d.changed(recs);
    },
    async chainCall(what, fn) {
      try {
        return await fn();
      } catch (e) {
        d.log.warn(`${what}: ${(e as Error).message}`);
        throw new TxdeskError(
          'UPSTREAM_UNAVAILABLE',
          `The Ethereum node did not answer (${what}); check that it runs and NODE_ENDPOINT points at it, then retry.`,
        );
      }
    },
    setProblem(from, nonce, problem) {
      const newest = newestAttempt(d.store.byNonce(from, nonce));
      if (!newest) return null;
      const was = newest.problem ?? null;
      if (problem === null) {
        if (!was) return null;
        d.store.clearProblems(from, nonce, iso());
        return newest.transactionHash;
      }
      // Decided on the facts: a sentence reworded (or a fee that reads the same) is not a new problem.
      if (!problemChanges(was, problem.reason, problem.facts)) return null;
      d.store.setProblem(newest.transactionHash, { ...problem, since: was?.reason === problem.reason ? was.since : iso() }, iso());
      return newest.transactionHash;
    },
    applyChanges(changes) {
      if (!changes.length) return;
      const now = iso();
      const after = d.store.applyChanges(changes, now);
      for (const r of after) {
        if (isMined(r)) d.store.clearProblems(r.from, r.nonce, now);
      }
      for (const c of changes) {
        if (c.status !== 'confirmation') continue;
        const r = after.find((x) => x.transactionHash === c.hash)!;
        d.log.info(
          `nonce ${r.nonce} settled: ${short(r.transactionHash)} (${kindNoun(r.kind)}, ` +
            `attempt ${r.attempt}, ${formatGwei(BigInt(r.gasPrice))}) confirmed in block ${String(r.data.blockNumber)}`,
        );
      }
    },
  };
}
