// The chain history bench/indexer catches up over, shared by its one-network run (index.js) and its two-network run
// (two-networks.js): the bench contracts and the transactions that make them emit thousands of events each.
import { ContractFactory, JsonRpcProvider, Wallet } from 'ethers';

export const PER_TX = 10_000;
export const OWNERS = 5_000;
export const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const CONSECUTIVE_PER_EVENT = 5_000;
export const BATCH_PER_LOG = 100;
export const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract BenchNft {
  event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
  string public name = "Bench";
  string public symbol = "BEN";
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x80ac58cd || id == 0x5b5e139f; }
  function tokenURI(uint256) external pure returns (string memory) { return "ipfs://bench"; }
  function owner(uint256 i) internal pure returns (address) { return address(uint160(0x100000 + i)); }
  function mintRange(uint256 start, uint256 n, uint256 owners) external {
    for (uint256 i = 0; i < n; i++) emit Transfer(address(0), owner((start + i) % owners), start + i);
  }
  function moveRange(uint256 start, uint256 n, uint256 owners, uint256 shift) external {
    for (uint256 i = 0; i < n; i++) emit Transfer(owner((start + i) % owners), owner((start + i + shift) % owners), start + i);
  }
}
contract BenchDrop {
  event ConsecutiveTransfer(uint256 indexed fromTokenId, uint256 toTokenId, address indexed fromAddress, address indexed toAddress);
  string public name = "Drop";
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x80ac58cd || id == 0x5b5e139f; }
  function tokenURI(uint256) external pure returns (string memory) { return "ipfs://drop"; }
  function owner(uint256 i) internal pure returns (address) { return address(uint160(0x100000 + i)); }
  function mintRanges(uint256 start, uint256 n, uint256 per, uint256 owners) external {
    for (uint256 s = start; s < start + n; s += per) emit ConsecutiveTransfer(s, s + per - 1, address(0), owner((s / per) % owners));
  }
}
contract BenchMulti {
  event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
  string public name = "Multi";
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0xd9b67a26 || id == 0x0e89341c; }
  function uri(uint256) external pure returns (string memory) { return "ipfs://multi/{id}"; }
  function owner(uint256 i) internal pure returns (address) { return address(uint160(0x100000 + i)); }
  function batchMint(uint256 start, uint256 n, uint256 per, uint256 owners) external {
    for (uint256 s = start; s < start + n; s += per) {
      uint256[] memory ids = new uint256[](per);
      uint256[] memory vs = new uint256[](per);
      for (uint256 i = 0; i < per; i++) { ids[i] = s + i; vs[i] = 1 + i % 5; }
      emit TransferBatch(msg.sender, address(0), owner((s / per) % owners), ids, vs);
    }
  }
}`;

/**
 * Sends `total` events' worth of `method` calls, PER_TX events per transaction and one transaction per block (mined
 * with anvil_mine), and checks every one succeeded. `provider` must not cache requests (cacheTimeout -1): with few
 * transactions the second call would otherwise read the first one's nonce again.
 */
export async function emit(provider, contract, method, argsFor, total) {
  await provider.send('evm_setAutomine', [false]);
  const wallet = new Wallet(KEY, provider);
  let nonce = await provider.getTransactionCount(wallet.address);
  const hashes = [];
  for (let start = 0; start < total; start += PER_TX) {
    const n = Math.min(PER_TX, total - start);
    const tx = await contract
      .connect(wallet)
      .getFunction(method)
      .send(...argsFor(start, n), { nonce: nonce++, gasLimit: 35_000_000 });
    hashes.push(tx.hash);
    await provider.send('anvil_mine', ['0x1']);
  }
  for (const h of hashes) {
    const r = await provider.getTransactionReceipt(h);
    if (r?.status !== 1) throw new Error(`bench transaction ${h} failed`);
  }
}

/**
 * A BenchNft on the anvil with `mints` mints over OWNERS owners, then (with `moves`) a move of each; `config` is the
 * service's network entry for it and `head` the chain's head once written.
 */
export async function chainWithHistory(anvil, chainId, network, arts, mints, moves = true) {
  const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, polling: false, cacheTimeout: -1 });
  await provider.send('evm_setIntervalMining', [0]);
  const x = await new ContractFactory(arts.BenchNft.abi, arts.BenchNft.bytecode, new Wallet(KEY, provider)).deploy();
  await provider.send('anvil_mine', ['0x1']);
  await x.waitForDeployment();
  await emit(provider, x, 'mintRange', (start, n) => [start, n, OWNERS], mints);
  if (moves) await emit(provider, x, 'moveRange', (start, n) => [start, n, OWNERS, 7], mints);
  const head = Number(await provider.send('eth_blockNumber', []));
  provider.destroy();
  return { anvil, head, config: { platform: 'ethereum', network, nodeUrls: [anvil.url], chainId, indexerLag: 0 } };
}
