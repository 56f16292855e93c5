// The app's transaction record (SPEC 5) and its event history, as JSON crosses HTTP and IPC.

export type TxStatus = 'pending' | 'receipt' | 'confirmation' | 'replaced';

export interface TxRecord {
  transactionHash: string;
  /** Sender address, lowercase hex. */
  from: string;
  nonce: number;
  /** Decimal wei: the gas price (legacy) or maxFeePerGas (EIP-1559). */
  gasPrice: string;
  /** Decimal wei, EIP-1559 only. */
  maxPriorityFeePerGas?: string;
  txType: 'legacy' | 'eip1559';
  /** Absent until the first tracker message. */
  status?: TxStatus;
  /** Copy of `result` of the latest receipt/confirmation message; `{}` before. */
  data: Record<string, unknown>;
  replaces: string | null;
  replacedBy: string | null;
  /** 0 for the first transaction of a nonce, 1 for its first replacement, … */
  attempt: number;
  createdAt: string;
  updatedAt: string;
}

export type TxEventKind =
  | 'signed'
  | 'broadcast'
  | 'broadcast-failed'
  | 'pending'
  | 'receipt'
  | 'confirmation'
  | 'replaced'
  | 'replacement-sent'
  | 'replacement-skipped'
  | 'reorged'
  | 'nonce-used-elsewhere'
  | 'rebroadcast';

export interface TxEvent {
  at: string;
  kind: TxEventKind;
  /** One sentence a person can read, e.g. "Replaced by 0xab… at 1.27 gwei (+27%)". */
  summary: string;
  detail: Record<string, unknown>;
}

export interface TxRecordWithHistory extends TxRecord {
  history: TxEvent[];
}
