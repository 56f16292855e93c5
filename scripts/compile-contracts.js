#!/usr/bin/env node
// Compiles contracts/*.sol with solc-js into src/devchain/artifacts/<Contract>.json ({contractName, abi, bytecode}); run with `npm run contracts`.
// `--check` compiles without writing and exits 1 when a committed artifact differs (the tests use it).
import { readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSolidity } from './solc-compile.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(root, 'contracts');
const outDir = join(root, 'src', 'devchain', 'artifacts');

const sources = Object.fromEntries(
  readdirSync(sourceDir)
    .filter((f) => f.endsWith('.sol'))
    .sort()
    .map((f) => [f, readFileSync(join(sourceDir, f), 'utf8')]),
);

// Fixed EVM version and optimizer settings, so the committed artifacts are reproducible byte for byte.
let compiled;
try {
  compiled = compileSolidity(sources, {
    evmVersion: 'cancun',
    optimizer: { enabled: true, runs: 200 },
    metadata: { bytecodeHash: 'none' },
  });
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
for (const w of compiled.warnings) process.stderr.write(`${w}\n`);

const check = process.argv.includes('--check');
let stale = 0;
mkdirSync(outDir, { recursive: true });
for (const [file, contracts] of Object.entries(compiled.contracts)) {
  for (const [contractName, c] of Object.entries(contracts)) {
    if (c.bytecode === '0x') continue; // interfaces
    const artifact = { contractName, source: `contracts/${file}`, compiler: compiled.compiler, abi: c.abi, bytecode: c.bytecode };
    const target = join(outDir, `${contractName}.json`);
    const text = `${JSON.stringify(artifact, null, 2)}\n`;
    if (check) {
      const same = existsSync(target) && readFileSync(target, 'utf8') === text;
      if (!same) stale++;
      process.stdout.write(`${contractName}: ${same ? 'up to date' : 'STALE: run `npm run contracts`'}\n`);
    } else {
      writeFileSync(target, text);
      process.stdout.write(`${contractName}: ${(c.bytecode.length - 2) / 2} bytes -> src/devchain/artifacts/${contractName}.json\n`);
    }
  }
}
if (stale > 0) process.exit(1);
