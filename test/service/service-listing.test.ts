// Listing results against a model replayed from the chain's Transfer logs, for every order_by x direction x filter,
// with pages that cover totalCount exactly once; then a restart on the same data dir resumes.
import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { silentLogger } from '../../src/lib/log.js';
import { startService, type RunningService } from '../../src/service/index.js';
import { ORDER_BY, type OrderBy, type OrderDirection } from '../../src/shared/listing.js';
import { call, startTestDevService, tempDir, waitForIndexed, type TestDevService } from '../support/service/service-harness.js';
import { modelFromChain, modelList, type ModelToken } from '../support/service/service-model.js';

const ERC721 = ['function transferFrom(address from, address to, uint256 id)', 'function tokenURI(uint256 id) view returns (string)'];
const ERC1155 = ['function uri(uint256 id) view returns (string)'];
const DIRECTIONS: OrderDirection[] = ['asc', 'desc'];

let dev: TestDevService;
let dataDir: string;
let base: string;
let clientId: string;
let model: ModelToken[];
let alice: string;
let provider: JsonRpcProvider;

beforeAll(async () => {
  dataDir = tempDir();
  dev = await startTestDevService({ dataDir });
  base = dev.service.url;
  clientId = dev.clientId;
  // ethers polls for receipts every 4 s unless told otherwise; blocks come every second here.
  provider = new JsonRpcProvider(dev.devchain.nodeUrl, undefined, { staticNetwork: true, pollingInterval: 200 });
  const [, a, b] = dev.devchain.accounts;
  alice = a!.address.toLowerCase();
  await dev.devchain.giveTokens(a!.address, 12);
  await dev.devchain.giveTokens(b!.address, 6);

  // Move tokens both ways, so transfer order differs from mint order and some of alice's tokens came from bob.
  const head = await provider.getBlockNumber();
  const before = (await modelFromChain(dev.devchain.nodeUrl, head)).tokens;
  const bob = b!.address.toLowerCase();
  const moves: Array<[ModelToken, { address: string; privateKey: string }, string]> = [
    ...before
      .filter((t) => t.owner === bob)
      .slice(0, 3)
      .map((t) => [t, b!, alice] as [ModelToken, typeof b & {}, string]),
    ...before
      .filter((t) => t.owner === alice)
      .slice(0, 1)
      .map((t) => [t, a!, bob] as [ModelToken, typeof a & {}, string]),
  ];
  // One nonce counter per sender for all of its moves: a fresh counter per move may read a pending count that lags.
  // Sent one after another (each nonce in order), mined together.
  const signers = new Map<string, NonceManager>();
  const sent = [];
  for (const [token, from, to] of moves) {
    const signer = signers.get(from.address) ?? new NonceManager(new Wallet(from.privateKey, provider));
    signers.set(from.address, signer);
    sent.push(await (new Contract(token.contract, ERC721, signer) as any).transferFrom(from.address, to, token.id));
  }
  const receipts = await Promise.all(sent.map((tx) => tx.wait()));
  const last = Math.max(head, ...receipts.map((r) => r.blockNumber as number));
  await waitForIndexed(base, last);
  const health = await call(`${base}/health`);
  model = (await modelFromChain(dev.devchain.nodeUrl, health.body.indexedBlock)).tokens;
});

afterAll(async () => {
  provider?.destroy();
  await dev?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Walks nextUrl from page 0 and checks every prevUrl points back; returns the concatenated tokens and totalCount. */
async function walk(firstUrl: string): Promise<{ tokens: any[]; totalCount: number; pages: number }> {
  const tokens: any[] = [];
  let url = firstUrl;
  let previous = '';
  let totalCount = -1;
  let pages = 0;
  while (url) {
    const page = await call(url.includes('clientId=') ? url : `${url}&clientId=${clientId}`);
    expect(page.status, page.text).toBe(200);
    const p = page.body.pagination;
    if (totalCount >= 0) expect(p.totalCount).toBe(totalCount);
    totalCount = p.totalCount;
    expect(p.prevUrl).toBe(previous);
    expect(p.nextUrl).not.toMatch(/clientId/);
    expect(p.prevUrl).not.toMatch(/clientId/);
    tokens.push(...page.body.data);
    previous = url.replace(/[?&]clientId=[^&]*/, '');
    url = p.nextUrl;
    pages++;
    expect(pages).toBeLessThan(200);
  }
  return { tokens, totalCount, pages };
}

const summary = (t: { contract: { address: string } | string; id: string | bigint }) =>
  `${typeof t.contract === 'string' ? t.contract : t.contract.address}#${t.id}`;

describe('account listing against the chain', () => {
  const combos: Array<[OrderBy, OrderDirection, string]> = [];
  for (const orderBy of ORDER_BY)
    for (const direction of DIRECTIONS)
      for (const filter of ['none', 'one', 'two', 'unknown+one'] as const) combos.push([orderBy, direction, filter]);

  it('gives the model a few contracts and enough tokens to page', () => {
    const mine = model.filter((t) => t.owner === alice);
    expect(mine.length).toBeGreaterThanOrEqual(12);
    expect(new Set(mine.map((t) => t.contract)).size).toBeGreaterThanOrEqual(2);
  });

  it.each(combos)('order_by=%s order_direction=%s filter=%s', async (orderBy, direction, filter) => {
    const contracts = [...new Set(model.filter((t) => t.owner === alice).map((t) => t.contract))].sort();
    const unknown = '0x' + '77'.repeat(20);
    const chosen = {
      none: undefined,
      one: [contracts[0]!],
      two: contracts.slice(0, 2),
      'unknown+one': [unknown, contracts[1]!.toUpperCase().replace('0X', '0x')],
    }[filter];
    const expected = modelList(model, { owner: alice, ...(chosen ? { contracts: chosen } : {}) }, orderBy, direction);
    const query =
      `page=0&size=5&order_by=${orderBy}&order_direction=${direction}` +
      (chosen ? `&contractAddresses=${chosen.map((c) => c.toLowerCase()).join(',')}` : '');
    // The first request is built like the service builds its links, so prevUrl of page 1 equals it.
    const { tokens, totalCount, pages } = await walk(`${base}/nft/v1/accounts/${alice}/tokens?${query}`);
    expect(totalCount).toBe(expected.length);
    expect(tokens.map(summary)).toEqual(expected.map(summary));
    expect(pages).toBe(Math.max(1, Math.ceil(expected.length / 5)));
    for (const t of tokens) expect(t.owner).toBe(alice);
  });

  it('reports uri and contract metadata as the chain does', async () => {
    const page = await call(`${base}/nft/v1/accounts/${alice}/tokens?clientId=${clientId}&size=200`);
    const byAddress = new Map(dev.devchain.collections.map((c) => [c.address.toLowerCase(), c]));
    for (const t of page.body.data) {
      let uri = '';
      try {
        // ERC-1155: uri(id) with the {id} substitution of EIP-1155 (64 lowercase hex digits).
        uri =
          t.contract.standard === 'ERC1155'
            ? String(await (new Contract(t.contract.address, ERC1155, provider) as any).uri(BigInt(t.id))).replaceAll(
                '{id}',
                BigInt(t.id).toString(16).padStart(64, '0'),
              )
            : await (new Contract(t.contract.address, ERC721, provider) as any).tokenURI(BigInt(t.id));
      } catch {
        uri = '';
      }
      expect(t.uri).toBe(uri);
      const c = byAddress.get(t.contract.address);
      if (c) expect(t.contract).toMatchObject({ name: c.name, symbol: c.symbol });
      expect(Number.isInteger(t.contract.totalSupply)).toBe(true);
    }
  });

  it('gives an empty first page and no links past the end', async () => {
    const nobody = '0x' + '99'.repeat(20);
    const empty = await call(`${base}/nft/v1/accounts/${nobody}/tokens?clientId=${clientId}`);
    expect(empty.body).toEqual({ data: [], pagination: { totalCount: 0, prevUrl: '', nextUrl: '' } });
    const far = await call(`${base}/nft/v1/accounts/${alice}/tokens?clientId=${clientId}&page=1000&size=200`);
    expect(far.body.data).toEqual([]);
    expect(far.body.pagination).toMatchObject({ prevUrl: '', nextUrl: '' });
    const farthest = await call(
      `${base}/nft/v1/accounts/${alice}/tokens?clientId=${clientId}&page=1000000000&size=200&order_by=contract_address`,
    );
    expect(farthest.status).toBe(200);
    expect(farthest.body).toEqual({ data: [], pagination: { totalCount: far.body.pagination.totalCount, prevUrl: '', nextUrl: '' } });
  });

  it("builds links from the service's own URL, never from the request Host, and refuses foreign Hosts", async () => {
    const port = new URL(base).port;
    // fetch cannot set Host, so these go through node:http.
    const viaHost = (host: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        get(`${base}/nft/v1/accounts/${alice}/tokens?clientId=${clientId}&size=1`, { headers: { host } }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        }).on('error', reject);
      });
    const local = await viaHost(`localhost:${port}`);
    expect(local.body.pagination.nextUrl).toBe(
      `${base}/nft/v1/accounts/${alice}/tokens?page=1&size=1&order_by=transfer_block_number&order_direction=desc`,
    );
    for (const host of ['evil.example', `evil.example:${port}`, `localhost.evil.example:${port}`]) {
      const foreign = await viaHost(host);
      expect([host, foreign.status, foreign.body.error?.code]).toEqual([host, 403, 'FORBIDDEN']);
    }
    // A loopback name on another port is a local proxy or tunnel (not rebindable): answered, links still our own.
    const tunnelled = await viaHost(`127.0.0.1:${Number(port) + 1}`);
    expect([tunnelled.status, tunnelled.body.pagination?.nextUrl]).toEqual([200, local.body.pagination.nextUrl]);
    // The tracker's WebSocket upgrade too.
    const upgrade = (host: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/tracker/ethereum/local?clientId=${clientId}`, { headers: { host } });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => (ws.close(), resolve(101)));
        ws.on('error', () => {});
      });
    expect(await upgrade('evil.example')).toBe(403);
    expect(await upgrade(`localhost:${port}`)).toBe(101);
  });

  it('with a public URL: answers that host too, and every link and the OpenAPI server use it', async () => {
    const svc = await startService({
      nodeUrl: dev.devchain.nodeUrl,
      dataDir: tempDir(),
      port: 0,
      confirmations: 0,
      openSignup: true,
      publicUrl: 'https://txdesk.example.com/',
      log: silentLogger,
    });
    try {
      await svc.caughtUp();
      const id = (await svc.accounts.signup({ email: 'pub@example.com', password: 'a password 123', name: 'P', organization: 'O' }))
        .clientId;
      const viaHost = (path: string, host: string) =>
        new Promise<{ status: number; body: any }>((resolve, reject) => {
          get(`${svc.url}${path}`, { headers: { host } }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          }).on('error', reject);
        });
      for (const host of ['txdesk.example.com', `127.0.0.1:${new URL(svc.url).port}`]) {
        const page = await viaHost(`/nft/v1/accounts/${alice}/tokens?clientId=${id}&size=1`, host);
        expect(page.status).toBe(200);
        expect(page.body.pagination.nextUrl.startsWith(`https://txdesk.example.com/nft/v1/accounts/${alice}/tokens?page=1`)).toBe(true);
        expect((await viaHost('/openapi.json', host)).body.servers).toEqual([{ url: 'https://txdesk.example.com' }]);
      }
      expect((await viaHost('/health', 'txdesk.example.com:8443')).status).toBe(403);
    } finally {
      await svc.stop();
    }
    await expect(
      startService({ nodeUrl: dev.devchain.nodeUrl, dataDir: tempDir(), port: 0, publicUrl: 'https://x.example/path', log: silentLogger }),
    ).rejects.toThrow(/no path/);
  });
});

describe('contract listing against the chain', () => {
  const combos: Array<[OrderBy, OrderDirection]> = [];
  for (const orderBy of ORDER_BY) for (const direction of DIRECTIONS) combos.push([orderBy, direction]);

  it.each(combos)('order_by=%s order_direction=%s', async (orderBy, direction) => {
    const contract = model[0]!.contract;
    const expected = modelList(model, { contracts: [contract] }, orderBy, direction);
    const { tokens, totalCount } = await walk(
      `${base}/nft/v1/contracts/${contract}/tokens?page=0&size=10&order_by=${orderBy}&order_direction=${direction}`,
    );
    expect(totalCount).toBe(expected.length);
    expect(tokens.map((t) => `${summary(t)}@${t.owner}`)).toEqual(expected.map((t) => `${summary(t)}@${t.owner}`));
  });
});

describe('restart', () => {
  let restarted: RunningService | undefined;
  afterAll(async () => {
    await restarted?.stop();
  });

  it('resumes on the same data dir: same accounts, same tokens, old sessions still valid', async () => {
    const firstUrl = `/nft/v1/accounts/${alice}/tokens?clientId=${clientId}&size=200&order_by=token_id`;
    const before = await call(`${base}${firstUrl}`);
    const signup = await call(`${base}/users/v1/signup`, {
      method: 'POST',
      body: { email: 'r@example.com', password: 'long enough', name: 'R' },
    });
    await dev.service.stop();

    restarted = await startService({
      nodeUrl: dev.devchain.nodeUrl,
      dataDir,
      port: 0,
      openSignup: true,
      confirmations: 0,
      log: silentLogger,
    });
    await restarted.caughtUp();
    const after = await call(`${restarted.url}${firstUrl}`);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(before.body.data);
    const me = await call(`${restarted.url}/users/v1/me`, { token: signup.body.jwtToken });
    expect(me.body.clientId).toBe(signup.body.clientId);
    expect((await call(`${restarted.url}/nft/v1/accounts/${alice}/tokens?clientId=${signup.body.clientId}`)).status).toBe(200);
  });
});
