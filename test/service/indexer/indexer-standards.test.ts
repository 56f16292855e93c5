// The indexer on a real anvil with the token standards beyond ERC-721 Transfer: EIP-2309 batch mints (then moves and
// burns out of the range), ERC-1155 single and batch transfers to and from the zero address, a reorganisation that
// removes a batch mint, ERC-4906 metadata updates and manual refresh, and the cap on huge ConsecutiveTransfer ranges.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { startIndexer, type Indexer } from '../../../src/service/indexer/indexer.js';
import { findContract, queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';
import { TOKEN_TOPICS } from '../../../src/service/indexer/indexer-events.js';
import { prepareRange } from '../../../src/service/indexer/indexer-prepare.js';
import { createChainReader } from '../../../src/service/indexer/indexer-rpc.js';
import { decodeRawLogs, scanTokenLogs } from '../../../src/service/indexer/indexer-log-scan.js';
import type { RawLog } from '../../../src/service/indexer/indexer-rpc.js';
import type { Token } from '../../../src/shared/listing.js';
import { rpc, startRpcProxy, startTestChain, type TestChain } from '../../support/chain/indexer-chain.js';
import { expectListingsMatch, modelFromChain } from '../../support/service/service-model.js';
import { waitFor } from '../../support/poll.js';

const ZERO = '0x' + '0'.repeat(40);
const [a, b, c, d, e] = ['0x1111', '0x2222', '0x3333', '0x4444', '0x5555'].map((p) => (p + '0'.repeat(36)).toLowerCase()) as [
  string,
  string,
  string,
  string,
  string,
];
const CAP = 6_000;

let chain: TestChain;
let dir: string;
let db: Db;
let indexer: Indexer;
let drop: Contract;
let huge: Contract;
let multi: Contract;
let bareMulti: Contract;
let nft: Contract;
const warnings: string[] = [];
const log: Logger = { info() {}, warn: (m: string) => void warnings.push(m), error() {}, child: () => log };
const addr = (x: Contract) => (x.target as string).toLowerCase();
const hex64 = (id: bigint) => id.toString(16).padStart(64, '0');

function expectedUri(t: Token): string {
  if (t.contract.address === addr(drop)) return `ipfs://d/${t.id}`;
  if (t.contract.address === addr(nft)) return `ipfs://t/${t.id}`;
  if (t.contract.address === addr(multi)) return `ipfs://m/${hex64(BigInt(t.id))}.json`;
  return '';
}

async function expectIndexMatchesChain(opts: { sizes: number[]; owners: string[]; uri?: (t: Token) => void }): Promise<void> {
  const model = await modelFromChain(chain.url);
  const tokens = model.tokens.filter((t) => t.contract !== addr(huge));
  const contracts = [drop, multi, bareMulti, nft].map(addr);
  expectListingsMatch(db, tokens, {
    owners: opts.owners,
    contracts: [],
    filters: [undefined, [addr(drop)], [addr(multi), addr(nft)]],
    standards: [undefined, 'ERC721', 'ERC1155'],
    sizes: opts.sizes,
    check: opts.uri ?? ((t) => expect(t.uri).toBe(expectedUri(t))),
  });
  // Contract listings page by id and by transfer too (several holders of one ERC-1155 id).
  expectListingsMatch(db, tokens, { owners: [], contracts, filters: [undefined], sizes: [200] });
  for (const x of [multi, bareMulti]) expect(findContract(db, addr(x))?.totalSupply).toBe(model.idsWithSupply.get(addr(x)) ?? 0);
  expect(findContract(db, addr(drop))?.totalSupply).toBe((model.minted.get(addr(drop)) ?? 0) - (model.burned.get(addr(drop)) ?? 0));
}

beforeAll(async () => {
  chain = await startTestChain();
  dir = mkdtempSync(join(tmpdir(), 'txdesk-standards-'));
  db = openDatabase(join(dir, 'index.db'));
  drop = await chain.deploy('TestDrop');
  huge = await chain.deploy('TestDrop');
  multi = await chain.deploy('TestMulti');
  bareMulti = await chain.deploy('TestBareMulti');
  nft = await chain.deploy('TestNft', 'Plain', 'PLN');
  // EIP-2309: one event of 5,000 tokens, then four ranges in one transaction; moves and burns out of the ranges.
  await chain.send(drop, 'mintRange', a, 1, 5000);
  await chain.send(drop, 'mintRanges', b, 10_000, 3, 4);
  await chain.send(drop, 'move', a, c, 17);
  await chain.send(drop, 'burn', a, 4999);
  await chain.send(drop, 'move', b, a, 10_005);
  await chain.send(drop, 'burn', b, 10_000);
  await chain.send(nft, 'mintMany', a, 1, 3);
  await chain.send(nft, 'move', c, 2);
  // ERC-1155: batch mint, single transfer, batch burn, single mint of a huge id, a bare contract.
  await chain.send(multi, 'batch', ZERO, a, [1, 2, 3], [10, 20, 30]);
  await chain.send(multi, 'single', a, b, 1, 4);
  await chain.send(multi, 'batch', a, ZERO, [2, 3], [20, 5]);
  await chain.send(multi, 'single', ZERO, c, 2n ** 200n, 1);
  await chain.send(multi, 'batch', a, c, [1, 3], [6, 25]);
  await chain.send(bareMulti, 'single', ZERO, d, 5, 2);
  await chain.send(bareMulti, 'single', d, a, 5, 1);
}, 120_000);

afterAll(async () => {
  await indexer?.stop().catch(() => {});
  db?.close();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('indexer on anvil: EIP-2309, ERC-1155, ERC-4906', () => {
  it('indexes batch mints, moves out of the ranges and ERC-1155 balances like the model replayed from the chain', async () => {
    indexer = startIndexer({
      db,
      nodeUrl: chain.url,
      confirmations: 0,
      log,
      pollMs: 100,
      bucketSize: 4,
      consecutiveCap: CAP,
      partMoves: 3,
    });
    await indexer.caughtUp();
    await expectIndexMatchesChain({ owners: [a, b, c, d, e], sizes: [200] });
    await expectIndexMatchesChain({ owners: [b, c, d], sizes: [1, 3] });
    const page = queryTokens(db, { owner: a, page: 0, size: 200, orderBy: 'contract_address', direction: 'asc', standard: 'ERC1155' });
    // a: id 1 left at 0 (10 - 4 - 6) and id 3 at 0 (30 - 5 - 25) are gone; id 5 of the bare contract remains.
    expect(page.tokens.map((t) => [t.contract.address, t.id, t.balance])).toEqual([[addr(bareMulti), '5', '1']]);
    expect(findContract(db, addr(multi))).toMatchObject({ name: 'Multi', symbol: 'MLT', standard: 'ERC1155', totalSupply: 3 });
    expect(findContract(db, addr(bareMulti))).toMatchObject({ name: '', symbol: '', standard: 'ERC1155', totalSupply: 1 });
    expect(findContract(db, addr(drop))).toMatchObject({ name: 'Drop', standard: 'ERC721', totalSupply: 5000 + 12 - 2 });
    // c holds 25 of id 3 and one of 2^200, with the {id} substitution of EIP-1155.
    const cs = queryTokens(db, { owner: c, page: 0, size: 10, orderBy: 'token_id', direction: 'desc', contracts: [addr(multi)] }).tokens;
    expect(cs.map((t) => [t.id, t.balance, t.uri])).toEqual([
      [(2n ** 200n).toString(), '1', `ipfs://m/${hex64(2n ** 200n)}.json`],
      ['3', '25', `ipfs://m/${hex64(3n)}.json`],
      ['1', '6', `ipfs://m/${hex64(1n)}.json`],
    ]);
  });

  it("decodes the node's eth_getLogs answer from its bytes exactly as from JSON.parse (every event kind here)", async () => {
    const head = await rpc<string>(chain.url, 'eth_blockNumber');
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 0, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: head, topics: [TOKEN_TOPICS] }] },
    ]);
    const bytes = Buffer.from(
      await (await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).arrayBuffer(),
    );
    const json = decodeRawLogs((JSON.parse(bytes.toString()) as { result: RawLog[] }[])[0]!.result, CAP);
    expect(new Set(json.decoded.moves.map((m) => `${m.amount === null}:${m.sub > 0}`)).size).toBe(4);
    expect(scanTokenLogs(bytes, CAP)).toEqual(json);
  });

  it('a range read asks the index about each contract once, however many of its moves the range holds', async () => {
    const asked = new Map<string, number>();
    // Every contract new to the index: each one's moves ask about it, and none is found.
    const lookups = {
      contractOf: (address: string) => void asked.set(address, (asked.get(address) ?? 0) + 1),
      idKnown: () => false,
    };
    const reader = createChainReader(chain.url);
    try {
      const parts = await prepareRange(reader, lookups, 0, Number(await rpc<string>(chain.url, 'eth_blockNumber')), new Set());
      const moved = (await Promise.all(parts.map((p) => p.result))).flatMap((r) => r.logs);
      const contracts = new Set(moved.map((m) => m.contract));
      expect(contracts.size).toBeGreaterThanOrEqual(4);
      expect(moved.length).toBeGreaterThan(contracts.size * 10);
      expect([...contracts].every((c) => asked.get(c) === 1)).toBe(true);
      expect([...asked.values()].every((n) => n === 1)).toBe(true);
    } finally {
      reader.destroy();
    }
  });

  it('indexes the same through a node with other JSON habits: members reversed, spaced, and escaped strings half the time', async () => {
    // Reversed and spaced answers are scanned from their bytes; those with an escaped string go through JSON.parse.
    const proxy = await startRpcProxy(chain.url);
    let answers = 0;
    const reverse = (_: string, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v;
    proxy.format = (answer) => {
      const reshaped = JSON.parse(JSON.stringify(answer), reverse) as unknown;
      const noted = (a: unknown) => (a && typeof a === 'object' ? { ...a, note: 'a "quoted" word' } : a);
      return JSON.stringify(answers++ % 2 ? reshaped : Array.isArray(reshaped) ? reshaped.map(noted) : noted(reshaped), null, 1);
    };
    const other = openDatabase(join(dir, 'reshaped.db'));
    const second = startIndexer({
      db: other,
      nodeUrl: proxy.url,
      confirmations: 0,
      log,
      pollMs: 100,
      bucketSize: 4,
      consecutiveCap: CAP,
      partMoves: 3,
    });
    try {
      await Promise.all([second.caughtUp(), indexer.caughtUp()]);
      expect(answers).toBeGreaterThan(10);
      const holdings = (d: Db, owner: string, orderBy: 'token_id' | 'contract_address' | 'transfer_block_number') =>
        queryTokens(d, { owner, page: 0, size: 500, orderBy, direction: 'asc' }).tokens.map((t) => [t.contract.address, t.id, t.balance]);
      for (const owner of [a, b, c, d, e]) {
        for (const order of ['token_id', 'contract_address', 'transfer_block_number'] as const)
          expect(holdings(other, owner, order)).toEqual(holdings(db, owner, order));
      }
      expect(holdings(db, a, 'token_id').length).toBeGreaterThan(100);
      for (const x of [drop, multi, bareMulti, nft]) expect(findContract(other, addr(x))).toEqual(findContract(db, addr(x)));
    } finally {
      await second.stop();
      other.close();
      await proxy.stop();
    }
  });

  it('follows URI events for every holder of the id', async () => {
    await chain.send(multi, 'setUri', 1, 'ar://one/{id}');
    await indexer.caughtUp();
    const holders = queryTokens(db, { contract: addr(multi), page: 0, size: 50, orderBy: 'token_id', direction: 'asc' }).tokens.filter(
      (t) => t.id === '1',
    );
    expect(holders.map((t) => [t.owner, t.uri])).toEqual([
      [b, `ar://one/${hex64(1n)}`],
      [c, `ar://one/${hex64(1n)}`],
    ]);
  });

  it('re-reads tokenURI on ERC-4906 MetadataUpdate and BatchMetadataUpdate', async () => {
    await chain.send(drop, 'reveal', 'ar://revealed/');
    await chain.send(drop, 'setSpecial', 17, 'ar://seventeen');
    await indexer.caughtUp();
    // The lowest and the highest ids of an owner are on page 0 of the two directions.
    const byId = (owner: string, id: string) =>
      (['asc', 'desc'] as const)
        .flatMap(
          (direction) => queryTokens(db, { owner, page: 0, size: 200, orderBy: 'token_id', direction, contracts: [addr(drop)] }).tokens,
        )
        .find((t) => t.id === id);
    expect(byId(c, '17')?.uri).toBe('ar://seventeen');
    expect(byId(a, '1')?.uri).toBe('ar://revealed/1');
    expect(byId(a, '10005')?.uri).toBe('ar://revealed/10005');
    expect(
      queryTokens(db, { owner: a, page: 0, size: 200, orderBy: 'token_id', direction: 'desc', contracts: [addr(drop)] }).tokens.every((t) =>
        t.uri.startsWith('ar://revealed/'),
      ),
    ).toBe(true);
  });

  it('refreshes one token on demand (ERC-721 tokenURI, ERC-1155 uri of every holder); unknown tokens are refused', async () => {
    await chain.send(drop, 'setSpecialQuietly', 18, 'ar://quiet');
    await chain.send(multi, 'setBaseQuietly', 'ar://base2/{id}');
    await indexer.caughtUp();
    const uriOf = (owner: string, contract: string, id: string) =>
      queryTokens(db, { owner, page: 0, size: 200, orderBy: 'token_id', direction: 'asc', contracts: [contract] }).tokens.find(
        (t) => t.id === id,
      )?.uri;
    expect(uriOf(a, addr(drop), '18')).toBe('ar://revealed/18');
    expect(await indexer.refreshToken(addr(drop), 18n)).toBe(true);
    expect(await indexer.refreshToken(addr(multi), 1n)).toBe(true);
    expect(await indexer.refreshToken(addr(drop), 999_999n)).toBe(false);
    expect(await indexer.refreshToken(b, 1n)).toBe(false);
    await waitFor(
      'the refreshes to land',
      () => uriOf(a, addr(drop), '18') === 'ar://quiet' && uriOf(c, addr(multi), '1') === `ar://base2/${hex64(1n)}`,
      { timeoutMs: 10_000, everyMs: 50 },
    );
    expect(uriOf(b, addr(multi), '1')).toBe(`ar://base2/${hex64(1n)}`);
  });

  it('rolls back a reorganisation that removes a batch mint and an ERC-1155 batch mint', async () => {
    const snapshot = await rpc<string>(chain.url, 'evm_snapshot');
    await chain.send(drop, 'mintRange', d, 20_000, 50);
    await chain.send(multi, 'batch', ZERO, d, [7, 8], [1, 2]);
    await chain.send(multi, 'single', c, d, 3, 5);
    await indexer.caughtUp();
    expect(queryTokens(db, { owner: d, page: 0, size: 200, orderBy: 'token_id', direction: 'asc' }).totalCount).toBe(50 + 3 + 1);
    const reorgs = indexer.stats().reorgs;
    await rpc(chain.url, 'evm_revert', [snapshot]);
    chain.signer.reset();
    await chain.send(multi, 'single', c, a, 3, 1);
    await indexer.caughtUp();
    expect(indexer.stats().reorgs).toBeGreaterThan(reorgs);
    expect(queryTokens(db, { owner: d, page: 0, size: 200, orderBy: 'token_id', direction: 'asc' }).totalCount).toBe(1);
    expect(
      queryTokens(db, { owner: c, page: 0, size: 10, orderBy: 'token_id', direction: 'asc', contracts: [addr(multi)] }).tokens.find(
        (t) => t.id === '3',
      )?.balance,
    ).toBe('24');
    const uris = (t: Token) =>
      expect(t.uri).toBe(
        t.contract.address === addr(drop)
          ? t.id === '17'
            ? 'ar://seventeen'
            : t.id === '18'
              ? 'ar://quiet'
              : `ar://revealed/${t.id}`
          : t.uri,
      );
    await expectIndexMatchesChain({ owners: [a, b, c, d], sizes: [200], uri: uris });
  });

  it('indexes a ConsecutiveTransfer longer than the cap up to the cap, and says so in the log and the status', async () => {
    await chain.send(huge, 'mintRange', e, 1, CAP + 1000);
    await indexer.caughtUp();
    expect(queryTokens(db, { owner: e, page: 0, size: 1, orderBy: 'token_id', direction: 'desc' })).toMatchObject({
      totalCount: CAP,
      tokens: [{ id: String(CAP) }],
    });
    const t = indexer.truncatedRanges();
    expect(t).toMatchObject({
      count: 1,
      cap: CAP,
      latest: [{ contract: addr(huge), fromTokenId: '1', toTokenId: String(CAP + 1000), indexed: CAP }],
    });
    expect(warnings.some((w) => w.includes(`ConsecutiveTransfer of ${addr(huge)}`) && w.includes(`first ${CAP}`))).toBe(true);
  });
});
