// Tools finish unchanged with txdesk as their signer, on the congested embedded dev chain where a first attempt waits
// and txdesk reprices it: ethers v6, viem, web3.js v4 and Foundry's cast, each written as its own docs write it with
// only the URL and the auth header set. Every wait returns the mined receipt (no TRANSACTION_REPLACED), the contract's
// state shows each call happened exactly once, and txdesk's records show the reprices the tools did not have to see.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Contract, ContractFactory, FetchRequest, JsonRpcProvider, type JsonRpcSigner } from 'ethers';
import { createWalletClient, defineChain, http, publicActions, type Hex } from 'viem';
import { HttpProvider, Web3 } from 'web3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { startEmbeddedNetwork } from '../../src/embedded/embedded-network.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { castBinaryPath } from '../support/chain/cast-binary.js';
import { counterArtifact } from '../support/chain/counter-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-rpc-tools-'));
const { abi, bytecode } = counterArtifact();
let serve: RunningServe;
let rpcUrl: string;
let token: string;
let account: string;

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
  token = readFileSync(serve.readyInfo().apiTokenFile, 'utf8').trim();
  account = serve.readyInfo().address!;
});

afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function records(): Promise<TxRecord[]> {
  const res = await fetch(`${serve.readyInfo().apiUrl}/api/tx`, { headers: { authorization: `Bearer ${token}` } });
  return (await res.json()) as TxRecord[];
}

/** The records of the request whose first hash a tool was handed: every attempt of its nonce. */
async function attemptsOf(firstHash: string): Promise<TxRecord[]> {
  const all = await records();
  const first = all.find((r) => r.transactionHash === firstHash.toLowerCase());
  expect(first, `txdesk handed out ${firstHash}`).toBeDefined();
  return all.filter((r) => r.nonce === first!.nonce);
}

/** Checks the receipt a tool got is the mined attempt of the request it sent, and says whether it was a reprice. */
async function minedAttemptOf(firstHash: string, receiptHash: string): Promise<{ repriced: boolean }> {
  const group = await attemptsOf(firstHash);
  expect(group.map((r) => r.transactionHash)).toContain(receiptHash.toLowerCase());
  expect(group.every((r) => r.kind !== 'cancel')).toBe(true);
  return { repriced: receiptHash.toLowerCase() !== firstHash.toLowerCase() };
}

async function readCounter(contract: string): Promise<{ count: bigint; paid: bigint }> {
  const provider = new JsonRpcProvider(serve.readyInfo().nodeUrl, undefined, { staticNetwork: true });
  try {
    const c = new Contract(contract, abi as never, provider);
    return { count: (await c.getFunction('count')()) as bigint, paid: (await c.getFunction('paid')()) as bigint };
  } finally {
    provider.destroy();
  }
}

const balanceOf = async (address: string) =>
  BigInt(
    (
      (await (
        await fetch(serve.readyInfo().nodeUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] }),
        })
      ).json()) as { result: string }
    ).result,
  );

const recipient = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('tools finish unchanged when txdesk reprices their transactions', { timeout: 300_000 }, () => {
  it('ethers v6: deploy() + waitForDeployment(), a call + wait(), sendTransaction + wait() and wait(3)', async () => {
    // ethers' docs: a JsonRpcProvider from a FetchRequest carrying the header; getSigner() for the node's account.
    const request = new FetchRequest(rpcUrl);
    request.setHeader('Authorization', `Bearer ${token}`);
    const provider = new JsonRpcProvider(request);
    provider.pollingInterval = 500;
    const reprices: boolean[] = [];
    try {
      const signer: JsonRpcSigner = await provider.getSigner();
      const factory = new ContractFactory(abi as never, bytecode, signer);
      const counter = await factory.deploy();
      await counter.waitForDeployment();
      const address = await counter.getAddress();
      expect(await provider.getCode(address)).not.toBe('0x');
      reprices.push(
        (await minedAttemptOf(counter.deploymentTransaction()!.hash, (await counter.deploymentTransaction()!.wait())!.hash)).repriced,
      );

      const tx = await (counter as Contract).getFunction('bump')({ value: 5n });
      const receipt = (await tx.wait())!;
      expect(receipt.status).toBe(1);
      reprices.push((await minedAttemptOf(tx.hash, receipt.hash)).repriced);
      expect(await readCounter(address)).toEqual({ count: 1n, paid: 5n });

      const to = recipient(0xe1);
      const transfer = await signer.sendTransaction({ to, value: 11n });
      const once = (await transfer.wait())!;
      expect(once.status).toBe(1);
      reprices.push((await minedAttemptOf(transfer.hash, once.hash)).repriced);
      const transfer3 = await signer.sendTransaction({ to, value: 13n });
      const thrice = (await transfer3.wait(3))!;
      expect((await thrice.confirmations()) >= 3).toBe(true);
      reprices.push((await minedAttemptOf(transfer3.hash, thrice.hash)).repriced);
      expect(await balanceOf(to)).toBe(24n);
    } finally {
      provider.destroy();
    }
    // The congested chain mines nothing at the first attempt's 1 gwei: the waits above returned through reprices.
    expect(reprices.filter(Boolean).length).toBeGreaterThan(0);
  });

  it('viem: deployContract, writeContract + waitForTransactionReceipt', async () => {
    const info = serve.readyInfo();
    // viem's docs: a wallet client over http() with fetchOptions carrying the header, extended with public actions.
    const chain = defineChain({
      id: info.chainId,
      name: 'txdesk',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const client = createWalletClient({
      chain,
      transport: http(rpcUrl, { fetchOptions: { headers: { Authorization: `Bearer ${token}` } } }),
      pollingInterval: 500,
    }).extend(publicActions);
    const [from] = await client.requestAddresses();
    const deployHash = await client.deployContract({ account: from!, abi: abi as never, bytecode: bytecode as Hex });
    const deployed = await client.waitForTransactionReceipt({ hash: deployHash });
    expect(deployed.status).toBe('success');
    const address = deployed.contractAddress!;
    const hash = await client.writeContract({ account: from!, address, abi: abi as never, functionName: 'bump', value: 7n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const reprices = [
      (await minedAttemptOf(deployHash, deployed.transactionHash)).repriced,
      (await minedAttemptOf(hash, receipt.transactionHash)).repriced,
    ];
    expect(await readCounter(address)).toEqual({ count: 1n, paid: 7n });
    expect(reprices.filter(Boolean).length).toBeGreaterThan(0);
  });

  it('web3.js v4: web3.eth.sendTransaction and new web3.eth.Contract(abi).deploy(...).send(...)', async () => {
    // web3.js' docs: an HttpProvider whose providerOptions carry the header.
    const web3 = new Web3(new HttpProvider(rpcUrl, { providerOptions: { headers: { Authorization: `Bearer ${token}` } } }));
    web3.transactionPollingInterval = 500;
    const [from] = await web3.eth.getAccounts();
    const to = recipient(0xe2);
    // Each send is a PromiEvent: its transactionHash event is the hash txdesk handed out, the receipt the mined one.
    const sent: { first: string; mined: string }[] = [];
    async function send(tx: { value: number; gasPrice?: string }) {
      let first = '';
      const receipt = await web3.eth.sendTransaction({ from, to, ...tx }).on('transactionHash', (h) => {
        first = String(h);
      });
      expect(receipt.status).toBe(1n);
      sent.push({ first, mined: String(receipt.transactionHash) });
    }
    // web3.js fills in its own fees (a 2.5 gwei tip, above this chain's load) unless told; told 1 gwei, it waits.
    await send({ value: 17 });
    await send({ value: 23, gasPrice: '1000000000' });
    expect(await balanceOf(to)).toBe(40n);
    let deployHash = '';
    const contract = await new web3.eth.Contract(abi as never)
      .deploy({ data: bytecode })
      .send({ from: from!, gasPrice: '1000000000' })
      .on('transactionHash', (h) => {
        deployHash = String(h);
      });
    const address = contract.options.address!;
    expect(await web3.eth.getCode(address)).not.toBe('0x');
    // The deployment's first hash answers the mined attempt's receipt, as the sends' did inside web3.js.
    const deployReceipt = await web3.eth.getTransactionReceipt(deployHash);
    expect(deployReceipt.contractAddress?.toLowerCase()).toBe(address.toLowerCase());
    sent.push({ first: deployHash, mined: String(deployReceipt.transactionHash) });
    const reprices = await Promise.all(sent.map((s) => minedAttemptOf(s.first, s.mined)));
    expect(reprices.slice(1).filter((r) => r.repriced).length).toBeGreaterThan(0);
  });

  it('cast: send --unlocked to a contract, a transfer, and --create, with ETH_RPC_HEADERS carrying the token', async () => {
    const run = promisify(execFile);
    const env = { ...process.env, ETH_RPC_URL: rpcUrl, ETH_RPC_HEADERS: `Authorization: Bearer ${token}`, ETH_FROM: account };
    const cast = (...args: string[]) => run(castBinaryPath(), args, { env, timeout: 240_000 });
    const created = await cast('send', '--unlocked', '--json', '--create', bytecode);
    const deploy = JSON.parse(created.stdout) as { status: string; contractAddress: string; transactionHash: string };
    expect(deploy.status).toBe('0x1');
    const address = deploy.contractAddress;
    const called = JSON.parse((await cast('send', '--unlocked', '--json', address, 'bump()', '--value', '3')).stdout) as {
      status: string;
      transactionHash: string;
    };
    expect(called.status).toBe('0x1');
    expect(await readCounter(address)).toEqual({ count: 1n, paid: 3n });
    const to = recipient(0xe3);
    // A tool's own low fee: the first attempt uses it, so it waits, and txdesk's reprice is what gets mined.
    const sent = JSON.parse((await cast('send', '--unlocked', '--json', '--gas-price', '1gwei', to, '--value', '19')).stdout) as {
      status: string;
      transactionHash: string;
    };
    expect(sent.status).toBe('0x1');
    expect(await balanceOf(to)).toBe(19n);
    const transfer = (await records()).filter((r) => r.to === to);
    expect(transfer.some((r) => r.transactionHash === sent.transactionHash.toLowerCase())).toBe(true);
    expect(transfer[0]!.gasPrice).toBe('1000000000');
  });
});
