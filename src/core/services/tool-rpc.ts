// The Ethereum JSON-RPC methods local tools call on /rpc, over plain dependencies: the wallet methods (accounts, chain
// id, eth_sendTransaction through the engine, personal_sign, eth_signTypedData_v4, each behind the approval gate), the
// read methods forwarded to the node unchanged, and the reads of a hash txdesk handed out, which follow its request
// (tool-rpc-follow.ts). Failures are RpcFailure with the EIP-1193 / EIP-1474 code a library understands.
import { getBytes, isHexString, toUtf8Bytes } from 'ethers';
import { z } from 'zod';
import { RpcError } from '../../lib/json-rpc.js';
import { describeIssues } from '../../lib/zod-issues.js';
import type { Requester } from '../../shared/approvals.js';
import { txRequestSchema } from '../../shared/desktop-schemas.js';
import { isTxdeskError } from '../../shared/errors.js';
import type { TxRequest } from '../../shared/tx-request.js';
import type { GivenFees } from '../domain/fees.js';
import type { Chain, Signer, TxStore, TypedData } from '../ports.js';
import type { Approvals } from './approvals.js';
import { createRequestFollowing } from './tool-rpc-follow.js';
import { RPC_CODES, RpcFailure } from './tool-rpc-wire.js';
import type { TxEngine } from './tx-engine.js';
import type { InTurn } from './tx-engine-user-actions.js';

export { pendingTransactionJson, RPC_CODES, RpcFailure } from './tool-rpc-wire.js';

export interface ToolRpcDeps {
  chainId: number;
  chain: Pick<Chain, 'request'>;
  store: Pick<TxStore, 'get' | 'byNonce' | 'history' | 'rawOf'>;
  signer(): Signer | null;
  engine: Pick<TxEngine, 'send'>;
  approvals: Pick<Approvals, 'gateTransaction' | 'gateMessage' | 'gateTypedData'>;
}

/** Reads a library needs, answered by the node as they are. */
export const FORWARDED_METHODS = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getProof',
  'eth_getTransactionCount',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getLogs',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
  'eth_syncing',
  'net_listening',
]);

const invalid = (message: string) => new RpcFailure(RPC_CODES.invalidParams, message);
const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const quantity = (field: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,64}$/, `params[0].${field} must be a 0x-hex quantity of wei.`)
    .optional();

/**
 * eth_sendTransaction's fields as libraries send them. The fees, when given, price the first attempt; the nonce and
 * type are not taken: txdesk gives each request the next nonce of its own queue (tools fill in the node's pending
 * count, which many requests at once all share), and the fee fields say the type.
 */
const sendParamsSchema = z
  .object({
    from: z.string().optional(),
    to: z.string().nullable().optional(),
    value: z.string().optional(),
    data: z.string().optional(),
    input: z.string().optional(),
    gas: z.string().optional(),
    chainId: z.string().optional(),
    gasPrice: quantity('gasPrice'),
    maxFeePerGas: quantity('maxFeePerGas'),
    maxPriorityFeePerGas: quantity('maxPriorityFeePerGas'),
    /** txdesk's own: the market policy's speed for this request ('slow', 'normal', 'fast'); else the app's setting. */
    speed: z.string().optional(),
  })
  .loose();

/** The fees a tool gave, or null to let the policy price the request. */
function givenFeesOf(p: z.infer<typeof sendParamsSchema>): GivenFees | null {
  const eip1559 = p.maxFeePerGas !== undefined || p.maxPriorityFeePerGas !== undefined;
  if (p.gasPrice !== undefined && eip1559)
    throw invalid(
      'params[0] gives both gasPrice and maxFeePerGas/maxPriorityFeePerGas; give one kind of fee, or none to let txdesk price it.',
    );
  if (p.gasPrice !== undefined) return { gasPrice: BigInt(p.gasPrice) };
  if (!eip1559) return null;
  const fees = {
    ...(p.maxFeePerGas !== undefined ? { maxFeePerGas: BigInt(p.maxFeePerGas) } : {}),
    ...(p.maxPriorityFeePerGas !== undefined ? { maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas) } : {}),
  };
  // A tip above the max fee (cast's --gas-price sets only the max fee) pays at most the max fee: givenFees clamps it.
  return fees;
}

const typedDataSchema = z.object({
  domain: z.record(z.string(), z.unknown()),
  types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
  primaryType: z.string().min(1),
  message: z.record(z.string(), z.unknown()),
});

/** An engine refusal as the JSON-RPC error a library turns into its own (a revert into CALL_EXCEPTION, say). */
function rpcFailureOf(e: unknown): RpcFailure {
  if (e instanceof RpcFailure) return e;
  if (isTxdeskError(e)) {
    switch (e.code) {
      case 'DECLINED':
        return new RpcFailure(RPC_CODES.declined, e.message);
      case 'INVALID_PARAMETER':
        return new RpcFailure(RPC_CODES.invalidParams, e.message);
      case 'WOULD_REVERT':
        return new RpcFailure(RPC_CODES.reverted, `execution reverted: ${e.message}`, e.data);
      case 'UPSTREAM_UNAVAILABLE':
      case 'INTERNAL':
        return new RpcFailure(RPC_CODES.internal, e.message);
      default:
        return new RpcFailure(RPC_CODES.invalidInput, e.message);
    }
  }
  if (e instanceof RpcError) {
    return e.code === 'unreachable'
      ? new RpcFailure(RPC_CODES.internal, `${e.message} Check that the node runs, then retry.`)
      : new RpcFailure(e.code, e.message, e.data);
  }
  return new RpcFailure(RPC_CODES.internal, 'txdesk could not answer this request; see its log.');
}

export function createToolRpc(d: ToolRpcDeps) {
  const following = createRequestFollowing(d);
  const account = (): string => {
    const s = d.signer();
    if (!s)
      throw new RpcFailure(RPC_CODES.invalidInput, 'txdesk has no signing key yet; generate or import one in its Settings, then retry.');
    return s.address;
  };
  const sameAccount = (given: unknown, field: string) => {
    if (typeof given !== 'string' || given.toLowerCase() !== account())
      throw invalid(`${field} must be the signing account ${account()} (see eth_accounts).`);
  };

  async function sendTransaction(params: readonly unknown[], requester: Requester, inTurn?: InTurn): Promise<string> {
    const parsed = sendParamsSchema.safeParse(params[0]);
    if (!parsed.success) {
      const fee = parsed.error.issues.find(
        (i) => i.path.length === 1 && ['gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas'].includes(String(i.path[0])),
      );
      throw invalid(fee ? fee.message : 'params[0] must be a transaction object: {from, to, value, data, gas}.');
    }
    const p = parsed.data;
    const fees = givenFeesOf(p);
    if (p.from !== undefined) sameAccount(p.from, 'params[0].from');
    if (p.chainId !== undefined && (!isHexString(p.chainId) || BigInt(p.chainId) !== BigInt(d.chainId)))
      throw invalid(`params[0].chainId must be ${hex(d.chainId)}, the chain txdesk signs for.`);
    if (p.data !== undefined && p.input !== undefined && p.data.toLowerCase() !== p.input.toLowerCase())
      throw invalid('params[0].data and params[0].input differ; send one of them.');
    const request: Record<string, unknown> = {};
    if (p.to !== undefined && p.to !== null) request.to = p.to;
    if (p.value !== undefined) request.value = p.value;
    if ((p.data ?? p.input) !== undefined) request.data = p.data ?? p.input;
    if (p.gas !== undefined) request.gas = p.gas;
    if (p.speed !== undefined) request.speed = p.speed;
    const checked = txRequestSchema.safeParse(request);
    if (!checked.success)
      throw invalid(
        describeIssues(
          checked.error.issues.map((i) => ({ ...i, path: ['params[0]', ...i.path] })),
          'field',
        ),
      );
    const record = await d.engine.send(checked.data as TxRequest, {
      beforeSigning: (payload, firstFeeWei) => d.approvals.gateTransaction(payload, requester, firstFeeWei),
      ...(fees ? { fees } : {}),
      ...(inTurn ? { inTurn } : {}),
    });
    return record.transactionHash;
  }

  async function personalSign(params: readonly unknown[], requester: Requester): Promise<string> {
    const [message, address] = params;
    if (typeof message !== 'string') throw invalid('params[0] must be the message: 0x-hex bytes or text.');
    sameAccount(address, 'params[1]');
    const bytes = isHexString(message) ? getBytes(message) : toUtf8Bytes(message);
    await d.approvals.gateMessage(bytes, requester);
    return d.signer()!.signMessage(bytes);
  }

  async function signTypedData(params: readonly unknown[], requester: Requester): Promise<string> {
    const [address, raw] = params;
    sameAccount(address, 'params[0]');
    let value: unknown = raw;
    if (typeof raw === 'string') {
      try {
        value = JSON.parse(raw);
      } catch {
        throw invalid('params[1] must be the typed data as JSON: {domain, types, primaryType, message}.');
      }
    }
    const parsed = typedDataSchema.safeParse(value);
    if (!parsed.success)
      throw invalid(
        describeIssues(
          parsed.error.issues.map((i) => ({ ...i, path: ['params[1]', ...i.path] })),
          'field',
        ),
      );
    const data = parsed.data as TypedData;
    if (!data.types[data.primaryType]) throw invalid(`params[1].types has no entry for the primaryType '${data.primaryType}'.`);
    await d.approvals.gateTypedData(data, requester);
    try {
      return await d.signer()!.signTypedData(data);
    } catch (e) {
      throw invalid(`params[1] could not be signed as EIP-712 typed data: ${(e as Error).message.slice(0, 200)}`);
    }
  }

  /** One method call; throws RpcFailure. `inTurn` keeps an eth_sendTransaction of a batch in the batch's nonce order. */
  async function call(method: string, params: readonly unknown[], requester: Requester, inTurn?: InTurn): Promise<unknown> {
    try {
      switch (method) {
        case 'eth_chainId':
          return hex(d.chainId);
        case 'net_version':
          return String(d.chainId);
        case 'web3_clientVersion':
          return 'txdesk';
        case 'eth_accounts':
        case 'eth_requestAccounts': {
          const s = d.signer();
          return s ? [s.address] : [];
        }
        case 'eth_sendTransaction':
          return await sendTransaction(params, requester, inTurn);
        case 'personal_sign':
          return await personalSign(params, requester);
        case 'eth_signTypedData_v4':
          return await signTypedData(params, requester);
        case 'eth_getTransactionByHash':
          return await following.transaction(params);
        case 'eth_getTransactionReceipt':
          return await following.receipt(params);
      }
      if (FORWARDED_METHODS.has(method)) return await d.chain.request(method, params);
    } catch (e) {
      throw rpcFailureOf(e);
    }
    throw new RpcFailure(
      RPC_CODES.unsupported,
      `txdesk does not support ${method}; it signs with eth_sendTransaction, personal_sign and eth_signTypedData_v4 and ` +
        `forwards the usual reads (see docs/app.md, "JSON-RPC for tools").`,
    );
  }

  return { call };
}
