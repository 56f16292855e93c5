// `npm run bench`: runs every benchmark folder in turn and reports which ones failed.
//
// Convention: a benchmark is a folder `bench/<name>/` holding `index.js` (or `run.js` / `run.mjs`), plain ESM that
// Node runs as is and that may import the compiled code from `dist/` (this script builds `dist/` when it is missing).
// It prints one line per figure and its ratios against a baseline measured in the same run, and exits non-zero only
// when it could not measure. `npm run bench -- listing indexer` runs just those folders.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const only = process.argv.slice(2);
const entries = ['index.js', 'run.js', 'run.mjs'];

const benches = readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory() && (only.length === 0 || only.includes(d.name)))
  .map((d) => ({ name: d.name, entry: entries.map((e) => join(here, d.name, e)).find((p) => existsSync(p)) }))
  .filter((b) => b.entry)
  .sort((a, b) => a.name.localeCompare(b.name));

if (benches.length === 0) {
  console.error(only.length ? `No benchmark folder named ${only.join(', ')} under bench/.` : 'No benchmarks found under bench/.');
  process.exit(1);
}

if (!existsSync(join(root, 'dist'))) {
  console.error('dist/ is missing: compiling with tsc -p tsconfig.build.json first.');
  const r = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const failed = [];
for (const b of benches) {
  console.log(`\n== bench/${b.name} ==`);
  const r = spawnSync(process.execPath, [b.entry], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TXDESK_LOG: process.env.TXDESK_LOG ?? 'silent' },
  });
  if (r.status !== 0) failed.push(b.name);
}
if (failed.length) {
  console.error(`\nbenchmarks that failed: ${failed.join(', ')}`);
  process.exit(1);
}
