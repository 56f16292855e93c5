// The checks a new transaction passes before it is signed, as data: does the balance cover the most the policy may
// make it cost, and is a node's answer to the simulation a revert. Pure; the engine reads the node and the policy.
import { formatGwei } from './fees.js';
import { formatEth } from './refusal.js';

export interface FundsFacts {
  from: string;
  balanceWei: bigint;
  valueWei: bigint;
  gasLimit: bigint;
  /**
   * The highest fee per gas the policy may pay for it: the fee cap. Replacements never go above it, and below it they
   * follow the network's price, which nothing bounds.
   */
  capWei: bigint;
}

/** What is missing for the worst case (value + gas limit x cap), or null when the balance covers it. */
export function fundsShortfall(f: FundsFacts): bigint | null {
  const need = f.valueWei + f.gasLimit * f.capWei;
  return f.balanceWei >= need ? null : need - f.balanceWei;
}

/** The 409's sentence: how much is missing and what to do. */
export function describeShortfall(f: FundsFacts, missingWei: bigint): string {
  const need = f.valueWei + f.gasLimit * f.capWei;
  return (
    `The balance of ${f.from}, ${formatEth(f.balanceWei)} ETH, does not cover the ${formatEth(need, 'up')} ETH this transaction may cost ` +
    `(${formatEth(f.valueWei, 'up')} ETH value plus ${f.gasLimit} gas at up to the fee cap of ${formatGwei(f.capWei)}): ` +
    `add ${formatEth(missingWei, 'up')} ETH, send less, or lower the fee cap in Settings.`
  );
}

/** Whether a node's error to eth_call / eth_estimateGas says the call reverts (EIP-1474 code 3, or its wording). */
export function isRevertAnswer(code: unknown, message: string): boolean {
  return code === 3 || /revert/i.test(message);
}
