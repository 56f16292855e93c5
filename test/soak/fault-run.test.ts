// The randomized fault run, long: 50 transactions per seed under congestion with refusals, drops, reorganisations,
// node restarts and SIGKILLs of the app mixed in. Every nonce settles on every seed.
import { faultRunSuite } from '../support/faults/fault-run-suite.js';

faultRunSuite(50, [1, 2, 3, 12]);
