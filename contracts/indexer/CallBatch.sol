// SPDX-License-Identifier: MIT
// Never deployed: its init code is sent as a contract-creating eth_call (no `to`), so one node call runs many
// read-only calls inside the EVM. The answer travels as revert data, which has no size limit (returned code would
// hit the 24 KB code-size limit). Build check: node scripts/check-call-batch.js
pragma solidity ^0.8.20;

contract CallBatch {
  /// `calls` packs entries of [20-byte target][2-byte calldata length][calldata]. Reverts with the ABI encoding of
  /// Error("txdesk-call-batch-v2"), then per entry a word (bit 255 set when the call failed, low bits the returndata
  /// length) and the bytes. The Error(string) head keeps the node's error message short: nodes decode revert reasons
  /// into the message, and anvil rendered the old head (plain text, then binary) as text, escaping every zero byte as
  /// \u0000, which made each answer about four times the size of its data.
  constructor(bytes memory calls) {
    assembly {
      let p := add(calls, 32)
      let end := add(p, mload(calls))
      let out := mload(0x40)
      mstore(out, shl(224, 0x08c379a0))
      mstore(add(out, 4), 0x20)
      mstore(add(out, 36), 20)
      mstore(add(out, 68), "txdesk-call-batch-v2")
      let o := add(out, 100)
      for {} lt(p, end) {} {
        let target := shr(96, mload(p))
        let len := shr(240, mload(add(p, 20)))
        let data := add(p, 22)
        // A cap per call keeps one expensive contract from starving the rest; failures are retried one by one.
        let ok := staticcall(3000000, target, data, len, 0, 0)
        let size := returndatasize()
        mstore(o, or(shl(255, iszero(ok)), size))
        returndatacopy(add(o, 32), 0, size)
        o := add(o, add(32, size))
        p := add(data, len)
      }
      revert(out, sub(o, out))
    }
  }
}
