// The market fee policy, the default on a configured network, on a congested chain whose blocks are full of load: a
// first attempt priced from recent blocks is mined without a replacement at every speed, and a transaction that
// offers less than the blocks include (a tool's own 1 gwei) is called stuck by the blocks, not by a clock, and
// replaced once, at the market's price, with the reason in the market's terms.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord, TxRecordWithHistory } from '../../src/shared/tx-record.js';
import { startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { answerWhatWaits } from '../support/app/core-person.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-market-'));
let chain: TestChain;
let serve: RunningServe;
let token: string;
let stopped = false;
let person: Promise<void>;

beforeAll(async () => {
  chain = await startTestChain({ congestion: 'high' });
  // A tracker timeout far away: under the market policy only the blocks may call a transaction stuck.
  serve = await startServe({
    port: 0,
    env: { ...chain.env, TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { timeoutMs: 600_000, confirmations: 1 },
    log: silentLogger,
  });
  token = readFileSync(serve.readyInfo().apiTokenFile, 'utf8').trim();
  person = answerWhatWaits(serve.readyInfo().apiUrl, token, true, () => stopped);
});

afterAll(async () => {
  stopped = true;
  await person?.catch(() => undefined);
  await serve?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${serve.readyInfo().apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as T;
};
const recipient = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const minedOf = (nonce: number) =>
  waitFor(
    `nonce ${nonce} mined`,
    async () =>
      (await api<TxRecord[]>('GET', '/api/tx'))
        .filter((r) => r.nonce === nonce)
        .find((r) => r.status === 'receipt' || r.status === 'confirmation'),
    { timeoutMs: 180_000, retryErrors: true },
  );

describe('the market fee policy on a congested configured network', { timeout: 300_000 }, () => {
  it('is the default there, and prices each speed so that it is mined without a replacement', async () => {
    const settings = await api<{ policy: { pricing: string; speed: string } }>('GET', '/api/settings');
    expect(settings.policy).toMatchObject({ pricing: 'market', speed: 'normal' });
    const sent = [];
    for (const [i, speed] of (['slow', 'normal', 'fast'] as const).entries())
      sent.push(await api<TxRecord>('POST', '/api/tx', { to: recipient(0xa0 + i), value: '1', speed }));
    for (const first of sent) {
      const mined = await minedOf(first.nonce);
      expect(mined.transactionHash).toBe(first.transactionHash);
      expect(first.txType).toBe('eip1559');
      const signed = (await api<TxRecordWithHistory>('GET', `/api/tx/${first.transactionHash}`)).history.find((e) => e.kind === 'signed')!;
      expect(signed.detail).toMatchObject({
        speed: expect.stringMatching(/slow|normal|fast/),
        marketTipWei: expect.stringMatching(/^\d+$/),
      });
      expect(first.pricedBy).toMatchObject({ by: 'market', speed: signed.detail.speed, tipWei: signed.detail.marketTipWei });
      expect(typeof mined.data.effectiveGasPrice).toBe('string');
    }
    const tips = await Promise.all(
      sent.map(async (r) => BigInt((await api<TxRecordWithHistory>('GET', `/api/tx/${r.transactionHash}`)).maxPriorityFeePerGas!)),
    );
    expect(tips[0]! <= tips[1]! && tips[1]! <= tips[2]!).toBe(true);
  });

  it('replaces an outbid transaction once the blocks say so, at the market price, saying why', async () => {
    // A tool's own 1 gwei legacy price: below every tip the load's blocks include.
    const rpc = await fetch(`${serve.readyInfo().apiUrl}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_sendTransaction',
        params: [{ from: serve.readyInfo().address, to: recipient(0xbb), value: '0x5', gasPrice: '0x3b9aca00' }],
      }),
    });
    const first = ((await rpc.json()) as { result: string }).result;
    const firstRec = await api<TxRecordWithHistory>('GET', `/api/tx/${first}`);
    const mined = await minedOf(firstRec.nonce);
    expect(mined.transactionHash).not.toBe(first);
    expect(mined.attempt).toBe(1);
    expect(firstRec.pricedBy).toEqual({ by: 'request' });
    expect(mined.pricedBy).toMatchObject({ by: 'market', speed: 'normal' });
    const history = (await api<TxRecordWithHistory>('GET', `/api/tx/${first}`)).history;
    const sentEvent = history.find((e) => e.kind === 'replacement-sent')!;
    expect(sentEvent.summary).toMatch(/included tips of .* and more; this one offers/);
    expect(BigInt(mined.gasPrice)).toBeGreaterThan(10n ** 9n);
  });
});
