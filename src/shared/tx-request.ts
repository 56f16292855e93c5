// What a person or a local tool asks the engine to send: what to call and with how much, and how fast (the fee policy
// prices it). POST /api/tx takes it as its body, /rpc's eth_sendTransaction maps onto it.

/**
 * How soon a request wants to be mined, under the market fee policy: the tip recent full blocks included at the 1st,
 * 10th or 50th percentile (less when they had room).
 */
export type Speed = 'slow' | 'normal' | 'fast';
export const SPEEDS: readonly Speed[] = ['slow', 'normal', 'fast'];

export interface TxRequest {
  /** The recipient, checksummed or lower case; absent or null creates a contract from `data`. */
  to?: string | null;
  /** Wei to send, a decimal or 0x-hex string; 0 when absent. */
  value?: string;
  /** Calldata (or init code when `to` is absent), 0x-hex; "0x" when absent. */
  data?: string;
  /** Gas limit, a decimal or 0x-hex string; estimated by the node when absent. */
  gas?: string;
  /** The market policy's speed for this request; the policy's own `speed` when absent (the seed preset ignores it). */
  speed?: Speed;
}

/** A request with every field settled: what the engine signs and every replacement of it keeps. */
export interface TxPayload {
  /** Lower-case address, or null for a contract creation. */
  to: string | null;
  /** Decimal wei. */
  value: string;
  /** 0x-hex, lower case. */
  input: string;
  /** Decimal. */
  gasLimit: string;
}
