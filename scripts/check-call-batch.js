// Compiles the indexer's call-batch constructor (contracts/indexer/CallBatch.sol) with solc-js and checks
// that the init code embedded in indexer-call-batch.ts is its output: `node scripts/check-call-batch.js [--print]`.
import { readFileSync } from 'node:fs';
import { compileSolidity } from './solc-compile.js';

const source = readFileSync(new URL('../contracts/indexer/CallBatch.sol', import.meta.url), 'utf8');
const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', metadata: { bytecodeHash: 'none', appendCBOR: false } };
const code = compileSolidity({ 'C.sol': source }, settings).contracts['C.sol'].CallBatch.bytecode;
if (process.argv.includes('--print')) console.log(code);
else {
  // The literal is written in pieces joined with + (no line over 160 characters): join them before looking.
  const ts = readFileSync(new URL('../src/service/indexer/indexer-call-batch.ts', import.meta.url), 'utf8').replace(/'\s*\+\s*'/g, '');
  if (!ts.includes(code)) {
    console.error('indexer-call-batch.ts does not embed the compiled init code; run with --print and paste it.');
    process.exit(1);
  }
  console.log('indexer-call-batch.ts embeds the compiled init code.');
}
