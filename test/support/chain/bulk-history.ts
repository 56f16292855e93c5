// A chain history of many ERC-721 transfers made quickly, the way bench/indexer makes its own: a contract whose one
// transaction emits 10,000 Transfer events (mints, then moves of the same tokens), one transaction per block, and
// the listing it must produce, computed from the arithmetic of the history rather than replayed from logs.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractFactory, JsonRpcProvider, Wallet } from 'ethers';
import { compileSolidity } from '../../../scripts/solc-compile.js';

export const BULK_PER_TX = 10_000;
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract BulkNft {
  event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
  string public name = "Bulk";
  string public symbol = "BLK";
  uint256 public emitted;
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x80ac58cd || id == 0x5b5e139f; }
  function tokenURI(uint256) external pure returns (string memory) { return "ipfs://bulk"; }
  function owner(uint256 i) internal pure returns (address) { return address(uint160(0x100000 + i)); }
  function mintRange(uint256 start, uint256 n, uint256 owners) external {
    for (uint256 i = 0; i < n; i++) emit Transfer(address(0), owner((start + i) % owners), start + i);
    emitted += n;
  }
  function moveRange(uint256 start, uint256 n, uint256 owners, uint256 shift) external {
    for (uint256 i = 0; i < n; i++) emit Transfer(owner((start + i) % owners), owner((start + i + shift) % owners), start + i);
    emitted += n;
  }
}`;

function bulkArtifact(): { abi: unknown[]; bytecode: string } {
  const hash = createHash('sha256').update(SOURCE).digest('hex').slice(0, 16);
  const cache = join(tmpdir(), `txdesk-bulk-history-${hash}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8'));
  const compiled = compileSolidity({ 'Bulk.sol': SOURCE }, { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris' }).contracts[
    'Bulk.sol'
  ]!.BulkNft!;
  writeFileSync(cache, JSON.stringify(compiled));
  return compiled;
}

/** The address of owner `i` in the history (0x0000…100000 + i). */
export const bulkOwner = (i: number) => '0x' + (0x100000 + i).toString(16).padStart(40, '0');

export interface BulkHistory {
  contract: string;
  tokens: number;
  owners: number;
  shift: number;
  /** The block of each mint transaction and of each move transaction, in order (BULK_PER_TX tokens each). */
  mintBlocks: number[];
  moveBlocks: number[];
  /** The token ids owner `i` holds once the index has reached `block`, ascending. */
  holdings(i: number, block: number): bigint[];
}

/**
 * Deploys the contract on the node at `url` (a key-0 funded dev chain with a block gas limit of 40,000,000 or more)
 * and writes `tokens` mints over `owners` owners (token t to owner t % owners), then moves every token to owner
 * (t + shift) % owners: 2 x tokens Transfer events in all.
 */
export async function writeBulkHistory(url: string, tokens: number, owners: number, shift = 7): Promise<BulkHistory> {
  const art = bulkArtifact();
  const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, polling: false, cacheTimeout: -1 });
  try {
    const wallet = new Wallet(KEY, provider);
    const deployed = await new ContractFactory(art.abi as never, art.bytecode, wallet).deploy();
    await provider.send('anvil_mine', ['0x1']);
    await deployed.waitForDeployment();
    const contract = (await deployed.getAddress()).toLowerCase();
    await provider.send('evm_setAutomine', [false]);
    let nonce = await provider.getTransactionCount(wallet.address);
    const send = async (method: string, args: (start: number, n: number) => unknown[]): Promise<number[]> => {
      const hashes: string[] = [];
      for (let start = 0; start < tokens; start += BULK_PER_TX) {
        const n = Math.min(BULK_PER_TX, tokens - start);
        const tx = await deployed
          .connect(wallet)
          .getFunction(method)
          .send(...args(start, n), { nonce: nonce++, gasLimit: 35_000_000 });
        hashes.push(tx.hash);
        await provider.send('anvil_mine', ['0x1']);
      }
      // The block of each, from the transaction (a receipt would carry its 10,000 logs: parsing them was most of the
      // history's CPU); that every one succeeded is checked once, by the contract's count, below.
      const blocks: number[] = [];
      for (const h of hashes) {
        const tx = await provider.send('eth_getTransactionByHash', [h]);
        if (tx?.blockNumber == null) throw new Error(`history transaction ${h} was not mined`);
        blocks.push(Number(tx.blockNumber));
      }
      return blocks;
    };
    const mintBlocks = await send('mintRange', (start, n) => [start, n, owners]);
    const moveBlocks = await send('moveRange', (start, n) => [start, n, owners, shift]);
    const emitted = Number(await deployed.getFunction('emitted').staticCall());
    if (emitted !== 2 * tokens) throw new Error(`the history emitted ${emitted} transfers of ${2 * tokens}: a transaction failed`);
    const blockOf = (blocks: number[], t: number) => blocks[Math.floor(t / BULK_PER_TX)]!;
    return {
      contract,
      tokens,
      owners,
      shift,
      mintBlocks,
      moveBlocks,
      holdings(i, block) {
        const out: bigint[] = [];
        for (let t = 0; t < tokens; t++) {
          if (blockOf(mintBlocks, t) > block) continue;
          const moved = blockOf(moveBlocks, t) <= block;
          if ((moved ? (t + shift) % owners : t % owners) === i) out.push(BigInt(t));
        }
        return out;
      },
    };
  } finally {
    provider.destroy();
  }
}
