#!/usr/bin/env node
// `npm start`: builds what is missing, then runs the desktop app in Electron; when Electron cannot start here (no
// display, no Electron runtime, no better-sqlite3 build for Electron's ABI) it says why in one line and runs
// `txdesk serve` instead, printing the URL to open. Own flags: --dev (electron-vite dev), --dry-run (print the choice),
// --serve (skip Electron); every other argument goes to `txdesk serve` (e.g. `npm start -- --port 3001`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, cpSync, rmSync, copyFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const ownFlags = ['--dev', '--dry-run', '--serve'];
const argv = process.argv.slice(2);
const flags = new Set(argv.filter((a) => ownFlags.includes(a)));
const serveArgs = argv.filter((a) => !ownFlags.includes(a) && a !== '--');
const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const say = (line) => process.stderr.write(`txdesk: ${line}\n`);

// ---- 1. Build what is missing ----

const outputs = [
  'packages/tracker/dist/index.js',
  'out/main/index.js',
  'out/preload/index.cjs',
  'out/renderer/index.html',
  'dist/cli/index.js',
];

function ensureBuilt() {
  if (outputs.every((f) => existsSync(join(root, f)))) return;
  say('first start: building the app (electron-vite build + tsc), this takes a minute…');
  for (const [cmd, args] of [
    // The tracker SDK first: the app and the CLI import it by name, from its dist/ (packages/tracker).
    [bin('tsc'), ['-p', 'packages/tracker/tsconfig.json']],
    [bin('electron-vite'), ['build']],
    [bin('tsc'), ['-p', 'tsconfig.build.json']],
    [process.execPath, ['scripts/bundle.js']],
  ]) {
    const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
    if (r.status !== 0) {
      say(`the build failed (${[cmd.split(/[\\/]/).pop(), ...args].join(' ')}); fix the errors above and run npm start again.`);
      process.exit(1);
    }
  }
}

// ---- 2. Can Electron start here? ----

function electronVersion() {
  return JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
}

/** The Electron binary, without `require('electron')` (which throws, or downloads, when the runtime is absent). */
function electronBinary() {
  const pkgDir = dirname(require.resolve('electron/package.json'));
  const pathFile = join(pkgDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const exe = join(pkgDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(exe) ? exe : null;
}

/** Null when Electron should start, else the reason it cannot, as a clause. */
function electronProblem() {
  if (flags.has('--serve')) return 'asked for the browser mode (--serve)';
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return 'there is no display (DISPLAY is not set)';
  let exe;
  try {
    exe = electronBinary();
  } catch {
    return 'the electron package is not installed';
  }
  if (!exe) return 'the Electron runtime is not installed (its download during npm install did not happen)';
  // Missing shared libraries or a broken download fail here within seconds instead of hanging a window later.
  const probe = spawnSync(exe, ['--version'], { timeout: 10_000, encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  if (probe.error || probe.status !== 0) return 'the Electron runtime does not run on this machine';
  return null;
}

// ---- 3. better-sqlite3 for Electron's ABI, kept apart from node_modules so `npm test` keeps the Node build ----

function electronSqliteBinding(version) {
  const cacheRoot = process.env.TXDESK_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'txdesk');
  const sqliteVersion = JSON.parse(readFileSync(require.resolve('better-sqlite3/package.json'), 'utf8')).version;
  const target = join(
    cacheRoot,
    `better-sqlite3-${sqliteVersion}-electron-${version}-${process.platform}-${process.arch}`,
    'better_sqlite3.node',
  );
  if (existsSync(target)) return target;

  say(`building better-sqlite3 for Electron ${version} (once, into ${dirname(target)})…`);
  const work = mkdtempSync(join(tmpdir(), 'txdesk-sqlite-electron-'));
  const copy = join(work, 'better-sqlite3');
  try {
    const src = dirname(require.resolve('better-sqlite3/package.json'));
    cpSync(src, copy, { recursive: true, filter: (p) => !p.startsWith(join(src, 'build')) });
    const built = join(copy, 'build', 'Release', 'better_sqlite3.node');
    const attempts = [
      // A prebuilt binary for Electron's ABI when one is published; else compile against Electron's headers.
      [bin('prebuild-install'), ['--runtime', 'electron', '--target', version, '--arch', process.arch, '--platform', process.platform]],
      [
        bin('node-gyp'),
        [
          'rebuild',
          '--release',
          `--target=${version}`,
          `--arch=${process.arch}`,
          '--dist-url=https://electronjs.org/headers',
          '--runtime=electron',
        ],
      ],
    ];
    for (const [cmd, args] of attempts) {
      const r = spawnSync(cmd, args, {
        cwd: copy,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 300_000,
        shell: process.platform === 'win32',
      });
      if (r.status === 0 && existsSync(built)) {
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(built, target);
        return target;
      }
    }
    return null;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---- 4. Run ----

function runElectron(binding) {
  const env = { ...process.env, TXDESK_SQLITE_BINDING: binding };
  delete env.ELECTRON_RUN_AS_NODE;
  const dev = flags.has('--dev');
  const [cmd, args] = dev ? [bin('electron-vite'), ['dev']] : [electronBinary(), ['.']];
  const started = Date.now();
  const child = spawn(cmd, args, { cwd: root, env, stdio: 'inherit', shell: dev && process.platform === 'win32' });
  forwardSignals(child);
  child.on('exit', (code, signal) => {
    // An Electron that dies within seconds never showed a window (display refused, GPU/sandbox trouble): use the browser.
    if (code && code !== 0 && !signal && Date.now() - started < 8000) {
      say(`Electron exited at start-up (code ${code}); running in the browser instead.`);
      runServe();
      return;
    }
    process.exit(code ?? 0);
  });
}

function runServe() {
  const child = spawn(process.execPath, [join(root, 'bin', 'txdesk.js'), 'serve', '--json', ...serveArgs], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  forwardSignals(child);
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    try {
      const info = JSON.parse(line);
      if (info?.ready && info.appUrl) {
        process.stdout.write(readyLines(info).join('\n') + '\n');
        return;
      }
    } catch {
      // not the ready line
    }
    process.stdout.write(`${line}\n`);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

/** What a person needs from `txdesk serve`'s ready line: the page, and where a script finds /rpc and its token (the
 * token's file, never the token: a terminal's scrollback and a pasted log are not secret). */
function readyLines(info) {
  return [
    `txdesk is running at ${info.appUrl} — open it in your browser.`,
    `JSON-RPC for tools (ethers, viem, cast; snippets in Settings > Tool requests): ${info.rpcUrl}`,
    `Its API token (Authorization: Bearer …) is in ${info.apiTokenFile}`,
    'Press Ctrl-C to stop.',
  ];
}

function forwardSignals(child) {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      if (child.exitCode === null) child.kill(sig);
    });
  }
}

function main() {
  let problem = electronProblem();
  let binding = null;
  if (!problem && !flags.has('--dry-run')) {
    ensureBuilt();
    binding = electronSqliteBinding(electronVersion());
    if (!binding) problem = 'better-sqlite3 could not be built for Electron here (no prebuilt binary and no compiler)';
  }
  if (flags.has('--dry-run')) {
    process.stdout.write(problem ? `serve: ${problem}\n` : 'electron\n');
    return;
  }
  if (!problem) {
    runElectron(binding);
    return;
  }
  ensureBuilt();
  say(`Electron cannot start because ${problem}; running in the browser instead (txdesk serve).`);
  runServe();
}

main();
