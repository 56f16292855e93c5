// Bundles the built CLI and the index's worker threads (dist/, from tsc) with esbuild into bundle/, so a start loads a
// few files instead of ~700 modules: importing the service spent 0.65 of its 0.86 CPU-s in Node's module loader
// (profiled, 2026-11-29), and every worker thread loads its modules again. The CLI is split by command (chunk-*.js).
// bundle/ mirrors dist/ at the same depth, so a module's paths relative to its own file (`new URL('./x.js',
// import.meta.url)`: worker files, ../../package.json, ../../out/renderer) point at the same places from either tree:
// each bundled module's import.meta.url is rewritten to the URL its file would have in that mirror (or, for a package,
// its own file in node_modules).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(root, 'bundle');

/** The entry points: what `bin/txdesk.js` starts, and the files `new Worker(...)` starts (found next to their callers). */
export const BUNDLED_ENTRIES = [
  'cli/index.js',
  'service/indexer/sqlite/indexer-write-worker.js',
  'service/indexer/sqlite/indexer-read-worker.js',
  'lib/sqlite-checkpoint-worker.js',
];

/** Packages left to Node: native addons (found by path at run time), optional peers, the binaries' own packages. */
const EXTERNAL = ['better-sqlite3', '@napi-rs/keyring', 'bufferutil', 'utf-8-validate', 'pg-native', '@foundry-rs/*', 'electron'];

const toUrlPath = (p) => p.split(sep).join('/');

/** Rewrites `import.meta.url` (and `.dirname`/`.filename`) in every bundled module to its own file's, relative to `outfile`. */
function ownImportMeta(outfile) {
  return {
    name: 'own-import-meta',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const own = args.path.startsWith(dist + sep) ? join(out, relative(dist, args.path)) : args.path;
        const rel = toUrlPath(relative(dirname(outfile), own));
        const url = `new URL(${JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`)}, import.meta.url)`;
        const contents = text
          .replaceAll('import.meta.url', `${url}.href`)
          .replaceAll('import.meta.dirname', `__txdeskPath.dirname(__txdeskUrl.fileURLToPath(${url}))`)
          .replaceAll('import.meta.filename', `__txdeskUrl.fileURLToPath(${url})`);
        return { contents, loader: 'js' };
      });
    },
  };
}

// CommonJS packages call require() for Node's built-ins; an ES module has none of its own.
const banner = [
  "import { createRequire as __txdeskCreateRequire } from 'node:module';",
  "import * as __txdeskPath from 'node:path';",
  "import * as __txdeskUrl from 'node:url';",
  'const require = __txdeskCreateRequire(import.meta.url);',
].join('\n');

export async function bundle() {
  rmSync(out, { recursive: true, force: true });
  for (const entry of BUNDLED_ENTRIES) {
    const outfile = join(out, entry);
    mkdirSync(dirname(outfile), { recursive: true });
    const result = await build({
      entryPoints: [join(dist, entry)],
      // Split: a command's modules load when it runs (the CLI imports them lazily), not with every start's `--help`.
      outdir: dirname(outfile),
      splitting: true,
      // Chunks sit beside the entry: the import.meta rewrite assumes every output file is in the entry's folder.
      chunkNames: 'chunk-[hash]',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      external: EXTERNAL,
      banner: { js: banner },
      plugins: [ownImportMeta(outfile)],
      logLevel: 'warning',
      legalComments: 'none',
      metafile: true,
      absWorkingDir: root, // the metafile's paths are relative to the repository
    });
    // Which modules each output file holds: test/cli/cli-start-imports.test.ts reads what a start loads from it.
    writeFileSync(join(dirname(outfile), 'meta.json'), JSON.stringify(result.metafile));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
