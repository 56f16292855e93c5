// The tracker's wire contract (docs/tracker-protocol.md §2), shared by the SDK and the data service: frame and payload types,
// option ranges, and the pure validators both sides use so a bad option fails the same way on each.

/** Highest `confirmation` count; also the pivot of the flattened `[timeout, confirmation]` rule. */
export const MAX_CONFIRMATION = 1000;
export const MIN_CONFIRMATION = 0;
/** `timeout` (ms before `pending` is reported) lies in this range. */
export const MIN_TIMEOUT_MS = 0;
export const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_CONFIRMATION = 6;
/** `ackTimeout` range and default; a service may lower the minimum for tests (`minAckTimeoutMs`). */
export const MIN_ACK_TIMEOUT_MS = 10_000;
export const MAX_ACK_TIMEOUT_MS = 600_000;
export const DEFAULT_ACK_TIMEOUT_MS = 10_000;
/** A frame larger than this is answered with -32600 and ignored; the socket itself closes above 1 MiB. */
export const MAX_FRAME_BYTES = 256 * 1024;
export const MAX_BATCH_LENGTH = 1000;
export const MAX_SUBSCRIPTION_ID_LENGTH = 128;

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
/** Server-defined: a per-client limit was reached (too many tracked transactions or subscriptions). */
export const RPC_LIMIT_EXCEEDED = -32005;

export type TrackerEventType = 'pending' | 'receipt' | 'confirmation';

export interface TrackerLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  removed: boolean;
}

/**
 * `result` of `receipt` and `confirmation`. Counters and gas figures are JSON numbers (always below 2^53);
 * the wei amount `effectiveGasPrice` is a decimal string. `status` is 1 (success) or 0 (reverted).
 */
export interface TrackerReceipt {
  transactionHash: string;
  blockHash: string;
  blockNumber: number;
  transactionIndex: number;
  from: string;
  to: string | null;
  contractAddress: string | null;
  gasUsed: number;
  cumulativeGasUsed: number;
  effectiveGasPrice: string;
  status: number;
  type: number;
  logs: TrackerLog[];
}

export interface TrackerPendingResult {
  transactionHash: string;
  confirmation: number;
  timeout: number;
  /** Set on the final `pending` of a hash the node never showed within the service's expiry (1 h by default): tracking ended. */
  expired?: true;
  /** Present (true) when a receipt already reported for this hash was withdrawn by a reorganisation. */
  reorged?: true;
}

export type TrackerPayload =
  | { type: 'pending'; result: TrackerPendingResult }
  | { type: 'receipt'; result: TrackerReceipt }
  | { type: 'confirmation'; result: TrackerReceipt };

/** The server push frame: `id` is the subscriptionId, never a client request id. */
export interface TrackerPushFrame {
  jsonrpc: '2.0';
  id: string;
  result: { ackId: string; messageId: string; payload: TrackerPayload };
}

export interface TrackOptions {
  /** Milliseconds without a receipt before `pending` is reported. */
  timeout: number;
  /** Blocks on top of the receipt's block before `confirmation` is reported. */
  confirmation: number;
}

/** A validation result: the value, or one sentence naming the bad parameter. */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const HASH_RE = /^0x[0-9a-fA-F]{64}$/;
const SUBSCRIPTION_ID_RE = /^[A-Za-z0-9_.:@-]+$/;

export function checkTxHash(v: unknown, name = 'txHash'): Checked<string> {
  if (typeof v !== 'string' || !HASH_RE.test(v)) {
    return { ok: false, message: `${name} must be a transaction hash: 0x followed by 64 hex digits.` };
  }
  return { ok: true, value: v.toLowerCase() };
}

function checkInt(v: unknown, name: string, min: number, max: number): Checked<number> {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    return { ok: false, message: `${name} must be an integer from ${min} to ${max}.` };
  }
  return { ok: true, value: v };
}

export function checkConfirmation(v: unknown, name = 'confirmation'): Checked<number> {
  return checkInt(v, name, MIN_CONFIRMATION, MAX_CONFIRMATION);
}

export function checkTimeout(v: unknown, name = 'timeout'): Checked<number> {
  return checkInt(v, name, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
}

/** `ackTimeout`: absent/null means the default (or the minimum, when that is higher). */
export function checkAckTimeout(v: unknown, minMs = MIN_ACK_TIMEOUT_MS, name = 'ackTimeout'): Checked<number> {
  if (v === undefined || v === null) return { ok: true, value: Math.min(Math.max(minMs, DEFAULT_ACK_TIMEOUT_MS), MAX_ACK_TIMEOUT_MS) };
  return checkInt(v, name, minMs, MAX_ACK_TIMEOUT_MS);
}

export function checkSubscriptionId(v: unknown, name = 'subscriptionId'): Checked<string> {
  if (
    typeof v !== 'string' ||
    v.length === 0 ||
    v.length > MAX_SUBSCRIPTION_ID_LENGTH ||
    !SUBSCRIPTION_ID_RE.test(v) ||
    !Number.isNaN(Number(v))
  ) {
    return {
      ok: false,
      message: `${name} must be a non-numeric string of 1 to ${MAX_SUBSCRIPTION_ID_LENGTH} characters from A-Z a-z 0-9 _ . : @ -.`,
    };
  }
  return { ok: true, value: v };
}

/**
 * Reads `track_transaction` params in either form: `[hash, {confirmation, timeout}]` or positional
 * `[hash, confirmation, timeout]`. Old clients flattened their options object in key order, so a pair whose first
 * value exceeds MAX_CONFIRMATION while the second does not is `[timeout, confirmation]`. Missing options take defaults.
 */
export function parseTrackParams(params: readonly unknown[]): Checked<{ hash: string } & TrackOptions> {
  if (params.length < 1 || params.length > 3) {
    return { ok: false, message: 'params must be [txHash, {confirmation, timeout}] or [txHash, confirmation, timeout].' };
  }
  const hash = checkTxHash(params[0], 'params[0] (txHash)');
  if (!hash.ok) return hash;
  let rawConfirmation: unknown = DEFAULT_CONFIRMATION;
  let rawTimeout: unknown = DEFAULT_TIMEOUT_MS;
  let confName = 'params[1] (confirmation)';
  let timeoutName = 'params[2] (timeout)';
  const second = params[1];
  if (params.length === 2 && typeof second === 'object' && second !== null && !Array.isArray(second)) {
    const opts = second as Record<string, unknown>;
    const unknownKey = Object.keys(opts).find((k) => k !== 'confirmation' && k !== 'timeout');
    if (unknownKey !== undefined) return { ok: false, message: `params[1].${unknownKey} is not an option; use confirmation and timeout.` };
    if (opts.confirmation !== undefined) rawConfirmation = opts.confirmation;
    if (opts.timeout !== undefined) rawTimeout = opts.timeout;
    confName = 'params[1].confirmation';
    timeoutName = 'params[1].timeout';
  } else if (params.length >= 2) {
    const a = params[1];
    const b = params[2];
    const flattened =
      typeof a === 'number' && a > MAX_CONFIRMATION && (b === undefined || (typeof b === 'number' && b <= MAX_CONFIRMATION));
    if (flattened) {
      rawTimeout = a;
      timeoutName = 'params[1] (timeout)';
      if (b !== undefined) {
        rawConfirmation = b;
        confName = 'params[2] (confirmation)';
      }
    } else {
      rawConfirmation = a;
      if (b !== undefined) rawTimeout = b;
    }
  }
  const confirmation = checkConfirmation(rawConfirmation, confName);
  if (!confirmation.ok) return confirmation;
  const timeout = checkTimeout(rawTimeout, timeoutName);
  if (!timeout.ok) return timeout;
  return { ok: true, value: { hash: hash.value, confirmation: confirmation.value, timeout: timeout.value } };
}
