// Any transaction through the engine on a real, congested dev chain: a contract deployed and called with value, each
// replacement a reprice (same to, value, data and gas limit), cancel a 0-value self-transfer; and the refusals made
// before anything is signed (a revert with its decoded reason, a balance short of the worst case, a malformed field),
// none of which stores a record.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src/core/create-core.js';
import { silentLogger } from '../../src/lib/log.js';
import { isTxdeskError } from '../../src/shared/errors.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { authHeader } from '../support/app/core-api-token.js';
import { startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { counterArtifact } from '../support/chain/counter-contract.js';
import { waitFor } from '../support/poll.js';

const GWEI = 1_000_000_000n;
const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-send-'));
const counter = new Interface(counterArtifact().abi as never);
let chain: TestChain;
let core: Core;
let address: string;
let app: string;
let auth: { authorization: string };

/** POST /api/tx with `body` (raw text, or none), as a tool would. */
async function postTx(body?: string): Promise<{ status: number; json: { error?: { code: string; message: string } } & Partial<TxRecord> }> {
  const res = await fetch(`${app}/api/tx`, {
    method: 'POST',
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
  });
  return { status: res.status, json: (await res.json()) as never };
}

beforeAll(async () => {
  // Under `high` the load pays 1.7-1.8 gwei: a 1 gwei first attempt waits and is replaced after the 2 s timeout.
  chain = await startTestChain({ congestion: 'high' });
  const rendererDir = join(dir, 'renderer');
  mkdirSync(rendererDir);
  core = createCore({
    env: chain.env,
    dataDir: join(dir, 'data'),
    policy: { pricing: 'seed', timeoutMs: 2_000, confirmations: 1, maxFeeWei: String(50n * GWEI) },
    http: { port: 0, rendererDir },
    log: silentLogger,
  });
  const rt = await core.start();
  app = rt.appUrl!;
  auth = authHeader(rt.apiTokenFile!);
  address = chain.address;
});

afterAll(async () => {
  await core?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function confirmedOf(nonce: number): Promise<TxRecord[]> {
  return waitFor(
    `nonce ${nonce} confirmed`,
    async () => {
      const group = (await core.api.listTransactions()).filter((r) => r.nonce === nonce);
      return group.some((r) => r.status === 'confirmation') && group.every((r) => r.status === 'confirmation' || r.status === 'replaced')
        ? group
        : undefined;
    },
    { timeoutMs: 180_000, retryErrors: true },
  );
}

async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!isTxdeskError(e)) throw new Error(`expected a refusal, got ${String(e)}`);
  return { code: e.code, status: e.status, message: e.message };
}

const call = (name: string, args: unknown[] = []) => counter.encodeFunctionData(name, args);

describe('sending any transaction through the engine', { timeout: 300_000 }, () => {
  let contract: string;

  it('deploys a contract and calls it with value; every replacement keeps the payload', async () => {
    const deploy = await core.api.sendTransaction({ data: counterArtifact().bytecode });
    expect(deploy.to).toBeNull();
    expect(BigInt(deploy.gasLimit)).toBeGreaterThan(21_000n);
    const deployed = (await confirmedOf(deploy.nonce)).find((r) => r.status === 'confirmation')!;
    contract = String(deployed.data.contractAddress).toLowerCase();
    expect(contract).toMatch(/^0x[0-9a-f]{40}$/);

    const sent = await core.api.sendTransaction({ to: contract, value: '0x5', data: call('bump') });
    expect(sent).toMatchObject({ to: contract, value: '5', input: call('bump') });
    const group = await confirmedOf(sent.nonce);
    expect(group.length).toBeGreaterThan(1); // replaced at least once on the congested chain
    for (const r of group)
      expect({ to: r.to, value: r.value, input: r.input, gasLimit: r.gasLimit }).toEqual({
        to: contract,
        value: '5',
        input: call('bump'),
        gasLimit: sent.gasLimit,
      });
    // What the chain mined says the same as the records: the node saw a reprice.
    const winner = group.find((r) => r.status === 'confirmation')!;
    const mined = await chain.rpc<{ to: string; value: string; input: string; gas: string }>('eth_getTransactionByHash', [
      winner.transactionHash,
    ]);
    expect({ to: mined.to.toLowerCase(), value: BigInt(mined.value), input: mined.input, gas: BigInt(mined.gas) }).toEqual({
      to: contract,
      value: 5n,
      input: call('bump'),
      gas: BigInt(sent.gasLimit),
    });
    const count = BigInt(await chain.rpc<string>('eth_call', [{ to: contract, data: call('count') }, 'latest']));
    const paid = BigInt(await chain.rpc<string>('eth_call', [{ to: contract, data: call('paid') }, 'latest']));
    expect({ count, paid }).toEqual({ count: 1n, paid: 5n });
  });

  it('a speed-up is a reprice and a cancel is a 0-value transfer to yourself', async () => {
    const sent = await core.api.sendTransaction({ to: contract, data: call('bump') });
    const faster = await core.api.speedUpTransaction(sent.transactionHash);
    expect({ kind: faster.kind, to: faster.to, value: faster.value, input: faster.input, gasLimit: faster.gasLimit }).toEqual({
      kind: 'speed-up',
      to: contract,
      value: '0',
      input: call('bump'),
      gasLimit: sent.gasLimit,
    });
    const cancel = await core.api.cancelTransaction(faster.transactionHash).catch((e: unknown) => e);
    if (isTxdeskError(cancel)) {
      expect(cancel.message).toMatch(/already mined/); // the speed-up may win first on a fast block
    } else {
      expect({
        kind: (cancel as TxRecord).kind,
        to: (cancel as TxRecord).to,
        value: (cancel as TxRecord).value,
        input: (cancel as TxRecord).input,
        gasLimit: (cancel as TxRecord).gasLimit,
      }).toEqual({
        kind: 'cancel',
        to: address,
        value: '0',
        input: '0x',
        gasLimit: '21000',
      });
    }
    await confirmedOf(sent.nonce);
  });

  it('refuses a call that would revert, with the decoded reason, and stores nothing', async () => {
    const before = (await core.api.listTransactions()).length;
    const withString = await refusal(core.api.sendTransaction({ to: contract, data: call('failWith', ['not today']) }));
    expect(withString).toMatchObject({ code: 'WOULD_REVERT', status: 422 });
    expect(withString.message).toContain('"not today"');
    const panic = await refusal(core.api.sendTransaction({ to: contract, data: call('divide', [1, 0]) }));
    expect(panic.message).toContain('Panic(0x12): a division or modulo by zero');
    const custom = await refusal(core.api.sendTransaction({ to: contract, data: call('refuse'), gas: '100000' }));
    expect(custom.message).toContain(`custom error ${counter.getError('NotAllowed')!.selector}`);
    expect((await core.api.listTransactions()).length).toBe(before);
  });

  it('refuses a value the balance cannot cover at the fee cap, saying how much is missing', async () => {
    const before = (await core.api.listTransactions()).length;
    const balance = BigInt(await chain.rpc<string>('eth_getBalance', [address, 'latest']));
    const r = await refusal(core.api.sendTransaction({ to: '0x' + '1'.repeat(40), value: balance.toString() }));
    expect(r).toMatchObject({ code: 'CONFLICT', status: 409 });
    // 21,000 gas at the 50 gwei cap is missing on top of a value equal to the balance.
    expect(r.message).toContain(`add 0.00105 ETH`);
    expect((await core.api.listTransactions()).length).toBe(before);
  });

  it('refuses a malformed field, naming it', async () => {
    const cases: [unknown, string][] = [
      [{ to: '0x1234' }, 'to'],
      [{ to: '0x52908400098527886E0F7030069857D2E4169EE7'.replace('E7', 'e7') }, 'to'],
      [{ to: contract, value: '1.5' }, 'value'],
      [{ to: contract, data: '0x123' }, 'data'],
      [{ to: contract, gas: '100' }, 'gas'],
      [{ to: contract, nonce: 3 }, 'nonce'],
      [{ value: '1' }, 'to'],
    ];
    for (const [body, field] of cases) {
      const r = await refusal(core.api.sendTransaction(body as never));
      expect(r, JSON.stringify(body)).toMatchObject({ code: 'INVALID_PARAMETER', status: 400 });
      expect(r.message, JSON.stringify(body)).toContain(field);
    }
  });

  it('POST /api/tx: a body is a transaction, no body the 0-value self-transfer, refusals in the envelope', async () => {
    const before = (await core.api.listTransactions()).length;
    const demo = await postTx();
    expect(demo.status).toBe(201);
    expect(demo.json).toMatchObject({ to: address, value: '0', input: '0x', gasLimit: '21000' });
    expect((await postTx('{}')).json).toMatchObject({ to: address, value: '0', gasLimit: '21000' });
    const pay = await postTx(JSON.stringify({ to: '0x' + '2'.repeat(40), value: '1000' }));
    expect(pay.status).toBe(201);
    expect(pay.json).toMatchObject({ to: '0x' + '2'.repeat(40), value: '1000', gasLimit: '21000' });
    const reverts = await postTx(JSON.stringify({ to: contract, data: call('failWith', ['no']) }));
    expect(reverts).toMatchObject({ status: 422, json: { error: { code: 'WOULD_REVERT' } } });
    const bad = await postTx(JSON.stringify({ to: contract, value: '-1' }));
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'INVALID_PARAMETER' } } });
    expect(bad.json.error!.message).toContain("'value'");
    const broken = await postTx('{"to":');
    expect(broken.status).toBe(400);
    expect((await core.api.listTransactions()).length).toBe(before + 3);
    await confirmedOf(pay.json.nonce!);
  });
});
