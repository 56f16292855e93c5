// A tool's JSON-RPC batch of transactions through /rpc on the embedded dev chain, as ethers sends many sends at once:
// the transactions' checks and broadcasts overlap, but their nonces follow the batch's order, one refused in the
// middle takes no nonce and holds nothing up, and a read after them in the batch sees them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/core/serve.js';
import { startEmbeddedNetwork } from '../../src/embedded/embedded-network.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TxRecord } from '../../src/shared/tx-record.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-rpc-batch-'));
let serve: RunningServe;
let headers: Record<string, string>;

beforeAll(async () => {
  serve = await startServe({
    port: 0,
    startEmbedded: startEmbeddedNetwork,
    env: { TXDESK_KEYCHAIN: 'off' },
    dataDir: dir,
    rendererDir: join(dir, 'none'),
    policy: { timeoutMs: 60_000, confirmations: 1 },
    log: silentLogger,
  });
  headers = { 'content-type': 'application/json', authorization: `Bearer ${readFileSync(serve.readyInfo().apiTokenFile, 'utf8').trim()}` };
});

afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function post(body: unknown): Promise<any> {
  const res = await fetch(`${serve.readyInfo().apiUrl}/rpc`, { method: 'POST', headers, body: JSON.stringify(body) });
  return res.json();
}

it("gives a batch's transactions their nonces in its order, skips a refused one, and a read after them sees them", {
  timeout: 120_000,
}, async () => {
  const from = serve.readyInfo().address!;
  const to = '0x000000000000000000000000000000000000b47c';
  const pendingBefore = Number(
    (await post({ jsonrpc: '2.0', id: 0, method: 'eth_getTransactionCount', params: [from, 'pending'] })).result,
  );
  const send = (id: number, value: bigint) => ({
    jsonrpc: '2.0',
    id,
    method: 'eth_sendTransaction',
    params: [{ from, to, value: `0x${value.toString(16)}` }],
  });
  const replies = await post([
    send(1, 1n),
    send(2, 2n),
    send(3, 10n ** 30n), // more than the balance: refused before signing
    send(4, 4n),
    { jsonrpc: '2.0', id: 5, method: 'eth_getTransactionCount', params: [from, 'pending'] },
    send(6, 6n),
  ]);
  expect(replies.map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(replies[2].error.code).toBe(-32000);
  const hashes = [replies[0], replies[1], replies[3], replies[5]].map((r: { result: string }) => r.result);
  const records = (await (await fetch(`${serve.readyInfo().apiUrl}/api/tx`, { headers })).json()) as TxRecord[];
  const nonceOf = (h: string) => records.find((r) => r.transactionHash === h)!.nonce;
  expect(hashes.map(nonceOf)).toEqual([pendingBefore, pendingBefore + 1, pendingBefore + 2, pendingBefore + 3]);
  expect(hashes.map((h) => records.find((r) => r.transactionHash === h)!.value)).toEqual(['1', '2', '4', '6']);
  // The read ran after the three transactions before it had been sent.
  expect(Number(replies[4].result)).toBe(pendingBefore + 3);
});
