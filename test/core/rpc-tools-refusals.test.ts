// What a tool hears when its request will not happen, on a configured (congested) network where a person approves
// tool requests: a person's decline is each library's own refusal (ethers ACTION_REJECTED, viem
// UserRejectedRequestError, web3.js and cast error 4001 "User denied"); a request the person cancels in the app after
// it was sent ends each library's wait with an error that says it was cancelled, instead of a wait that never ends;
// a nonce taken by a transaction signed elsewhere ends the wait saying so.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FetchRequest, isError, JsonRpcProvider, Wallet } from 'ethers';
import { BaseError, createWalletClient, defineChain, http, publicActions, UserRejectedRequestError, type Hex } from 'viem';
import { HttpProvider, Web3 } from 'web3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { castBinaryPath } from '../support/chain/cast-binary.js';
import { startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { answerWhatWaits } from '../support/app/core-person.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-rpc-refusals-'));
let chain: TestChain;
let serve: RunningServe;
let apiUrl: string;
let rpcUrl: string;
let token: string;
let approving = true;
let stopped = false;
let person: Promise<void>;

beforeAll(async () => {
  chain = await startTestChain({ congestion: 'high' });
  serve = await startServe({
    port: 0,
    env: { ...chain.env, TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { pricing: 'seed', timeoutMs: 2_000, confirmations: 1 },
    log: silentLogger,
  });
  apiUrl = serve.readyInfo().apiUrl;
  rpcUrl = `${apiUrl}/rpc`;
  token = readFileSync(serve.readyInfo().apiTokenFile, 'utf8').trim();
  person = answerWhatWaits(
    apiUrl,
    token,
    () => approving,
    () => stopped,
  );
});

afterAll(async () => {
  stopped = true;
  await person?.catch(() => undefined);
  await serve?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${token}` });
const recipient = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

function ethersProvider(): JsonRpcProvider {
  const request = new FetchRequest(rpcUrl);
  request.setHeader('Authorization', `Bearer ${token}`);
  const provider = new JsonRpcProvider(request);
  provider.pollingInterval = 500;
  return provider;
}

function viemClient() {
  const info = serve.readyInfo();
  const viemChain = defineChain({
    id: info.chainId,
    name: 'txdesk',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createWalletClient({
    chain: viemChain,
    transport: http(rpcUrl, { fetchOptions: { headers: { Authorization: `Bearer ${token}` } } }),
    pollingInterval: 500,
  }).extend(publicActions);
}

const web3Client = () => new Web3(new HttpProvider(rpcUrl, { providerOptions: { headers: { Authorization: `Bearer ${token}` } } }));

/** Runs cast with the URL and the token in its environment; resolves with its exit code and output. */
function castRun(args: string[], onLine?: (line: string) => void): Promise<{ code: number | null; out: string }> {
  const env = {
    ...process.env,
    ETH_RPC_URL: rpcUrl,
    ETH_RPC_HEADERS: `Authorization: Bearer ${token}`,
    ETH_FROM: serve.readyInfo().address!,
  };
  const child = spawn(castBinaryPath(), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += String(b)));
  child.stderr.on('data', (b: Buffer) => (out += String(b)));
  if (onLine) createInterface({ input: child.stdout }).on('line', onLine);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

/** The person cancels a request in the app (POST /api/tx/{hash}/cancel), as the app's Cancel button does. */
async function cancel(hash: string): Promise<void> {
  const res = await fetch(`${apiUrl}/api/tx/${hash}/cancel`, { method: 'POST', headers: auth() });
  expect(res.status, await res.clone().text()).toBe(202);
}

/** The first hash txdesk signed for a transfer to `to`, once it is stored. */
const firstHashTo = (to: string) =>
  waitFor(
    `a transaction to ${to} stored`,
    async () => {
      const all = (await (await fetch(`${apiUrl}/api/tx`, { headers: auth() })).json()) as TxRecord[];
      return all.find((r) => r.to === to && r.attempt === 0)?.transactionHash;
    },
    { timeoutMs: 180_000, retryErrors: true },
  );

describe("a person's decline reaches each library as its own refusal", { timeout: 300_000 }, () => {
  beforeAll(() => {
    approving = false;
  });
  afterAll(() => {
    approving = true;
  });

  it('ethers: ACTION_REJECTED', async () => {
    const provider = ethersProvider();
    try {
      const signer = await provider.getSigner();
      const e = await signer.sendTransaction({ to: recipient(0xd1), value: 1n }).catch((x: unknown) => x);
      expect(isError(e, 'ACTION_REJECTED')).toBe(true);
    } finally {
      provider.destroy();
    }
  });

  it('viem: UserRejectedRequestError', async () => {
    const client = viemClient();
    const [account] = await client.requestAddresses();
    const e = await client.sendTransaction({ account: account!, to: recipient(0xd2) as Hex, value: 1n }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BaseError);
    expect((e as BaseError).walk((x) => x instanceof UserRejectedRequestError)).toBeInstanceOf(UserRejectedRequestError);
  });

  it('web3.js: an error carrying code 4001 and "User denied"', async () => {
    const web3 = web3Client();
    const [from] = await web3.eth.getAccounts();
    const e = (await web3.eth.sendTransaction({ from, to: recipient(0xd3), value: 1 }).catch((x: unknown) => x)) as {
      innerError?: { code: number; message: string };
    };
    expect(e.innerError).toMatchObject({ code: 4001, message: expect.stringMatching(/User denied/) });
  });

  it('cast: exits 1 with error code 4001 "User denied"', async () => {
    const { code, out } = await castRun(['send', '--unlocked', recipient(0xd4), '--value', '1']);
    expect(code).toBe(1);
    expect(out).toMatch(/error code 4001: User denied/);
  });
});

describe('a request the person cancels in the app ends the wait with an error that says so', { timeout: 300_000 }, () => {
  it('ethers: an unchanged script that sends and waits exits with the cancel; a wait begun after it rejects with ACTION_REJECTED', async () => {
    const to = recipient(0xc1);
    const script = join(import.meta.dirname, '../support/app/ethers-send-and-wait.mjs');
    const child = spawn(process.execPath, [script, rpcUrl, token, to], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += String(b)));
    child.stderr.on('data', (b: Buffer) => (out += String(b)));
    const code = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const hash = ((await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve))) as string).match(
      /0x[0-9a-f]{64}/,
    )![0];
    await cancel(hash);
    // ethers polls receipts outside the wait's promise, so the cancel ends the script (as an uncaught error) when the
    // wait is under way, or rejects the wait when it scans the chain first: either way it says cancelled.
    expect(await code).not.toBe(0);
    expect(out).toMatch(/ACTION_REJECTED.*cancelled in txdesk|"cancelled"/s);
    expect(out).not.toMatch(/"mined"/);

    const provider = ethersProvider();
    try {
      const tx = (await provider.getTransaction(hash))!;
      const e = await tx.wait().catch((x: unknown) => x);
      expect(isError(e, 'ACTION_REJECTED')).toBe(true);
      expect(JSON.stringify((e as { info?: unknown }).info)).toMatch(/cancelled in txdesk/);
    } finally {
      provider.destroy();
    }
  });

  it('viem: waitForTransactionReceipt rejects with UserRejectedRequestError saying cancelled', async () => {
    const client = viemClient();
    const [account] = await client.requestAddresses();
    const hash = await client.sendTransaction({ account: account!, to: recipient(0xc2) as Hex, value: 1n });
    await cancel(hash);
    const e = (await client.waitForTransactionReceipt({ hash }).catch((x: unknown) => x)) as BaseError;
    expect(e.walk((x) => x instanceof UserRejectedRequestError)).toBeInstanceOf(UserRejectedRequestError);
    expect(e.message).toMatch(/cancelled in txdesk/);
  });

  it('web3.js: sendTransaction rejects with code 4001 saying cancelled', async () => {
    const web3 = web3Client();
    const [from] = await web3.eth.getAccounts();
    // Told 1 gwei (web3.js would otherwise tip 2.5 gwei and be mined before anyone could cancel).
    const sent = web3.eth.sendTransaction({ from, to: recipient(0xc3), value: 1, gasPrice: '1000000000' });
    sent.on('transactionHash', (h) => {
      void cancel(String(h));
    });
    const e = (await sent.catch((x: unknown) => x)) as { innerError?: { code: number; message: string } };
    expect(e.innerError).toMatchObject({ code: 4001, message: expect.stringMatching(/cancelled in txdesk/) });
  });

  it('cast: send exits 1 saying cancelled', async () => {
    const to = recipient(0xc4);
    const run = castRun(['send', '--unlocked', '--gas-price', '1gwei', to, '--value', '1']);
    await cancel(await firstHashTo(to));
    const { code, out } = await run;
    expect(code).toBe(1);
    expect(out).toMatch(/cancelled in txdesk/);
  });
});

describe('a nonce used by a transaction signed elsewhere', { timeout: 300_000 }, () => {
  it("ends viem's wait saying so; the receipt of the first hash is an error, not a wait", async () => {
    const client = viemClient();
    const [account] = await client.requestAddresses();
    const hash = await client.sendTransaction({ account: account!, to: recipient(0xf1) as Hex, value: 1n });
    const tx = await client.getTransaction({ hash });
    // The same key, elsewhere: a wallet straight on the node fills the nonce first, at a price above the load.
    const elsewhere = new Wallet(chain.privateKey, new JsonRpcProvider(chain.dev.devchain.nodeUrl, undefined, { staticNetwork: true }));
    try {
      await (
        await elsewhere.sendTransaction({ to: recipient(0xf2), value: 2n, nonce: tx.nonce, gasPrice: 50n * 10n ** 9n, type: 0 })
      ).wait();
    } finally {
      elsewhere.provider!.destroy();
    }
    const e = (await client.waitForTransactionReceipt({ hash }).catch((x: unknown) => x)) as BaseError;
    expect(e).toBeInstanceOf(BaseError);
    expect(e.message).toMatch(/will never be mined: its nonce \d+ was used by a transaction txdesk did not sign/);
  });
});
