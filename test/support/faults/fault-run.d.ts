// Types for fault-run.js (the randomized fault run shared by the fault-run test and bench/app).
import type { TxRecord } from '../../../src/shared/tx-record.js';
import type { RpcFaults } from './fault-proxy.js';

export type FaultKind = 'refusal' | 'drop' | 'drop-all' | 'reorg' | 'node-restart' | 'app-kill';
export const FAULT_KINDS: FaultKind[];
/** The deepest reorganisation a run makes; a run starts once the caller's set-up is deeper than this. */
export const MAX_REORG_DEPTH: number;

export interface FaultRunOptions {
  seed: number;
  transactions: number;
  /** The real node, for anvil_* calls. */
  nodeUrl: string;
  /** The proxy the app uses as its node. */
  node: RpcFaults;
  /** The app's environment (NODE_ENDPOINT at the proxy, TXDESK_DATA_DIR kept across kills). */
  env: NodeJS.ProcessEnv;
  /** A script that starts the app with the policy JSON in argv[2] and prints one ready JSON line. */
  script: string;
  policy: Record<string, unknown>;
  settleTimeoutMs?: number;
  /** Share of steps that are faults (default 0.38; 0: a fault-free baseline run). */
  faultRate?: number;
}

export interface Fault {
  kind: FaultKind;
  block: number;
  /** Nonces open when it happened. */
  nonces: number[];
}

export interface FaultRun {
  acknowledged: Set<string>;
  records: TxRecord[];
  faults: Fault[];
  /** Each acknowledged send with the head block when it was answered. */
  sends: { nonce: number; block: number }[];
  /** How many times the app was started (1 + SIGKILLs). */
  starts: number;
}

export function runFaultRun(o: FaultRunOptions): Promise<FaultRun>;
export function blocksToSettle(run: FaultRun): Record<'send' | FaultKind, number[]>;
export function unsettledNonces(records: readonly Pick<TxRecord, 'nonce' | 'status'>[]): Set<number>;
