// The JSON-RPC shapes /rpc answers in: the error codes libraries understand, the failure that carries one, and a
// stored transaction in the node's JSON shape.
import { Transaction } from 'ethers';

/** EIP-1193 provider errors and EIP-1474 JSON-RPC errors, by what they mean. */
export const RPC_CODES = {
  declined: 4001,
  unauthorized: 4100,
  unsupported: 4200,
  parse: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  internal: -32603,
  /** The -32000 family: the node's or txdesk's refusal of the input (funds, fee cap, no key). */
  invalidInput: -32000,
  /** Execution reverted (geth, anvil): `data` holds the revert data, which libraries decode. */
  reverted: 3,
} as const;

export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`;

/** A stored transaction in the node's JSON shape, not yet in a block (what eth_getTransactionByHash answers). */
export function pendingTransactionJson(raw: string): Record<string, unknown> {
  const tx = Transaction.from(raw);
  const sig = tx.signature!;
  const legacy = tx.type === 0;
  return {
    hash: tx.hash,
    type: hex(tx.type ?? 0),
    chainId: hex(tx.chainId),
    nonce: hex(tx.nonce),
    from: tx.from!.toLowerCase(),
    to: tx.to ? tx.to.toLowerCase() : null,
    value: hex(tx.value),
    input: tx.data,
    gas: hex(tx.gasLimit),
    gasPrice: hex(legacy ? tx.gasPrice! : tx.maxFeePerGas!),
    ...(legacy ? {} : { maxFeePerGas: hex(tx.maxFeePerGas!), maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas!), accessList: [] }),
    blockHash: null,
    blockNumber: null,
    transactionIndex: null,
    r: sig.r,
    s: sig.s,
    v: hex(legacy ? (sig.networkV ?? BigInt(sig.v)) : BigInt(sig.yParity)),
    ...(legacy ? {} : { yParity: hex(sig.yParity) }),
  };
}
