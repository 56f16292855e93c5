// What a person approves on a configured network: requests from local tools (over /rpc) waiting for a yes or no in
// the app, the answer, and the standing rules that let a tool's small transactions through without asking.
import type { TxPayload } from './tx-request.js';

/** Who asked: a tool holding the API token (`token`, with a fingerprint of it) or the app's own browser session. */
export interface Requester {
  kind: 'token' | 'browser';
  /** First 8 hex digits of SHA-256 of the credential: tells tokens apart without showing them. */
  fingerprint: string;
  /** "a tool with the API token …1a2b3c4d" */
  label: string;
}

/** The transaction as it will be signed (to, value, input, gas limit), and what it calls. */
export interface TransactionApproval extends TxPayload {
  /** The called function's 4-byte selector, null for a plain transfer or a creation. */
  selector: string | null;
  /** Its signature when it is a well-known one ("transfer(address,uint256)"), else null. */
  functionName: string | null;
  /** The fee per gas of the first attempt and the most replacements may reach (the fee cap), decimal wei. */
  feeFromWei: string;
  feeCapWei: string;
  /** value + gas limit x fee cap: the most it can cost, decimal wei. */
  maxCostWei: string;
}

export interface ApprovalRequest {
  id: string;
  kind: 'transaction' | 'message' | 'typed-data';
  requester: Requester;
  createdAt: string;
  /** Unanswered by then, it is declined (EIP-1193 4001). */
  expiresAt: string;
  transaction?: TransactionApproval;
  /** personal_sign: the message as text when it is UTF-8, and always as hex. */
  message?: { text: string | null; hex: string };
  /** eth_signTypedData_v4: the typed data as the tool sent it. */
  typedData?: { primaryType: string; domain: Record<string, unknown>; message: Record<string, unknown> };
}

export interface ApprovalDecision {
  approve: boolean;
  /**
   * With an approval of a transaction: from now on let this requester's transactions through without asking while
   * their most-cost (value + gas at the fee cap) in the last 24 hours stays within this many wei. Decimal.
   */
  allowPerDayWei?: string;
}

export interface ApprovalRule {
  id: string;
  requester: Requester;
  /** Decimal wei per rolling 24 hours. */
  maxPerDayWei: string;
  /** What it let through in the last 24 hours, decimal wei. */
  spentWei: string;
  createdAt: string;
}
