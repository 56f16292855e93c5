// Compiles the indexer's call-batch constructor (contracts/indexer/CallBatch.sol) with solc-js and checks
// that the init code embedded in indexer-call-batch.ts is its output: `node scripts/check-call-batch.js [--print]`.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL('../contracts/indexer/CallBatch.sol', import.meta.url), 'utf8');
const solc = createRequire(import.meta.url)('solc');
const out = JSON.parse(
  solc.compile(
    JSON.stringify({
      language: 'Solidity',
      sources: { 'C.sol': { content: source } },
      settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', metadata: { bytecodeHash: 'none', appendCBOR: false }, outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
    }),
  ),
);
if (out.errors?.some((e) => e.severity === 'error')) throw new Error(out.errors.map((e) => e.formattedMessage).join('\n'));
const code = '0x' + out.contracts['C.sol'].CallBatch.evm.bytecode.object;
if (process.argv.includes('--print')) console.log(code);
else {
  const ts = readFileSync(new URL('../src/service/indexer/indexer-call-batch.ts', import.meta.url), 'utf8');
  if (!ts.includes(code)) {
    console.error('indexer-call-batch.ts does not embed the compiled init code; run with --print and paste it.');
    process.exit(1);
  }
  console.log('indexer-call-batch.ts embeds the compiled init code.');
}
