// SPDX-License-Identifier: MIT
// Congestion load target: every call ends in INVALID, which consumes all the gas the caller gave it at almost no CPU cost.
pragma solidity ^0.8.20;

contract TxdeskGasSink {
    fallback() external payable {
        assembly {
            invalid()
        }
    }
}
