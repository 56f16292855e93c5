// Sends transactions from anvil's unlocked dev accounts (eth_sendTransaction: anvil signs and assigns nonces) and waits for receipts.
import { jsonRpcCall } from '../lib/json-rpc.js';

/** Fee of the dev chain's own work (deployments, minting): far above the congestion load, so it is never stuck. */
export const OPS_GAS_PRICE_WEI = 20_000_000_000n;

/**
 * Gas price of work sent later (giveTokens) when the head block's base fee is `baseFeeWei`: 20 gwei over twice the
 * base fee, so it stays above the base fee through several full blocks and above a `market` spike's tips (5-20 gwei).
 */
export function opsGasPriceWei(baseFeeWei: bigint): bigint {
  return OPS_GAS_PRICE_WEI + 2n * baseFeeWei;
}

export interface TxRequest {
  from: string;
  to?: string;
  data?: string;
  value?: bigint;
  gas: number;
  gasPrice?: bigint;
  nonce?: number;
}

interface Receipt {
  status: string;
  blockNumber: string;
  contractAddress: string | null;
  transactionHash: string;
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`;

export async function sendTx(url: string, tx: TxRequest): Promise<string> {
  return jsonRpcCall<string>(url, 'eth_sendTransaction', [
    {
      from: tx.from,
      ...(tx.to ? { to: tx.to } : {}),
      ...(tx.data ? { data: tx.data } : {}),
      ...(tx.value ? { value: hex(tx.value) } : {}),
      gas: hex(tx.gas),
      gasPrice: hex(tx.gasPrice ?? OPS_GAS_PRICE_WEI),
      ...(tx.nonce !== undefined ? { nonce: hex(tx.nonce) } : {}),
    },
  ]);
}

/** Polls until every hash has a receipt; throws when one reverted or `timeoutMs` passes. `tick` runs between polls. */
export async function waitReceipts(
  url: string,
  hashes: string[],
  opts: { timeoutMs?: number; tick?: () => Promise<void>; onMined?: (done: number) => void } = {},
): Promise<Receipt[]> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const receipts = new Map<string, Receipt>();
  for (;;) {
    for (const h of hashes) {
      if (receipts.has(h)) continue;
      const r = await jsonRpcCall<Receipt | null>(url, 'eth_getTransactionReceipt', [h]);
      if (!r) continue;
      if (r.status !== '0x1')
        throw new Error(`Dev chain transaction ${h} reverted; the sample contracts may be out of date (run \`npm run contracts\`).`);
      receipts.set(h, r);
      opts.onMined?.(receipts.size);
    }
    if (receipts.size === hashes.length) return hashes.map((h) => receipts.get(h)!);
    if (Date.now() > deadline)
      throw new Error(`Dev chain transactions were not mined within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)} s; is anvil mining?`);
    if (opts.tick) await opts.tick();
    else await new Promise((r) => setTimeout(r, 150));
  }
}
