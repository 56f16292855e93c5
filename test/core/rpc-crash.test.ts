// A SIGKILL of `txdesk serve` right after a tool's eth_sendTransaction answered, on a configured (congested) network
// where a person approves the request: after the restart the transaction is mined, and the tool's plain wait(), polling
// through a fresh provider against the restarted app, gets the mined attempt's receipt.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FetchRequest, JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCoreBuilt } from '../support/app/core-build.js';
import { startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { answerWhatWaits } from '../support/app/core-person.js';
import { exited, serveChildren, startServeChild, type ServeChild } from '../support/app/core-serve-process.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-rpc-crash-'));
const policy = { timeoutMs: 2_000, confirmations: 1 };
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

interface Child {
  child: ServeChild['child'];
  url: string;
  token: string;
}

async function startChild(): Promise<Child> {
  const { child, ready } = await startServeChild(policy, { ...chain.env, TXDESK_DATA_DIR: dir });
  return { child, url: ready.apiUrl, token: readFileSync(ready.apiTokenFile, 'utf8').trim() };
}

function providerOf(c: Child): JsonRpcProvider {
  const request = new FetchRequest(`${c.url}/rpc`);
  request.setHeader('Authorization', `Bearer ${c.token}`);
  return new JsonRpcProvider(request, undefined, { staticNetwork: true, pollingInterval: 250 });
}

describe('txdesk serve killed right after a tool sent', { timeout: 300_000 }, () => {
  it('mines the transaction after the restart, and the tool waits it out through a fresh provider', async () => {
    const first = await startChild();
    const provider = providerOf(first);
    let answered = false;
    const person = answerWhatWaits(first.url, first.token, true, () => answered);
    const hash = (await provider.send('eth_sendTransaction', [
      { from: chain.address, to: '0x' + '3'.repeat(40), value: '0x2a' },
    ])) as string;
    answered = true;
    first.child.kill('SIGKILL');
    provider.destroy();
    await person.catch(() => undefined);
    await exited(first.child);

    const second = await startChild();
    const fresh = providerOf(second);
    try {
      const tx = await waitFor('the transaction known to the restarted app', async () => (await fresh.getTransaction(hash)) ?? undefined, {
        timeoutMs: 180_000,
        retryErrors: true,
      });
      // The plain wait: the first hash's receipt is the mined attempt's, reprice or not.
      const receipt = (await tx.wait())!;
      expect(receipt.status).toBe(1);
      const mined = await fresh.getTransaction(receipt.hash);
      expect({ nonce: mined!.nonce, to: mined!.to!.toLowerCase(), value: mined!.value }).toEqual({
        nonce: tx.nonce,
        to: '0x' + '3'.repeat(40),
        value: 42n,
      });
      expect(BigInt(await chain.rpc<string>('eth_getBalance', ['0x' + '3'.repeat(40), 'latest']))).toBe(42n);
    } finally {
      fresh.destroy();
      second.child.kill('SIGTERM');
    }
  });
});
