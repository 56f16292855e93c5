// One ethers v6 script, unchanged, sends 50 transfers at once through txdesk's /rpc on a congested configured network
// (a person approves each) and then waits on each; txdesk is SIGKILLed while the waits run and started again on the
// same port. The nonces are contiguous, every wait returns the mined receipt (no TRANSACTION_REPLACED for a reprice),
// and every transfer arrives exactly once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FetchRequest, JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCoreBuilt } from '../support/app/core-build.js';
import { startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { answerWhatWaits } from '../support/app/core-person.js';
import { exited, serveChildren, startServeChild, type ServeChild } from '../support/app/core-serve-process.js';
import { freePort } from '../support/faults/reliability-procs.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-rpc-burst-'));
const policy = { timeoutMs: 2_000, confirmations: 1 };
const COUNT = 50;
let chain: TestChain;

beforeAll(async () => {
  ensureCoreBuilt();
  chain = await startTestChain({ congestion: 'high' });
});

afterAll(async () => {
  for (const c of serveChildren) c.kill('SIGKILL');
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** txdesk serve with a person approving what a tool asks; `stop()` ends the person, then the process is the test's. */
async function startApp(port: number): Promise<{ app: ServeChild; token: string; stopPerson(): Promise<void> }> {
  const app = await startServeChild(policy, { ...chain.env, TXDESK_DATA_DIR: dir }, port);
  const token = readFileSync(app.ready.apiTokenFile, 'utf8').trim();
  let stopped = false;
  const person = answerWhatWaits(app.ready.apiUrl, token, true, () => stopped).catch(() => undefined);
  return {
    app,
    token,
    async stopPerson() {
      stopped = true;
      await person;
    },
  };
}

const recipient = (i: number) => `0x${(0xb000 + i).toString(16).padStart(40, '0')}`;

describe('50 transfers at once from one script, txdesk killed while it waits', { timeout: 300_000 }, () => {
  it('contiguous nonces, every wait returns, every transfer arrives once', async () => {
    const port = await freePort();
    const first = await startApp(port);
    // The script, as ethers' docs write it: the provider at the app's URL with the token, its signer, sends, waits.
    const request = new FetchRequest(`${first.app.ready.apiUrl}/rpc`);
    request.setHeader('Authorization', `Bearer ${first.token}`);
    const provider = new JsonRpcProvider(request);
    // The test's own view of the script's traffic (ethers' debug events), to time the kill between two polls.
    let inFlight = 0;
    let lastActivity = Date.now();
    provider.on('debug', (e: { action: string }) => {
      if (e.action === 'sendRpcPayload') inFlight += 1;
      else if (e.action === 'receiveRpcResult' || e.action === 'receiveRpcError') inFlight -= 1;
      lastActivity = Date.now();
    });
    const requestsIdle = () =>
      waitFor("a pause in the script's requests", async () => (inFlight === 0 && Date.now() - lastActivity > 300) || undefined, {
        timeoutMs: 60_000,
        everyMs: 20,
        retryErrors: true,
      });
    try {
      const signer = await provider.getSigner();
      const txs = await Promise.all(
        Array.from({ length: COUNT }, (_, i) => signer.sendTransaction({ to: recipient(i), value: BigInt(i + 1) })),
      );
      const nonces = txs.map((t) => t.nonce).sort((a, b) => a - b);
      expect(nonces).toEqual(Array.from({ length: COUNT }, (_, i) => nonces[0]! + i));
      const waits = Promise.all(txs.map((t) => t.wait()));

      // In the middle of the waits: the app dies without a word and comes back on the same address. Between two of
      // ethers' polls: a request in flight when the app dies is a reset connection, which ethers' receipt poller does
      // not catch (an uncaught error in any script, whatever the server); its block poller rides out the outage.
      await new Promise((r) => setTimeout(r, 1_500));
      await requestsIdle();
      first.app.child.kill('SIGKILL');
      await first.stopPerson();
      await exited(first.app.child);
      const second = await startApp(port);
      try {
        const receipts = await waits;
        expect(receipts.every((r) => r !== null && r.status === 1)).toBe(true);
        // Each receipt is its own request's: the same nonce, mined once.
        const mined = await Promise.all(receipts.map((r) => provider.getTransaction(r!.hash)));
        expect(mined.map((t) => t!.nonce)).toEqual(txs.map((t) => t.nonce));
        const balances = await Promise.all(txs.map((_, i) => chain.rpc<string>('eth_getBalance', [recipient(i), 'latest'])));
        expect(balances.map((b) => BigInt(b))).toEqual(txs.map((_, i) => BigInt(i + 1)));
      } finally {
        await second.stopPerson();
        second.app.child.kill('SIGTERM');
        await exited(second.app.child);
      }
    } finally {
      provider.destroy();
    }
  });
});
