// Deploys the sample collections from account 0, mints to holder accounts and moves some tokens over several blocks.
import { Interface, getCreateAddress, parseEther } from 'ethers';
import { jsonRpcCall } from '../lib/json-rpc.js';
import { sendTx, waitReceipts, type TxRequest } from './devchain-tx.js';
import {
  dollarArtifact,
  dropsArtifact,
  gasSinkArtifact,
  gemsArtifact,
  pebblesArtifact,
  tilesArtifact,
  type Artifact,
} from './artifacts.js';
import type { DevAccount } from './dev-accounts.js';

export interface SampleCollection {
  address: string;
  name: string;
  symbol: string;
  /** full/minimal: ERC-721 minted token by token; batch-minted: ERC-721 minted with EIP-2309; multi: ERC-1155. */
  kind: 'full' | 'minimal' | 'batch-minted' | 'multi';
  standard: 'ERC721' | 'ERC1155';
}

export interface SampleDeployment {
  collections: SampleCollection[];
  erc20: { address: string; name: string; symbol: string; decimals: number };
  /** Target of the congestion load (burns all gas it is given). */
  gasSink: string;
}

export const TILES = { name: 'Txdesk Tiles', symbol: 'TILE' } as const;
export const PEBBLES = { name: 'Txdesk Pebbles', symbol: 'PEBL' } as const;
export const DOLLAR = { name: 'Txdesk Dollar', symbol: 'TXD', decimals: 18 } as const;
export const DROPS = { name: 'Txdesk Drops', symbol: 'DROP' } as const;
export const GEMS = { name: 'Txdesk Gems', symbol: 'GEM' } as const;

/** Drops minted to each holder at startup, one ConsecutiveTransfer each: ids 1..32. */
export const DROPS_PER_HOLDER = 8;
/** Gem ids (ERC-1155) and the amounts each holder gets in one TransferBatch. */
export const GEM_IDS = [1n, 2n, 3n, 4n];
export const GEM_AMOUNTS = [10n, 5n, 2n, 1n];
/** What an app account gets besides its Tiles: Drops in one batch mint, Gems in one TransferBatch. */
export const GIVE_DROPS = 3;
export const GIVE_GEMS = { ids: [1n, 2n, 3n], amounts: [5n, 2n, 1n] };

/** Tiles minted to each of the holders (accounts 1..4) at startup: ids 1..24. */
export const TILES_PER_HOLDER = 6;
/** Pebbles ids are sparse on purpose (and one exceeds 2^64), so nobody can assume ids are 1..n. */
export const PEBBLE_IDS: bigint[] = [3n, 17n, 42n, 99n, 100n, 256n, 1000n, 4096n, 65537n, 1_000_000n, 2n ** 64n + 1n, 123_456_789n];

export const tilesAbi = new Interface(tilesArtifact.abi);
export const pebblesAbi = new Interface(pebblesArtifact.abi);
export const dollarAbi = new Interface(dollarArtifact.abi);
export const dropsAbi = new Interface(dropsArtifact.abi);
export const gemsAbi = new Interface(gemsArtifact.abi);

export type Progress = (label: string, done: number, total: number) => void;

/**
 * Builds the sample world. Mines blocks itself (evm_mine) between phases so startup does not wait for the block
 * timer; each phase lands in its own block, which gives ownership a history across blocks.
 */
export async function deploySamples(
  url: string,
  accounts: DevAccount[],
  metadataUrl: string,
  progress: Progress = () => {},
): Promise<SampleDeployment> {
  const deployer = accounts[0]!.address;
  const holders = accounts.slice(1, 5).map((a) => a.address);
  if (holders.length < 4) throw new Error('The dev chain needs at least 5 accounts.');
  const nonce0 = Number(BigInt(await jsonRpcCall<string>(url, 'eth_getTransactionCount', [deployer, 'pending'])));
  // Lowercase, like every address the data service returns.
  const created = (k: number) => getCreateAddress({ from: deployer, nonce: nonce0 + k }).toLowerCase();
  const tiles = created(0);
  const pebbles = created(1);
  const dollar = created(2);
  const sink = created(3);
  const h = (i: number) => holders[i]!;

  // Phase 1 (deployer): deploy everything, mint. Explicit nonces keep the predicted addresses right.
  const phase1: Omit<TxRequest, 'from' | 'nonce'>[] = [
    { data: deployData(tilesArtifact, [TILES.name, TILES.symbol, `${metadataUrl}/${tiles}/`]), gas: 2_000_000 },
    { data: deployData(pebblesArtifact, [PEBBLES.name, PEBBLES.symbol]), gas: 1_500_000 },
    { data: deployData(dollarArtifact, [DOLLAR.name, DOLLAR.symbol]), gas: 1_200_000 },
    { data: deployData(gasSinkArtifact, []), gas: 200_000 },
    ...holders.map((holder) => ({
      to: tiles,
      data: tilesAbi.encodeFunctionData('mint', [holder, TILES_PER_HOLDER]),
      gas: mintGas(TILES_PER_HOLDER),
    })),
    ...PEBBLE_IDS.map((id, i) => ({ to: pebbles, data: pebblesAbi.encodeFunctionData('mint', [h(i % 4), id]), gas: 100_000 })),
    { to: dollar, data: dollarAbi.encodeFunctionData('mint', [deployer, parseEther('1000000')]), gas: 100_000 },
    ...holders.map((holder) => ({
      to: dollar,
      data: dollarAbi.encodeFunctionData('transfer', [holder, parseEther('1000')]),
      gas: 100_000,
    })),
  ];
  // Phase 1b (deployer): the batch-minted ERC-721 and the ERC-1155 collection, in blocks of their own.
  const dropsAddr = created(phase1.length);
  const gemsAddr = created(phase1.length + 1);
  const phase1b: Omit<TxRequest, 'from' | 'nonce'>[] = [
    { data: deployData(dropsArtifact, [DROPS.name, DROPS.symbol, `${metadataUrl}/${dropsAddr}/`]), gas: 2_000_000 },
    // EIP-1155 {id} template: the metadata server answers the 64-hex-digit ids too.
    { data: deployData(gemsArtifact, [GEMS.name, GEMS.symbol, `${metadataUrl}/${gemsAddr}/{id}.json`]), gas: 2_500_000 },
    ...holders.map((holder) => ({
      to: dropsAddr,
      data: dropsAbi.encodeFunctionData('mintConsecutive', [holder, DROPS_PER_HOLDER]),
      gas: 150_000,
    })),
    ...holders.map((holder) => ({
      to: gemsAddr,
      data: gemsAbi.encodeFunctionData('mintBatch', [holder, GEM_IDS, GEM_AMOUNTS]),
      gas: 250_000,
    })),
  ];
  // Phase 2 and 3 (holders): transfers, a safeTransferFrom, a burn, an ERC-20 transfer; token 1 moves twice.
  const tileId = (holderIndex: number, k: number) => BigInt(holderIndex * TILES_PER_HOLDER + k + 1);
  const pebbleOf = (holderIndex: number) => PEBBLE_IDS[holderIndex]!; // PEBBLE_IDS[i] went to holder i % 4
  const phase2: TxRequest[] = [
    { from: h(0), to: tiles, data: tilesAbi.encodeFunctionData('transferFrom', [h(0), h(1), tileId(0, 0)]), gas: 120_000 },
    {
      from: h(1),
      to: tiles,
      data: tilesAbi.encodeFunctionData('safeTransferFrom(address,address,uint256)', [h(1), h(2), tileId(1, 0)]),
      gas: 120_000,
    },
    { from: h(2), to: pebbles, data: pebblesAbi.encodeFunctionData('transferFrom', [h(2), h(3), pebbleOf(2)]), gas: 120_000 },
    { from: h(3), to: pebbles, data: pebblesAbi.encodeFunctionData('burn', [pebbleOf(3)]), gas: 120_000 },
    { from: h(0), to: dollar, data: dollarAbi.encodeFunctionData('transfer', [h(1), parseEther('5')]), gas: 100_000 },
    // A drop leaves its batch; gems move singly, in a batch, and one is burned.
    { from: h(0), to: dropsAddr, data: dropsAbi.encodeFunctionData('transferFrom', [h(0), h(1), 2n]), gas: 120_000 },
    { from: h(1), to: gemsAddr, data: gemsAbi.encodeFunctionData('safeTransferFrom', [h(1), h(2), 1n, 3n, '0x']), gas: 120_000 },
    {
      from: h(2),
      to: gemsAddr,
      data: gemsAbi.encodeFunctionData('safeBatchTransferFrom', [h(2), h(3), [2n, 4n], [1n, 1n], '0x']),
      gas: 150_000,
    },
    { from: h(3), to: gemsAddr, data: gemsAbi.encodeFunctionData('burn', [h(3), 3n, 2n]), gas: 120_000 },
  ];
  const phase3: TxRequest[] = [
    { from: h(1), to: tiles, data: tilesAbi.encodeFunctionData('transferFrom', [h(1), h(3), tileId(0, 0)]), gas: 120_000 },
    { from: h(3), to: tiles, data: tilesAbi.encodeFunctionData('transferFrom', [h(3), h(0), tileId(3, 5)]), gas: 120_000 },
    { from: h(2), to: dollar, data: dollarAbi.encodeFunctionData('transfer', [h(3), parseEther('1')]), gas: 100_000 },
  ];

  const total = phase1.length + phase1b.length + phase2.length + phase3.length;
  let done = 0;
  const runPhase = async (label: string, txs: TxRequest[]) => {
    const hashes: string[] = [];
    for (const tx of txs) hashes.push(await sendTx(url, tx));
    const before = done;
    // Mine right away instead of waiting for the block timer; more blocks only if the gas limit split the batch.
    await jsonRpcCall(url, 'evm_mine', []);
    await waitReceipts(url, hashes, {
      tick: async () => {
        await jsonRpcCall(url, 'evm_mine', []);
      },
      onMined: (n) => {
        done = before + n;
        progress(label, done, total);
      },
    });
  };
  progress('deploying sample contracts', 0, total);
  await runPhase(
    'deploying and minting',
    phase1.map((tx, i) => ({ ...tx, from: deployer, nonce: nonce0 + i })),
  );
  const nonce1b = nonce0 + phase1.length;
  await runPhase(
    'deploying and minting',
    phase1b.map((tx, i) => ({ ...tx, from: deployer, nonce: nonce1b + i })),
  );
  await runPhase('moving tokens', phase2);
  await runPhase('moving tokens', phase3);

  return {
    collections: [
      { address: tiles, name: TILES.name, symbol: TILES.symbol, kind: 'full', standard: 'ERC721' },
      { address: pebbles, name: PEBBLES.name, symbol: PEBBLES.symbol, kind: 'minimal', standard: 'ERC721' },
      { address: dropsAddr, name: DROPS.name, symbol: DROPS.symbol, kind: 'batch-minted', standard: 'ERC721' },
      { address: gemsAddr, name: GEMS.name, symbol: GEMS.symbol, kind: 'multi', standard: 'ERC1155' },
    ],
    erc20: { address: dollar, name: DOLLAR.name, symbol: DOLLAR.symbol, decimals: DOLLAR.decimals },
    gasSink: sink,
  };
}

/** Gas for Tiles.mint(to, count): one storage write and one event per token, plus slack. */
export function mintGas(count: number): number {
  return 80_000 + 30_000 * count;
}

function deployData(artifact: Artifact, args: unknown[]): string {
  return artifact.bytecode + new Interface(artifact.abi).encodeDeploy(args).slice(2);
}
