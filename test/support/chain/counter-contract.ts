// A small contract for the tests of transactions from tools: a counter whose calls can be counted, and functions that
// revert with Error(string), Panic(0x12) and a custom error. Compiled with solc-js once per test process.
import { compileSolidity } from '../../../scripts/solc-compile.js';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
  error NotAllowed(address who);
  event Bumped(address indexed by, uint256 count, uint256 paid);
  uint256 public count;
  uint256 public paid;
  function bump() external payable { count += 1; paid += msg.value; emit Bumped(msg.sender, count, msg.value); }
  function failWith(string calldata why) external { count += 0; revert(why); }
  function divide(uint256 a, uint256 b) external returns (uint256) { count += 0; return a / b; }
  function refuse() external { count += 0; revert NotAllowed(msg.sender); }
}`;

export interface Artifact {
  abi: unknown[];
  bytecode: string;
}

let cached: Artifact | null = null;

/** The Counter's ABI and init code. */
export function counterArtifact(): Artifact {
  cached ??= compileSolidity({ 'Counter.sol': SOURCE }, { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris' }).contracts[
    'Counter.sol'
  ]!.Counter as Artifact;
  return cached;
}
