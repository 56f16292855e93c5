// `startDevService` twice on one data dir: the second dev chain is a fresh chain, yet the dev account keeps its
// clientId and the index matches the new chain (the old blocks are rolled back); stop() is idempotent.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { startDevService, type DevService } from '../../src/service/index.js';
import { call, tempDir, waitForIndexed } from '../support/service/service-harness.js';
import { modelFromChain, modelList } from '../support/service/service-model.js';

const dataDir = tempDir();
const running: DevService[] = [];

afterAll(async () => {
  for (const d of running) await d.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps the dev account and re-indexes a fresh dev chain on the same data dir', async () => {
  const first = await startDevService({ port: 0, dataDir, blockTimeSeconds: 1, log: silentLogger });
  running.push(first);
  const holder = first.devchain.accounts[1]!.address.toLowerCase();
  await first.devchain.giveTokens(holder, 5);
  const head = Number(
    await (
      await fetch(first.devchain.nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
      })
    )
      .json()
      .then((r: any) => r.result),
  );
  await waitForIndexed(first.service.url, head);
  const before = await call(`${first.service.url}/nft/v1/accounts/${holder}/tokens?clientId=${first.clientId}`);
  await first.stop();
  await first.stop();

  const second = await startDevService({ port: 0, dataDir, blockTimeSeconds: 1, log: silentLogger });
  running.push(second);
  expect(second.clientId).toBe(first.clientId);
  const page = await call(
    `${second.service.url}/nft/v1/accounts/${holder}/tokens?clientId=${second.clientId}&size=200&order_by=token_id&order_direction=asc`,
  );
  const health = await call(`${second.service.url}/health`);
  const model = modelList(
    (await modelFromChain(second.devchain.nodeUrl, health.body.indexedBlock)).tokens,
    { owner: holder },
    'token_id',
    'asc',
  );
  // The 5 tokens given on the first chain do not exist on the second.
  expect(page.body.pagination.totalCount).toBe(before.body.pagination.totalCount - 5);
  expect(page.body.data.map((t: any) => `${t.contract.address}#${t.id}`)).toEqual(model.map((t) => `${t.contract}#${t.id}`));
});
