// The indexer on the team's dev chain (startDevchain): sample collections, the sample ERC-20, tokens given to an account.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevchain, type Devchain } from '../../src/devchain/index.js';
import { silentLogger } from '../../src/lib/log.js';
import { openDatabase, type Db } from '../../src/lib/sqlite.js';
import { findContract, queryTokens, startIndexer, type Indexer } from '../../src/service/indexer/index.js';
import { expectListingsMatch, modelFromChain } from '../support/service-model.js';

let devchain: Devchain;
let dir: string;
let db: Db;
let indexer: Indexer;

beforeAll(async () => {
  devchain = await startDevchain({ log: silentLogger, progress: false });
  dir = mkdtempSync(join(tmpdir(), 'txdesk-indexer-devchain-'));
  db = openDatabase(join(dir, 'index.db'));
  indexer = startIndexer({ db, nodeUrl: devchain.nodeUrl, confirmations: 0, log: silentLogger, pollMs: 250 });
}, 120_000);

afterAll(async () => {
  await indexer?.stop().catch(() => {});
  db?.close();
  await devchain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('indexer on the dev chain', () => {
  it('indexes the sample collections, ignores the sample ERC-20, and lists tokens given to an account', async () => {
    const account = devchain.accounts[1]!.address.toLowerCase();
    await indexer.caughtUp();
    const before = queryTokens(db, { owner: account, page: 0, size: 200, orderBy: 'token_id', direction: 'asc' }).totalCount;
    await devchain.giveTokens(account, 3);
    await indexer.caughtUp();

    for (const c of devchain.collections) {
      const found = findContract(db, c.address);
      expect(found, c.name).not.toBeNull();
      if (c.kind === 'full') expect(found).toMatchObject({ address: c.address.toLowerCase(), name: c.name, symbol: c.symbol });
    }
    expect(findContract(db, devchain.erc20.address)).toBeNull();

    const mine = queryTokens(db, { owner: account, page: 0, size: 200, orderBy: 'transfer_block_number', direction: 'desc' });
    expect(mine.totalCount).toBe(before + 3);
    const tiles = devchain.collections.find((c) => c.kind === 'full')!.address.toLowerCase();
    for (const t of mine.tokens.slice(0, 3)) {
      expect(t.contract.address).toBe(tiles);
      expect(t.uri.startsWith(devchain.metadataUrl)).toBe(true);
    }

    const model = await modelFromChain(devchain.nodeUrl);
    const owners = [...new Set(model.tokens.map((t) => t.owner))];
    expectListingsMatch(db, model.tokens, {
      owners,
      contracts: devchain.collections.map((c) => c.address.toLowerCase()),
      filters: [undefined, [tiles]],
      sizes: [7],
    });
  });
});
