// txdesk as the signer of real libraries, on the congested embedded dev chain: an ethers v6 script deploys a contract
// and calls it, and a viem script calls it, each through /rpc with only the Authorization header added; txdesk replaces
// each call at least once (1 gwei first fee under high congestion) and the libraries see reprices: ethers' wait(),
// wrapped as docs/app.md tells a tool author, returns the mined receipt, viem's waitForTransactionReceipt returns it
// and reports "repriced". The contract's state shows each call happened exactly once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, ContractFactory, FetchRequest, isError, JsonRpcProvider, type TransactionReceipt, type TransactionResponse } from 'ethers';
import { createWalletClient, defineChain, http, publicActions, type Hex, type ReplacementReturnType } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { startEmbeddedNetwork } from '../../src/embedded/index.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { counterArtifact } from '../support/counter-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-rpc-libraries-'));
const { abi, bytecode } = counterArtifact();
let serve: RunningServe;
let rpcUrl: string;
let headers: { authorization: string };

beforeAll(async () => {
  serve = await startServe({
    port: 0,
    startEmbedded: startEmbeddedNetwork,
    congestion: 'high',
    blockTimeSeconds: 1,
    env: { TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { timeoutMs: 2_000, confirmations: 1 },
    log: silentLogger,
  });
  rpcUrl = `${serve.readyInfo().apiUrl}/rpc`;
  headers = { authorization: `Bearer ${readFileSync(serve.readyInfo().apiTokenFile, 'utf8').trim()}` };
});

afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * docs/app.md's few lines for ethers: a reprice by txdesk is the same call mined, so take its receipt. ethers' contract
 * calls and deployments forget the block their send started from, and without it wait() never looks for a
 * replacement: replaceableTransaction(fromBlock) gives it back.
 */
async function waitMined(tx: TransactionResponse, fromBlock: number): Promise<TransactionReceipt> {
  try {
    return (await tx.replaceableTransaction(fromBlock).wait())!;
  } catch (e) {
    if (isError(e, 'TRANSACTION_REPLACED') && e.reason === 'repriced') return e.receipt;
    throw e;
  }
}

async function records(): Promise<TxRecord[]> {
  const res = await fetch(`${serve.readyInfo().apiUrl}/api/tx`, { headers });
  return (await res.json()) as TxRecord[];
}

const read = async (contract: string, name: 'count' | 'paid'): Promise<bigint> => {
  const provider = new JsonRpcProvider(serve.readyInfo().nodeUrl, undefined, { staticNetwork: true });
  try {
    return (await new Contract(contract, abi as never, provider).getFunction(name)()) as bigint;
  } finally {
    provider.destroy();
  }
};

describe('real libraries with txdesk as their signer', { timeout: 300_000 }, () => {
  let contract: string;

  it('ethers v6: deploys and calls through JsonRpcProvider + getSigner, each replaced, waiting as the docs say', async () => {
    const request = new FetchRequest(rpcUrl);
    request.setHeader('Authorization', headers.authorization);
    const provider = new JsonRpcProvider(request, undefined, { staticNetwork: true, pollingInterval: 250 });
    try {
      const signer = await provider.getSigner();
      const fromBlock = await provider.getBlockNumber();
      const deployed = await new ContractFactory(abi as never, bytecode, signer).deploy();
      const deployReceipt = await waitMined(deployed.deploymentTransaction()!, fromBlock);
      contract = deployReceipt.contractAddress!.toLowerCase();
      expect(await provider.getCode(contract)).not.toBe('0x');

      const callFrom = await provider.getBlockNumber();
      const tx = (await (deployed.connect(signer) as Contract).getFunction('bump')({ value: 5n })) as TransactionResponse;
      let replacedAs: string | null = null;
      // What waitMined does, with the reason kept for the assertion.
      const receipt = await tx.replaceableTransaction(callFrom).wait().catch((e: unknown) => {
        if (!isError(e, 'TRANSACTION_REPLACED')) throw e;
        replacedAs = e.reason;
        expect(e.cancelled).toBe(false);
        return e.receipt;
      });
      expect(receipt!.status).toBe(1);
      expect(replacedAs).toBe('repriced');
      expect(receipt!.hash).not.toBe(tx.hash);
      const group = (await records()).filter((r) => r.nonce === tx.nonce);
      expect(group.length).toBeGreaterThan(1);
      expect(group.find((r) => r.status === 'confirmation' || r.status === 'receipt')?.transactionHash).toBe(receipt!.hash);
      expect({ count: await read(contract, 'count'), paid: await read(contract, 'paid') }).toEqual({ count: 1n, paid: 5n });
    } finally {
      provider.destroy();
    }
  });

  it('viem: writeContract through http(url, { fetchOptions: { headers } }); waitForTransactionReceipt reports "repriced"', async () => {
    const info = serve.readyInfo();
    const chain = defineChain({ id: info.chainId, name: 'txdesk dev chain', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
    const client = createWalletClient({ chain, transport: http(rpcUrl, { fetchOptions: { headers } }), pollingInterval: 250 }).extend(publicActions);
    const [account] = await client.requestAddresses();
    const hash = await client.writeContract({ account: account!, address: contract as Hex, abi: abi as never, functionName: 'bump', value: 7n });
    let replaced: ReplacementReturnType | null = null;
    const receipt = await client.waitForTransactionReceipt({ hash, onReplaced: (r) => (replaced = r), pollingInterval: 250 });
    expect(receipt.status).toBe('success');
    expect(replaced).not.toBeNull();
    expect(replaced!.reason).toBe('repriced');
    expect(receipt.transactionHash).not.toBe(hash);
    expect({ count: await read(contract, 'count'), paid: await read(contract, 'paid') }).toEqual({ count: 2n, paid: 12n });
  });
});
