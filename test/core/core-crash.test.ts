// SIGKILL of the app core at random points while transactions are generated, replaced and confirmed; after each
// restart with the same data dir nothing acknowledged is lost and the run ends in the same clean state.
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { authHeader } from '../support/app/core-api-token.js';
import { ensureCoreBuilt } from '../support/app/core-build.js';
import { allConfirmed, expectCleanEndState, startTestChain, type TestChain } from '../support/chain/core-chain.js';
import { exited, serveChildren, startServeChild, type ServeChild } from '../support/app/core-serve-process.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-crash-'));
const policy = { pricing: 'seed', timeoutMs: 2_000, confirmations: 2, maxReplacements: 5 };
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

async function startChild(): Promise<{ child: ServeChild['child']; url: string; auth: { authorization: string }; log: string[] }> {
  const { child, ready, log } = await startServeChild(policy, { ...chain.env, TXDESK_DATA_DIR: dir });
  expect(ready.address).toBe(chain.address);
  return { child, url: ready.apiUrl, auth: authHeader(ready.apiTokenFile), log };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('core killed with SIGKILL', { timeout: 420_000 }, () => {
  it('loses no record and ends with every nonce confirmed exactly once', async () => {
    const acknowledged = new Set<string>();
    const target = 20;
    const killDelays: number[] = [];
    let current = await startChild();
    for (let kills = 0; kills < 4; kills++) {
      // Anywhere from right after start-up (recovery still re-tracking) to deep in the replacement phase.
      const delay = 50 + Math.floor(Math.random() * 3_000);
      killDelays.push(delay);
      let killed = false;
      const { child, url, auth } = current;
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, delay);
      while (!killed) {
        if (acknowledged.size < target) {
          try {
            const res = await fetch(`${url}/api/tx`, { method: 'POST', headers: auth });
            if (res.status === 201) acknowledged.add(((await res.json()) as TxRecord).transactionHash);
          } catch {
            /* the process died under the request */
          }
        }
        await sleep(Math.floor(Math.random() * 100));
      }
      clearTimeout(timer);
      await exited(child);
      current = await startChild();
    }
    // The last run is left alone: it generates what is missing and settles everything.
    while (acknowledged.size < target) {
      const res = await fetch(`${current.url}/api/tx`, { method: 'POST', headers: current.auth });
      expect(res.status).toBe(201);
      acknowledged.add(((await res.json()) as TxRecord).transactionHash);
    }
    const final = await waitFor(
      'every nonce confirmed after the restarts',
      async () => {
        const list = (await (await fetch(`${current.url}/api/tx`, { headers: current.auth })).json()) as TxRecord[];
        return allConfirmed(list) ? list : undefined;
      },
      { timeoutMs: 240_000, retryErrors: true },
    ).catch((e: Error) => {
      throw new Error(`${e.message} (kill delays ${killDelays.join(', ')} ms)\n${current.log.join('').slice(-4000)}`);
    });

    const hashes = new Set(final.map((r) => r.transactionHash));
    for (const h of acknowledged) expect(hashes.has(h), `acknowledged ${h} is still stored`).toBe(true);
    const nonces = new Set(final.map((r) => r.nonce)).size;
    expect(nonces).toBeGreaterThanOrEqual(target);
    await expectCleanEndState(chain, final, nonces);
    current.child.kill('SIGTERM');
    await new Promise((r) => current.child.once('exit', r));
    // The store survived four SIGKILLs intact.
    const dbFile = readdirSync(dir).find((f) => /^tx-31337-[0-9a-f]{8}\.db$/.test(f))!;
    const db = new Database(join(dir, dbFile), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});
