// What the approval dialog says about a request, as text: amounts in ETH and gwei exactly (string and BigInt
// arithmetic, so the person approves the wei the tool asked for), the called function, the time left, a message, and
// typed data as indented key/value rows. Pure.
import type { ApprovalRequest, TransactionApproval } from '../../../../shared/approvals.js';
import { formatWeiAsEther, parseEtherToWei } from '../../lib/eth-amount.js';
import { weiToGweiInput } from '../../lib/format.js';

/** Decimal wei -> "0.5 ETH", every significant decimal kept. */
export const etherText = (wei: string): string => `${formatWeiAsEther(wei)} ETH`;

/** Decimal wei -> "1.5 gwei", every significant decimal kept. */
export function gweiText(wei: string): string {
  const gwei = weiToGweiInput(wei);
  return gwei === '' ? '—' : `${gwei} gwei`;
}

/** The fee per gas the policy starts at and the most its replacements may reach: "1 gwei, up to 50 gwei". */
export function feeRangeText(tx: Pick<TransactionApproval, 'feeFromWei' | 'feeCapWei'>): string {
  return tx.feeFromWei === tx.feeCapWei ? gweiText(tx.feeCapWei) : `${gweiText(tx.feeFromWei)}, up to ${gweiText(tx.feeCapWei)}`;
}

/** What the transaction calls: the known signature with its selector, the bare selector, or nothing at all. */
export function calledText(tx: Pick<TransactionApproval, 'to' | 'input' | 'selector' | 'functionName'>): string {
  if (tx.to === null) return 'none: deploys the code in its data';
  if (tx.selector === null)
    return tx.input === '0x' || tx.input === '' ? 'none: a plain transfer' : `data without a function selector (${tx.input})`;
  return tx.functionName ? `${tx.functionName} (${tx.selector})` : `${tx.selector} (not a function the app knows)`;
}

/** A whole number with thousands separators; the input as is when it is not one. */
export function integerText(decimal: string): string {
  try {
    return BigInt(decimal).toLocaleString('en-US');
  } catch {
    return decimal;
  }
}

/** Whole seconds until `expiresAt` at `nowMs`, never below 0. */
export function secondsLeft(expiresAt: string, nowMs: number): number {
  const t = Date.parse(expiresAt);
  return Number.isNaN(t) ? 0 : Math.max(0, Math.ceil((t - nowMs) / 1000));
}

/** 105 -> "1 min 45 s", 45 -> "45 s". */
export function timeLeftText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const min = Math.floor(seconds / 60);
  const s = seconds % 60;
  return s === 0 ? `${min} min` : `${min} min ${s} s`;
}

/** The requests a person can still answer at `nowMs`: one past its time is already declined by the core. */
export const stillWaiting = (requests: readonly ApprovalRequest[], nowMs: number): ApprovalRequest[] =>
  requests.filter((r) => secondsLeft(r.expiresAt, nowMs) > 0);

/** The dialog's title for a kind of request. */
export function requestTitle(kind: ApprovalRequest['kind']): string {
  return kind === 'transaction'
    ? 'A tool asks to send a transaction'
    : kind === 'message'
      ? 'A tool asks you to sign a message'
      : 'A tool asks you to sign typed data';
}

/** personal_sign: the text when the bytes are text (and not empty), else their hex. */
export function messageShown(message: NonNullable<ApprovalRequest['message']>): { as: 'text' | 'hex'; value: string } {
  return message.text !== null && message.text !== '' ? { as: 'text', value: message.text } : { as: 'hex', value: message.hex };
}

/** One line of nested data: a key at a depth with its value, or (value null) the head of a nested object or list. */
export interface DataRow {
  key: string;
  depth: number;
  value: string | null;
}

/** Nested key/values as rows, depth first; list items are keyed [0], [1]…; at most `limit` rows, `more` counts the rest. */
export function dataRows(data: Record<string, unknown>, limit = 400): { rows: DataRow[]; more: number } {
  const rows: DataRow[] = [];
  let more = 0;
  const add = (row: DataRow) => (rows.length < limit ? rows.push(row) : more++);
  const walk = (key: string, value: unknown, depth: number) => {
    if (Array.isArray(value)) {
      if (value.length === 0) return add({ key, depth, value: '[] (empty list)' });
      add({ key, depth, value: null });
      value.forEach((v, i) => walk(`[${i}]`, v, depth + 1));
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      if (entries.length === 0) return add({ key, depth, value: '{} (empty)' });
      add({ key, depth, value: null });
      entries.forEach(([k, v]) => walk(k, v, depth + 1));
    } else {
      add({ key, depth, value: value === null ? 'null' : value === undefined ? 'undefined' : String(value) });
    }
  };
  Object.entries(data).forEach(([k, v]) => walk(k, v, 0));
  return { rows, more };
}

export type AllowanceParse = { ok: true; wei: string } | { ok: false; error: string };

/** The typed "allow up to … ETH per day" amount as decimal wei; 0 would allow nothing, so it is refused. */
export function parseAllowance(text: string): AllowanceParse {
  const parsed = parseEtherToWei(text);
  if (!parsed.ok) return parsed;
  if (parsed.wei === '0') return { ok: false, error: 'Enter a limit above 0 ETH, or approve without a standing rule.' };
  return parsed;
}
