// What one start of the built `txdesk` loads: help and usage errors load commander and nothing else, the short account
// and config commands add zod and never ethers, pg, better-sqlite3, hono or the keychain's native module. Each module
// costs every start its load (bench/cli-start: 0.6 CPU-s per start when every command was imported up front). The CLI
// runs from bundle/ (scripts/bundle.js), where packages live inside the bundle's files: its metafile says which.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, repoRoot, runCli } from '../support/cli/cli-binary.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-cli-imports-'));
// A module loader hook (node:module register) that writes every module Node loads through `import` to a file; it runs
// on the loader's own thread, so it writes at once rather than telling the main thread, which may exit first.
const hooks = join(dir, 'hooks.mjs');
const register = join(dir, 'register.mjs');
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
`,
);
writeFileSync(
  register,
  `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { file: process.env.LOADED_FILE } });
`,
);

let runs = 0;
/** Runs `txdesk args...` and returns its exit code and the npm packages it loaded, each once, sorted. */
async function packagesLoaded(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; packages: string[] }> {
  const file = join(dir, `loaded-${++runs}.txt`);
  const r = await runCli(args, {
    env: {
      ...process.env,
      TXDESK_CONFIG_DIR: join(dir, 'config'),
      TXDESK_KEYCHAIN: 'off',
      TXDESK_LOG: 'silent',
      ...env,
      NODE_OPTIONS: `--import=${pathToFileURL(register).href}`,
      LOADED_FILE: file,
    },
  });
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  expect(urls.some((u) => u.endsWith('/bundle/cli/index.js'))).toBe(true); // the hook saw the bundled CLI itself
  const files = urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
  const packages = new Set(files.flatMap((f) => bundled.get(f) ?? [packageOf(f)]).filter((p) => p !== undefined));
  return { code: r.code, packages: [...packages].sort() };
}

const packageOf = (path: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
/** Each file of bundle/cli and the packages whose modules it holds (esbuild's metafile, written by scripts/bundle.js). */
const bundled = new Map<string, string[]>();

beforeAll(() => {
  ensureCliBuilt();
  const metaFile = join(repoRoot, 'bundle', 'cli', 'meta.json');
  expect(existsSync(metaFile), 'bundle/cli/meta.json (npm run build writes it)').toBe(true);
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  for (const [out, { inputs }] of Object.entries(meta.outputs)) {
    const packages = new Set(
      Object.keys(inputs)
        .map((i) => packageOf(`/${i}`))
        .filter((p) => p !== undefined),
    );
    bundled.set(join(repoRoot, out), [...packages]);
  }
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('what a start of txdesk loads', () => {
  it.each([
    [['--help'], 0],
    [['--version'], 0],
    [['serve', '--help'], 0],
    [['service', '--help'], 0],
    [['webhook', 'add'], 2], // missing argument: commander's usage error
    [['nosuch'], 2],
  ])('txdesk %j loads commander alone', async (args, code) => {
    expect(await packagesLoaded(args)).toEqual({ code, packages: ['commander'] });
  });

  it.each([
    [['config:get'], 0, {}],
    [['config:get'], 0, { TXDESK_KEYCHAIN: undefined }], // keychain on: config commands never open it
    [['config:set', 'endpoint', 'http://127.0.0.1:4999'], 0, {}],
    [['account:describe'], 1, {}], // not logged in
    [['webhook', 'list'], 1, {}],
    [['serve', '--port', 'x'], 2, {}], // a bad option value: zod's check, nothing started
  ])('txdesk %j loads commander and zod, nothing heavier', async (args, code, env) => {
    expect(await packagesLoaded(args, env)).toEqual({ code, packages: ['commander', 'zod'] });
  });
});
