// Types for fault-run.js (the randomized fault run shared by the fault-run test and bench/app).
import type { TxRecord } from '../../src/shared/tx-record.js';
import type { RpcFaults } from './fault-proxy.js';

export type FaultKind = 'refusal' | 'drop' | 'drop-all' | 'reorg' | 'node-restart' | 'app-kill';
export const FAULT_KINDS: FaultKind[];

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
}

export interface Fault {
  kind: FaultKind;
  block: number;
  /** Nonces open when it happened. */
  nonces: number[];
}

export function runFaultRun(o: FaultRunOptions): Promise<{ acknowledged: Set<string>; records: TxRecord[]; faults: Fault[]; starts: number }>;
export function blocksToSettle(faults: Fault[], records: TxRecord[]): Record<FaultKind, number[]>;
