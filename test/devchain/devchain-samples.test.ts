// The sample world on a real anvil: collections, owners and history, token URIs and the metadata server, ERC-20 logs, giveTokens, fund.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract, JsonRpcProvider, Wallet, id as topicOf, parseEther } from 'ethers';
import { startDevchain, type Devchain } from '../../src/devchain/devchain.js';
import { silentLogger } from '../../src/lib/log.js';
import { dollarArtifact, dropsArtifact, gemsArtifact, pebblesArtifact, tilesArtifact } from '../../src/devchain/artifacts.js';
import { isAlive, rpc } from '../support/chain/devchain-helpers.js';

const TRANSFER = topicOf('Transfer(address,address,uint256)');

describe('dev chain sample world', () => {
  let devchain: Devchain;
  let provider: JsonRpcProvider;
  let tiles: Contract;
  let pebbles: Contract;

  beforeAll(async () => {
    devchain = await startDevchain({ congestion: 'off', log: silentLogger, progress: false });
    provider = new JsonRpcProvider(devchain.nodeUrl, devchain.chainId, { staticNetwork: true, pollingInterval: 200 });
    tiles = new Contract(devchain.collections.find((c) => c.kind === 'full')!.address, tilesArtifact.abi, provider);
    pebbles = new Contract(devchain.collections.find((c) => c.kind === 'minimal')!.address, pebblesArtifact.abi, provider);
  });
  afterAll(async () => {
    provider?.destroy();
    const pid = devchain?.anvilPid;
    await devchain?.stop();
    if (pid) expect(isAlive(pid)).toBe(false);
  });

  it('reports where everything is', async () => {
    const info = devchain.readyInfo();
    expect(info).toMatchObject({
      ready: true,
      nodeUrl: devchain.nodeUrl,
      chainId: 31337,
      metadataUrl: devchain.metadataUrl,
      congestion: 'off',
    });
    expect(info.collections.map((c) => `${c.kind}:${c.standard}`).sort()).toEqual([
      'batch-minted:ERC721',
      'full:ERC721',
      'minimal:ERC721',
      'multi:ERC1155',
    ]);
    expect(info.accounts).toHaveLength(10);
    expect(info.accounts[0]).toBe(new Wallet(devchain.accounts[0]!.privateKey).address);
    expect(Number(BigInt(await rpc<string>(devchain.nodeUrl, 'eth_chainId')))).toBe(31337);
    const block = await rpc<{ gasLimit: string }>(devchain.nodeUrl, 'eth_getBlockByNumber', ['latest', false]);
    expect(Number(BigInt(block.gasLimit))).toBeGreaterThanOrEqual(5_000_000);
    for (const c of info.collections) expect(c.address).toBe(c.address.toLowerCase());
  });

  it('deploys the full collection with owners, history and metadata URIs', async () => {
    const [a0, a1, a2, a3, a4] = devchain.accounts.map((a) => a.address);
    expect(await tiles.getFunction('owner')()).toBe(a0);
    expect(await tiles.getFunction('name')()).toBe('Txdesk Tiles');
    expect(await tiles.getFunction('totalSupply')()).toBeGreaterThanOrEqual(24n);
    // Token 1: minted to account 1, then 1 -> 2 and 2 -> 4 in two later blocks.
    expect(await tiles.getFunction('ownerOf')(1n)).toBe(a4);
    expect(await tiles.getFunction('ownerOf')(2n)).toBe(a1);
    expect(await tiles.getFunction('ownerOf')(7n)).toBe(a3); // safeTransferFrom 2 -> 3
    expect(await tiles.getFunction('ownerOf')(24n)).toBe(a1);
    expect(await tiles.getFunction('balanceOf')(a2)).toBe(5n);

    const logs = await provider.getLogs({
      address: await tiles.getAddress(),
      topics: [TRANSFER, null, null, '0x' + (1).toString(16).padStart(64, '0')],
      fromBlock: 0,
    });
    expect(logs).toHaveLength(3);
    expect(new Set(logs.map((l) => l.blockNumber)).size).toBe(3);

    const uri: string = await tiles.getFunction('tokenURI')(5n);
    expect(uri).toBe(`${devchain.metadataUrl}/${(await tiles.getAddress()).toLowerCase()}/5.json`);
    const res = await fetch(uri);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const meta = (await res.json()) as { name: string; description: string; image: string };
    expect(meta.name).toBe('Txdesk Tiles #5');
    expect(meta.description).toMatch(/Txdesk Tiles/);
    const image = await fetch(meta.image);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/svg+xml');
    expect(await image.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('deploys the minimal collection without totalSupply or tokenURI, with sparse ids and a burn', async () => {
    const [, , , a3, a4] = devchain.accounts.map((a) => a.address);
    expect(await pebbles.getFunction('name')()).toBe('Txdesk Pebbles');
    expect(await pebbles.getFunction('ownerOf')(42n)).toBe(a4);
    expect(await pebbles.getFunction('ownerOf')(2n ** 64n + 1n)).toBe(a3);
    await expect(pebbles.getFunction('ownerOf')(99n)).rejects.toThrow(); // burned
    const address = await pebbles.getAddress();
    const tilesIface = tiles.interface;
    await expect(provider.call({ to: address, data: tilesIface.encodeFunctionData('totalSupply') })).rejects.toThrow();
    await expect(provider.call({ to: address, data: tilesIface.encodeFunctionData('tokenURI', [42n]) })).rejects.toThrow();
    expect(await pebbles.getFunction('supportsInterface')('0x80ac58cd')).toBe(true);
    expect(await pebbles.getFunction('supportsInterface')('0x5b5e139f')).toBe(false);
  });

  it('deploys an ERC-20 whose Transfer logs carry 3 topics, unlike ERC-721 (4)', async () => {
    const logs = await provider.getLogs({ address: devchain.erc20.address, topics: [TRANSFER], fromBlock: 0 });
    expect(logs.length).toBeGreaterThanOrEqual(5);
    for (const l of logs) expect(l.topics).toHaveLength(3);
    const tileLogs = await provider.getLogs({ address: await tiles.getAddress(), topics: [TRANSFER], fromBlock: 0 });
    for (const l of tileLogs) expect(l.topics).toHaveLength(4);
    const dollar = new Contract(devchain.erc20.address, dollarArtifact.abi, provider);
    expect(await dollar.getFunction('balanceOf')(devchain.accounts[2]!.address)).toBe(parseEther('1005'));
  });

  it('gives tokens and funds any address', async () => {
    const stranger = Wallet.createRandom().address;
    const before: bigint = await tiles.getFunction('totalSupply')();
    await devchain.giveTokens(stranger, 3);
    expect(await tiles.getFunction('balanceOf')(stranger)).toBe(3n);
    expect(await tiles.getFunction('ownerOf')(before + 3n)).toBe(stranger);
    await Promise.all([devchain.fund(stranger, parseEther('1')), devchain.fund(stranger, parseEther('2'))]);
    expect(await provider.getBalance(stranger)).toBe(parseEther('3'));
    await expect(devchain.giveTokens('not an address', 1)).rejects.toThrow(/not an address/);
    await expect(devchain.giveTokens(stranger, 0)).rejects.toThrow(/1 to 1000/);
    const status = await devchain.status();
    expect(status.congestion).toBe('off');
    expect(BigInt(status.baseFeeWei)).toBeLessThan(10n ** 9n);
  });

  it('deploys a batch-minted ERC-721 (EIP-2309) and an ERC-1155 with metadata, pictures and history, and gives both away', async () => {
    const [, a1, a2, a3, a4] = devchain.accounts.map((a) => a.address);
    const drops = new Contract(devchain.collections.find((c) => c.kind === 'batch-minted')!.address, dropsArtifact.abi, provider);
    const gems = new Contract(devchain.collections.find((c) => c.kind === 'multi')!.address, gemsArtifact.abi, provider);
    // Drops: 8 per holder in one ConsecutiveTransfer each (no Transfer per token); token 2 moved 1 -> 2.
    const consecutive = await provider.getLogs({
      address: await drops.getAddress(),
      topics: [topicOf('ConsecutiveTransfer(uint256,uint256,address,address)')],
      fromBlock: 0,
    });
    expect(consecutive).toHaveLength(4);
    expect(await drops.getFunction('ownerOf')(1n)).toBe(a1);
    expect(await drops.getFunction('ownerOf')(2n)).toBe(a2);
    expect(await drops.getFunction('ownerOf')(3n)).toBe(a1);
    expect(await drops.getFunction('ownerOf')(32n)).toBe(a4);
    // Gems: a batch mint per holder, then a single transfer, a batch transfer and a burn.
    expect(await gems.getFunction('balanceOf')(a2, 1n)).toBe(7n);
    expect(await gems.getFunction('balanceOf')(a3, 1n)).toBe(13n);
    expect(await gems.getFunction('balanceOf')(a4, 2n)).toBe(6n);
    expect(await gems.getFunction('balanceOf')(a4, 3n)).toBe(0n);
    // uri(id) is an EIP-1155 template; the metadata server answers the substituted 64-digit hex id, picture included.
    const template: string = await gems.getFunction('uri')(3n);
    expect(template).toBe(`${devchain.metadataUrl}/${(await gems.getAddress()).toLowerCase()}/{id}.json`);
    const meta = (await (await fetch(template.replace('{id}', (3).toString(16).padStart(64, '0')))).json()) as {
      name: string;
      image: string;
    };
    expect(meta.name).toBe('Txdesk Gems #3');
    const picture = await fetch(meta.image);
    expect(picture.headers.get('content-type')).toBe('image/svg+xml');
    const stranger = Wallet.createRandom().address;
    await devchain.giveOtherStandards(stranger);
    expect(await drops.getFunction('balanceOf')(stranger)).toBe(3n);
    expect(await gems.getFunction('balanceOfBatch')([stranger, stranger, stranger], [1n, 2n, 3n])).toEqual([5n, 2n, 1n]);
  });

  it('answers unknown metadata paths with the error envelope', async () => {
    const res = await fetch(`${devchain.metadataUrl}/0x${'12'.repeat(20)}/1.json`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const bad = await fetch(`${devchain.metadataUrl}/${(await tiles.getAddress()).toLowerCase()}/abc.json`);
    expect(bad.status).toBe(404);
  });
});
