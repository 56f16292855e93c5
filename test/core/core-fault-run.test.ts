// The randomized fault run, short: 30 transactions under congestion with refusals, drops, reorganisations, node
// restarts and SIGKILLs of the app mixed in (seeded; TXDESK_FAULT_RUN_SEED picks another). Every nonce settles.
// test/soak/fault-run.test.ts runs 50 transactions on several seeds.
import { faultRunSuite } from '../support/faults/fault-run-suite.js';

faultRunSuite(30, [Number(process.env.TXDESK_FAULT_RUN_SEED ?? 12)]);
