// Test-only Solidity contracts for the indexer tests, compiled once with solc-js and cached in the temp dir.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileSolidity } from '../../../scripts/solc-compile.js';

export const INDEXER_TEST_SOURCE =
  `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

function toDecimal(uint256 v) pure returns (string memory) {
  if (v == 0) return "0";
  uint256 len; for (uint256 t = v; t != 0; t /= 10) len++;
  bytes memory b = new bytes(len);
  for (; v != 0; v /= 10) b[--len] = bytes1(uint8(48 + v % 10));
  return string(b);
}

/// A full ERC-721 surface for the indexer: name, symbol, totalSupply, tokenURI. No access checks (tests only).
contract TestNft {
  event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
  string public name;
  string public symbol;
  uint256 public totalSupply;
  mapping(uint256 => address) public ownerOf;
  constructor(string memory n, string memory s) { name = n; symbol = s; }
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x80ac58cd || id == 0x5b5e139f || id == 0x01ffc9a7; }
  function tokenURI(uint256 id) external view returns (string memory) {
    require(ownerOf[id] != address(0), "no such token");
    return string(abi.encodePacked("ipfs://t/", _str(id)));
  }
  function mint(address to, uint256 id) public { require(ownerOf[id] == address(0), "exists"); ownerOf[id] = to; ` +
  `totalSupply++; emit Transfer(address(0), to, id); }
  function mintMany(address to, uint256 start, uint256 n) external { for (uint256 i = 0; i < n; i++) mint(to, start + i); }
  function move(address to, uint256 id) public { address f = ownerOf[id]; require(f != address(0), "no such token"); ` +
  `ownerOf[id] = to; emit Transfer(f, to, id); }
  function moveMany(address to, uint256[] calldata ids) external { for (uint256 i = 0; i < ids.length; i++) move(to, ids[i]); }
  function burn(uint256 id) external { address f = ownerOf[id]; require(f != address(0), "no such token"); delete ` +
  `ownerOf[id]; totalSupply--; emit Transfer(f, address(0), id); }
  function _str(uint256 v) internal pure returns (string memory) {
    if (v == 0) return "0";
    uint256 len; for (uint256 t = v; t != 0; t /= 10) len++;
    bytes memory b = new bytes(len);
    for (; v != 0; v /= 10) b[--len] = bytes1(uint8(48 + v % 10));
    return string(b);
  }
}

/// ERC-721 events and nothing else: no name, symbol, totalSupply or tokenURI.
contract TestBareNft {
  event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
  mapping(uint256 => address) public ownerOf;
  function mint(address to, uint256 id) external { ownerOf[id] = to; emit Transfer(address(0), to, id); }
  function move(address to, uint256 id) external { address f = ownerOf[id]; ownerOf[id] = to; emit Transfer(f, to, id); }
  function burn(uint256 id) external { address f = ownerOf[id]; delete ownerOf[id]; emit Transfer(f, address(0), id); }
}

/// ERC-721 minted with EIP-2309 ConsecutiveTransfer, moved and burned with Transfer, ERC-4906 metadata updates.
/// Emits what it is told (tests only): ownership is the indexer's business.
contract TestDrop {
  event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
  event ConsecutiveTransfer(uint256 indexed fromTokenId, uint256 toTokenId, address indexed fromAddress, address indexed toAddress);
  event MetadataUpdate(uint256 _tokenId);
  event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);
  string public name = "Drop";
  string public symbol = "DRP";
  string public base = "ipfs://d/";
  mapping(uint256 => string) public special;
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x80ac58cd || id == 0x5b5e139f || id == 0x49064906 || id == 0x01ffc9a7; }
  function tokenURI(uint256 id) external view returns (string memory) {
    if (bytes(special[id]).length > 0) return special[id];
    return string(abi.encodePacked(base, toDecimal(id)));
  }
  function mintRange(address to, uint256 first, uint256 n) external { emit ConsecutiveTransfer(first, first + n - 1, address(0), to); }
  function mintRanges(address to, uint256 first, uint256 n, uint256 times) external {
    for (uint256 i = 0; i < times; i++) emit ConsecutiveTransfer(first + i * n, first + i * n + n - 1, address(0), to);
  }
  function move(address from, address to, uint256 id) external { emit Transfer(from, to, id); }
  function burn(address from, uint256 id) external { emit Transfer(from, address(0), id); }
  function reveal(string calldata b) external { base = b; emit BatchMetadataUpdate(0, type(uint256).max); }
  function setSpecial(uint256 id, string calldata u) external { special[id] = u; emit MetadataUpdate(id); }
  function setSpecialQuietly(uint256 id, string calldata u) external { special[id] = u; }
}

/// ERC-1155 with name/symbol, uri(id) with {id}, URI events. Emits what it is told (tests only).
contract TestMulti {
  event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
  event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
  event URI(string value, uint256 indexed id);
  string public name = "Multi";
  string public symbol = "MLT";
  string internal base = "ipfs://m/{id}.json";
  function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0xd9b67a26 || id == 0x0e89341c || id == 0x01ffc9a7; }
  function uri(uint256) external view returns (string memory) { return base; }
  function single(address from, address to, uint256 id, uint256 v) external { emit TransferSingle(msg.sender, from, to, id, v); }
  function batch(address from, address to, uint256[] calldata ids, uint256[] calldata vs) external { emit TransferBatch(msg.sender, from, to, ids, vs); }
  function setUri(uint256 id, string calldata v) external { emit URI(v, id); }
  function setBaseQuietly(string calldata b) external { base = b; }
}

/// ERC-1155 events only: no name, symbol, uri or ERC-165.
contract TestBareMulti {
  event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
  function single(address from, address to, uint256 id, uint256 v) external { emit TransferSingle(msg.sender, from, to, id, v); }
}

/// ERC-20 Transfer: same signature, value not indexed (3 topics). Must never become a token.
contract TestCoin {
  event Transfer(address indexed from, address indexed to, uint256 value);
  string public name = "Coin";
  function pay(address to, uint256 v) external { emit Transfer(msg.sender, to, v); }
}
`;

export interface Artifact {
  abi: unknown[];
  bytecode: string;
}

export const TEST_CONTRACTS = ['TestNft', 'TestBareNft', 'TestCoin', 'TestDrop', 'TestMulti', 'TestBareMulti'] as const;
export type TestContractName = (typeof TEST_CONTRACTS)[number];

export function indexerTestArtifacts(): Record<TestContractName, Artifact> {
  const hash = createHash('sha256').update(INDEXER_TEST_SOURCE).digest('hex').slice(0, 16);
  const cache = join(tmpdir(), `txdesk-indexer-test-contracts-${hash}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8'));
  const compiled = compileSolidity({ 'Test.sol': INDEXER_TEST_SOURCE }, { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris' })
    .contracts['Test.sol']!;
  const pick = (name: string): Artifact => compiled[name]!;
  const result = Object.fromEntries(TEST_CONTRACTS.map((n) => [n, pick(n)])) as Record<TestContractName, Artifact>;
  writeFileSync(cache, JSON.stringify(result));
  return result;
}
