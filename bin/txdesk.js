#!/usr/bin/env node
// Entry point of the `txdesk` command. `npm run build` compiles src/cli into dist/ (tsc) and bundles it into bundle/
// (scripts/bundle.js: a start loads a few files instead of ~700 modules). The bundle runs when it is at least as new as
// dist/ (tsc rewrites every file it emits), else dist/ does: after a bare `tsc -p tsconfig.build.json`, say.
import { existsSync, statSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

// V8's compiled code of the bundle is kept on disk (os.tmpdir()/node-compile-cache) for the next start, as npm does:
// about a fifth of the import CPU. Node 22.1+; the variable NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

const path = (rel) => fileURLToPath(new URL(rel, import.meta.url));
const compiled = path('../dist/cli/index.js');
if (!existsSync(compiled)) {
  process.stderr.write('txdesk is not built yet: run `npm run build` in the txdesk folder first.\n');
  process.exit(1);
}
const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : Number.NaN);
const bundled = path('../bundle/cli/index.js');
const bundleIsFresh = mtime(bundled) >= mtime(compiled);
await import(new URL(bundleIsFresh ? '../bundle/cli/index.js' : '../dist/cli/index.js', import.meta.url).href);
