// /rpc as libraries and scripts meet it, on the embedded dev chain (signed at once, no approvals): the account and
// chain, signatures that recover to the signing account (ethers and viem), batches, the error codes (4100 without the
// token and nothing shown, 4200 unknown method, -32602 naming the field, 3 with the revert data for a reverting call,
// -32000 for funds, the node's own error passed through), and a stored transaction the node forgot answered from its
// signed bytes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractFactory, FetchRequest, Interface, JsonRpcProvider, Transaction, verifyMessage, verifyTypedData, Wallet } from 'ethers';
import { createServer } from 'node:net';
import { createWalletClient, http, publicActions, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonRpcChain } from '../../src/core/adapters/chain/chain-jsonrpc.js';
import { createToolRpc, pendingTransactionJson } from '../../src/core/services/tool-rpc.js';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { startEmbeddedNetwork } from '../../src/embedded/embedded-network.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { counterArtifact } from '../support/chain/counter-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-app-rpc-'));
let serve: RunningServe;
let url: string;
let token: string;
let provider: JsonRpcProvider;

beforeAll(async () => {
  serve = await startServe({
    port: 0,
    startEmbedded: startEmbeddedNetwork,
    env: { TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { timeoutMs: 2_000, confirmations: 1 },
    log: silentLogger,
  });
  url = `${serve.readyInfo().apiUrl}/rpc`;
  token = readFileSync(serve.readyInfo().apiTokenFile, 'utf8').trim();
  const request = new FetchRequest(url);
  request.setHeader('Authorization', `Bearer ${token}`);
  provider = new JsonRpcProvider(request, undefined, { staticNetwork: true, pollingInterval: 250 });
});

afterAll(async () => {
  provider?.destroy();
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw JSON-RPC exchange: `body` as given, with the token unless `auth` is false. */
async function post(body: unknown, auth = true): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}
const call = (method: string, params: unknown[] = [], auth = true) => post({ jsonrpc: '2.0', id: 7, method, params }, auth);
const records = async () =>
  (await (await fetch(`${serve.readyInfo().apiUrl}/api/tx`, { headers: { authorization: `Bearer ${token}` } })).json()) as TxRecord[];

describe('/rpc for tools', { timeout: 120_000 }, () => {
  it('answers the chain and the signing account, through ethers and viem alike', async () => {
    const info = serve.readyInfo();
    expect(Number((await provider.getNetwork()).chainId)).toBe(info.chainId);
    const signer = await provider.getSigner();
    expect(signer.address.toLowerCase()).toBe(info.address);
    expect(await provider.getBalance(signer.address)).toBeGreaterThan(0n);
    const client = createWalletClient({ transport: http(url, { fetchOptions: { headers: { authorization: `Bearer ${token}` } } }) }).extend(
      publicActions,
    );
    expect((await client.getAddresses()).map((a) => a.toLowerCase())).toEqual([info.address]);
    expect(await client.getChainId()).toBe(info.chainId);
    // The reads are the node's: both libraries see the same balance and a block number the node has reached.
    const [viaEthers, viaViem] = [
      await provider.getBalance(signer.address, 'earliest'),
      await client.getBalance({ address: signer.address as Hex, blockTag: 'earliest' }),
    ];
    expect(viaViem).toBe(viaEthers);
    const blockEthers = await provider.getBlockNumber();
    expect(Number(await client.getBlockNumber({ cacheTime: 0 }))).toBeGreaterThanOrEqual(blockEthers);
  });

  it('signs messages and typed data that recover to the signing account', async () => {
    const signer = await provider.getSigner();
    const address = signer.address;
    for (const message of ['hello txdesk', new Uint8Array([0, 1, 2, 255])])
      expect(verifyMessage(message, await signer.signMessage(message))).toBe(address);
    const domain = { name: 'Mail', version: '1', chainId: serve.readyInfo().chainId, verifyingContract: '0x' + '1'.repeat(40) };
    const types = {
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    };
    const value = {
      from: { name: 'Ann', wallet: '0x' + '2'.repeat(40) },
      to: { name: 'Bob', wallet: '0x' + '3'.repeat(40) },
      contents: 'hi',
    };
    expect(verifyTypedData(domain, types, value, await signer.signTypedData(domain, types, value))).toBe(address);

    const viem = createWalletClient({
      account: address as Hex,
      transport: http(url, { fetchOptions: { headers: { authorization: `Bearer ${token}` } } }),
    });
    expect(verifyMessage('from viem', await viem.signMessage({ message: 'from viem' }))).toBe(address);
    const viaViem = await viem.signTypedData({
      domain: { ...domain, verifyingContract: domain.verifyingContract as Hex },
      types,
      primaryType: 'Mail',
      message: value as never,
    });
    expect(verifyTypedData(domain, types, value, viaViem)).toBe(address);
  });

  it('sends through the engine: a transfer from ethers is stored, mined and known to txdesk', async () => {
    const signer = await provider.getSigner();
    const to = Wallet.createRandom().address;
    const tx = await signer.sendTransaction({ to, value: 12345n });
    const receipt = (await tx.wait())!;
    expect(receipt.status).toBe(1);
    expect(await provider.getBalance(to)).toBe(12345n);
    expect((await records()).some((r) => r.transactionHash === tx.hash && r.to === to.toLowerCase() && r.value === '12345')).toBe(true);
  });

  it('sends through the engine: a transfer from viem is mined and waited for', async () => {
    const info = serve.readyInfo();
    const client = createWalletClient({ transport: http(url, { fetchOptions: { headers: { authorization: `Bearer ${token}` } } }) }).extend(
      publicActions,
    );
    const [account] = (await client.requestAddresses()) as [Hex];
    const to = Wallet.createRandom().address as Hex;
    const chain = {
      id: info.chainId,
      name: 'txdesk dev chain',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    };
    const hash = await client.sendTransaction({ account, chain, to, value: 777n });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 250 });
    expect(receipt.status).toBe('success');
    expect(await client.getBalance({ address: to })).toBe(777n);
    expect((await records()).some((r) => r.transactionHash === hash && r.to === to.toLowerCase() && r.value === '777')).toBe(true);
  });

  it('runs a batch in order and answers each id', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 'b', method: 'nope_method', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_blockNumber' },
      { id: 4, method: 'eth_chainId' },
    ]);
    expect(r.status).toBe(200);
    expect(r.json.map((x: { id: unknown }) => x.id)).toEqual([1, 'b', 3, 4]);
    expect(r.json[0].result).toBe(`0x${serve.readyInfo().chainId.toString(16)}`);
    expect(r.json[1].error.code).toBe(4200);
    expect(r.json[2].result).toMatch(/^0x[0-9a-f]+$/);
    expect(r.json[3].error.code).toBe(-32600);
  });

  it('without the token: 4100 and nothing shown', async () => {
    for (const method of ['eth_accounts', 'eth_chainId', 'eth_sendTransaction']) {
      const r = await call(method, [], false);
      expect(r.status).toBe(200);
      expect(r.json.error.code).toBe(4100);
      expect(r.json.result).toBeUndefined();
      expect(JSON.stringify(r.json)).not.toContain(serve.readyInfo().address!.slice(2));
    }
    const wrong = await post({ jsonrpc: '2.0', id: 1, method: 'eth_accounts', params: [] }, false);
    expect(wrong.json.error.message).toContain('api-token');
  });

  it('unknown methods 4200, bad params -32602 naming the field, bad JSON -32700', async () => {
    expect((await call('eth_sign', ['0x' + '1'.repeat(40), '0x00'])).json.error.code).toBe(4200);
    const address = serve.readyInfo().address!;
    const cases: [string, unknown[], string][] = [
      ['eth_sendTransaction', [{ from: '0x' + '9'.repeat(40), to: address }], 'from'],
      ['eth_sendTransaction', [{ from: address, to: address, chainId: '0x1' }], 'chainId'],
      ['eth_sendTransaction', [{ from: address, to: address, value: 'lots' }], "'params[0].value'"],
      ['eth_sendTransaction', [{ from: address, to: '0x1234' }], "'params[0].to'"],
      ['personal_sign', ['0x68656c6c6f', '0x' + '9'.repeat(40)], 'params[1]'],
      ['eth_signTypedData_v4', [address, '{not json'], 'params[1]'],
      ['eth_signTypedData_v4', [address, { domain: {}, types: {}, primaryType: 'Mail', message: {} }], 'primaryType'],
    ];
    for (const [method, params, field] of cases) {
      const r = await call(method, params);
      expect(r.json.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(r.json.error.message).toContain(field);
    }
    expect((await post('{"jsonrpc":')).json.error.code).toBe(-32700);
  });

  it('refuses a reverting call with its reason and data (ethers decodes it), and a value above the balance; no record is left', async () => {
    const signer = await provider.getSigner();
    const deployed = await new ContractFactory(counterArtifact().abi as never, counterArtifact().bytecode, signer).deploy();
    await deployed.waitForDeployment();
    const before = (await records()).length;
    const counter = new Interface(counterArtifact().abi as never);
    const reverted = await call('eth_sendTransaction', [
      { from: signer.address, to: await deployed.getAddress(), data: counter.encodeFunctionData('failWith', ['no way']) },
    ]);
    expect(reverted.json.error.code).toBe(3);
    expect(reverted.json.error.message).toContain('"no way"');
    expect(counter.parseError(reverted.json.error.data)?.args[0]).toBe('no way');
    // ethers estimates the gas first (forwarded to the node), and the node's revert becomes its CALL_EXCEPTION.
    const estimated = await signer
      .sendTransaction({ to: await deployed.getAddress(), data: counter.encodeFunctionData('failWith', ['still no']) })
      .catch((e: unknown) => e);
    expect(estimated).toMatchObject({ code: 'CALL_EXCEPTION', reason: 'still no' });
    // With the gas given, txdesk's own check refuses it; ethers keeps txdesk's error (code 3, the sentence) inside its own.
    const given = (await signer
      .sendTransaction({ to: await deployed.getAddress(), data: counter.encodeFunctionData('failWith', ['given gas']), gasLimit: 100_000n })
      .catch((e: unknown) => e)) as { error?: { code: number; message: string } };
    expect(given.error).toMatchObject({ code: 3 });
    expect(given.error!.message).toContain('"given gas"');
    const balance = await provider.getBalance(signer.address);
    const broke = await call('eth_sendTransaction', [
      { from: signer.address, to: '0x' + '4'.repeat(40), value: `0x${balance.toString(16)}` },
    ]);
    expect(broke.json.error.code).toBe(-32000);
    expect(broke.json.error.message).toMatch(/does not cover .* add /);
    expect((await records()).length).toBe(before);
  });

  it("passes the node's own errors through", async () => {
    const params = ['not-a-block', false];
    const r = await call('eth_getBlockByNumber', params);
    const direct = (await (
      await fetch(serve.readyInfo().nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params }),
      })
    ).json()) as { error: { code: number; message: string } };
    expect(direct.error.message.length).toBeGreaterThan(0);
    expect(r.json.error).toEqual(direct.error);
  });

  it('says the node could not be reached when it does not answer', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const chain = createJsonRpcChain(`http://127.0.0.1:${closed}`, { timeoutMs: 2_000 });
    // Reads touch only the node; the other parts are not reached.
    const unused = () => {
      throw new Error('not reached');
    };
    const rpc = createToolRpc({
      chainId: 31337,
      chain,
      store: { get: unused, byNonce: unused, history: unused, rawOf: unused },
      signer: () => null,
      engine: { send: unused },
      approvals: { gateTransaction: unused, gateMessage: unused, gateTypedData: unused },
    });
    const failure = (await rpc
      .call('eth_blockNumber', [], { kind: 'token', fingerprint: '00000000', label: 'a test' })
      .catch((e: unknown) => e)) as { code: number; message: string };
    expect(failure.code).toBe(-32603);
    expect(failure.message).toMatch(/could not be reached.*Check that the node runs/);
    await chain.close();
  });

  it("signs a first attempt at the tool's own fees; refuses a fee above the cap naming it, and two kinds of fee at once", async () => {
    const signer = await provider.getSigner();
    const to = Wallet.createRandom().address.toLowerCase();
    const legacy = await call('eth_sendTransaction', [{ from: signer.address, to, value: '0x1', gasPrice: '0x77359400' }]);
    const eip1559 = await call('eth_sendTransaction', [
      { from: signer.address, to, value: '0x2', maxFeePerGas: '0xb2d05e00', maxPriorityFeePerGas: '0x3b9aca00', nonce: '0x0', type: '0x2' },
    ]);
    const byHash = new Map((await records()).map((r) => [r.transactionHash, r]));
    expect(byHash.get(legacy.json.result)).toMatchObject({ txType: 'legacy', gasPrice: '2000000000' });
    // The nonce a tool gives is not taken: the engine's queue gives the next one.
    expect(byHash.get(eip1559.json.result)).toMatchObject({
      txType: 'eip1559',
      gasPrice: '3000000000',
      maxPriorityFeePerGas: '1000000000',
    });
    expect(byHash.get(eip1559.json.result)!.nonce).toBe(byHash.get(legacy.json.result)!.nonce + 1);

    const before = (await records()).length;
    const tooHigh = await call('eth_sendTransaction', [
      { from: signer.address, to, value: '0x1', gasPrice: `0x${(10n ** 22n).toString(16)}` },
    ]);
    expect(tooHigh.json.error.code).toBe(-32000);
    expect(tooHigh.json.error.message).toMatch(/The fee this request gives, .* is above txdesk's fee cap of \d+ gwei/);
    const both = await call('eth_sendTransaction', [{ from: signer.address, to, value: '0x1', gasPrice: '0x1', maxFeePerGas: '0x1' }]);
    expect(both.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/both gasPrice and maxFeePerGas/) });
    const malformed = await call('eth_sendTransaction', [{ from: signer.address, to, value: '0x1', maxFeePerGas: '12 gwei' }]);
    expect(malformed.json.error).toMatchObject({ code: -32602, message: 'params[0].maxFeePerGas must be a 0x-hex quantity of wei.' });
    expect((await records()).length).toBe(before);
  });

  it('answers a stored transaction the node no longer knows from its signed bytes', async () => {
    const node = serve.readyInfo().nodeUrl;
    const nodeCall = (method: string, params: unknown[]) =>
      fetch(node, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }).then((r) => r.json() as Promise<{ result: unknown }>);
    // No blocks while the node forgets it, so neither mining nor txdesk's resend (every 3 blocks) brings it back first.
    await nodeCall('evm_setIntervalMining', [0]);
    try {
      const signer = await provider.getSigner();
      const hash = (await provider.send('eth_sendTransaction', [
        { from: signer.address, to: '0x' + '5'.repeat(40), value: '0x9', data: '0xabcd' },
      ])) as string;
      await nodeCall('anvil_dropTransaction', [hash]);
      expect((await nodeCall('eth_getTransactionByHash', [hash])).result).toBeNull();
      const tx = await provider.getTransaction(hash); // ethers parses txdesk's answer as it parses a node's
      expect(tx).toMatchObject({ hash, to: '0x' + '5'.repeat(40), value: 9n, data: '0xabcd', blockNumber: null });
      expect(tx!.from.toLowerCase()).toBe(serve.readyInfo().address);
      const raw = (await (
        await fetch(`${serve.readyInfo().apiUrl}/api/tx/${hash}`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as TxRecord;
      expect(raw.transactionHash).toBe(hash);
    } finally {
      await nodeCall('evm_setIntervalMining', [1]);
    }
  });

  it('decodes signed bytes of both transaction types into the node JSON shape', async () => {
    const wallet = Wallet.createRandom();
    for (const tx of [
      {
        chainId: 31337,
        nonce: 4,
        to: '0x' + '5'.repeat(40),
        value: 9n,
        gasLimit: 21000n,
        maxFeePerGas: 2n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
        type: 2,
        data: '0xabcd',
      },
      { chainId: 31337, nonce: 5, to: null, value: 0n, gasLimit: 90000n, gasPrice: 10n ** 9n, type: 0, data: '0x6080' },
    ]) {
      const raw = await wallet.signTransaction(tx);
      const json = pendingTransactionJson(raw);
      const back = Transaction.from(raw);
      expect(json).toMatchObject({
        hash: back.hash,
        from: wallet.address.toLowerCase(),
        nonce: `0x${tx.nonce.toString(16)}`,
        to: tx.to,
        input: tx.data,
        gas: `0x${tx.gasLimit.toString(16)}`,
        type: `0x${tx.type}`,
        blockHash: null,
        blockNumber: null,
        transactionIndex: null,
      });
      // The signature in the answer is the one in the bytes: the same transaction signed again would verify.
      expect(
        Transaction.from({ ...back.toJSON(), signature: { r: json.r as string, s: json.s as string, v: Number(BigInt(json.v as string)) } })
          .from,
      ).toBe(wallet.address);
    }
  });
});
