// The market fee policy on the dev chain's simulated market (`market` congestion, short phases): transactions sent in
// calm, rush and spike phases are all mined, and those sent in calm phases without a replacement; a rush or spike may
// call for one, priced from the blocks.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { phaseAt, type MarketSchedule } from '../../src/devchain/devchain.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-market-phases-'));
const schedule: MarketSchedule = { calm: 8, rush: 4, spike: 3 };
let chain: TestChain;
let serve: RunningServe;
let token: string;

beforeAll(async () => {
  chain = await startTestChain({ congestion: 'market', marketSchedule: schedule });
  serve = await startServe({
    port: 0,
    env: { ...chain.env, TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { timeoutMs: 600_000, confirmations: 1 },
    log: silentLogger,
  });
  token = readFileSync(serve.readyInfo().apiTokenFile, 'utf8').trim();
});

afterAll(async () => {
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
const head = async () => Number(BigInt(await chain.rpc<string>('eth_blockNumber')));

describe('the market policy on the simulated market', { timeout: 300_000 }, () => {
  it('mines what is sent in every phase, and what is sent in calm without a replacement', async () => {
    const cycle = schedule.calm + schedule.rush + schedule.spike;
    const sent: { phase: string; nonce: number }[] = [];
    // Two cycles after the first (the market needs one to reach its rhythm), a transaction every other block.
    const start = (Math.floor((await head()) / cycle) + 2) * cycle;
    await waitFor(`block ${start}`, async () => ((await head()) >= start ? true : undefined), {
      timeoutMs: 120_000,
      everyMs: 200,
      retryErrors: true,
    });
    let last = -1;
    while ((await head()) < start + cycle) {
      const b = await head();
      if (b !== last && b % 2 === 0) {
        last = b;
        const r = await api<TxRecord>('POST', '/api/tx', { to: '0x' + 'ab'.repeat(20), value: '1' });
        sent.push({ phase: phaseAt(b + 1, schedule), nonce: r.nonce });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(new Set(sent.map((s) => s.phase))).toEqual(new Set(['calm', 'rush', 'spike']));
    const mined = await waitFor(
      'every transaction mined',
      async () => {
        const all = await api<TxRecord[]>('GET', '/api/tx');
        const byNonce = sent.map((s) =>
          all.filter((r) => r.nonce === s.nonce).find((r) => r.status === 'receipt' || r.status === 'confirmation'),
        );
        return byNonce.every(Boolean) ? (byNonce as TxRecord[]) : undefined;
      },
      { timeoutMs: 180_000, retryErrors: true },
    );
    sent.forEach((s, i) => {
      if (s.phase === 'calm') expect(mined[i]!.attempt, `nonce ${s.nonce}, sent in calm`).toBe(0);
      expect(mined[i]!.pricedBy?.by).toBe('market');
    });
  });
});
