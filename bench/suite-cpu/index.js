// bench/suite-cpu: where `npm test`'s time goes, in CPU seconds, against the budget of its goal (5 minutes on 2 cores:
// 600 CPU-s for everything, the build included). Runs `sh scripts/test.sh` as `npm test` does, with the build timed
// apart, and TXDESK_TEST_CPU_LOG set so every test file logs the CPU of its worker and of the processes it started
// (test/support/process/file-cpu.ts). Prints the totals, what the per-file lines do not cover (vitest's own process,
// the run's PostgreSQL, D-Bus), the folders and the costliest files. Linux only (/proc); takes as long as the suite.
// Not part of `npm test`; exits non-zero only when it could not measure (failing tests are reported, not fatal).
// `node bench/suite-cpu/index.js test/lib test/cli` measures just those files (arguments go to vitest).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const BUDGET_CPU_S = 2 * 300;
const TOP = Number(process.env.BENCH_SUITE_TOP ?? 25);

if (!existsSync('/proc/self/stat')) {
  console.error('bench/suite-cpu reads /proc: Linux only.');
  process.exit(1);
}

/** CPU seconds of the children this process has reaped (cutime + cstime; the whole tree under them, as each waits). */
function reapedChildrenCpuS() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Runs a command to its end; its wall and CPU seconds (its whole process tree), and its exit code. */
function measured(command, args, env) {
  const cpu0 = reapedChildrenCpuS();
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error) throw r.error;
  return { wallS: (performance.now() - t0) / 1000, cpuS: reapedChildrenCpuS() - cpu0, code: r.status };
}

const dir = mkdtempSync(join(tmpdir(), 'txdesk-suite-cpu-'));
const log = join(dir, 'files.jsonl');
try {
  const build = measured('npm', ['run', 'build', '--silent'], process.env);
  if (build.code !== 0) throw new Error('npm run build failed');
  const suite = measured('sh', ['scripts/test.sh', ...process.argv.slice(2)], {
    ...process.env,
    TXDESK_TEST_NO_BUILD: '1',
    TXDESK_TEST_CPU_LOG: log,
  });
  if (!existsSync(log)) throw new Error('no test file logged its CPU (is test/support/process/file-cpu.ts a setup file?)');
  const files = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .map((f) => ({ ...f, file: relative(root, f.file), cpuS: f.selfS + f.childrenS }));
  const sum = (list, key) => list.reduce((s, f) => s + f[key], 0);
  const s = (x) => x.toFixed(1);

  console.log(
    `\nbench/suite-cpu: ${files.length} test files${suite.code === 0 ? '' : ` (the run FAILED, exit ${suite.code}: figures of a failed run)`}`,
  );
  console.log(`  build            ${s(build.wallS).padStart(7)} s wall ${s(build.cpuS).padStart(8)} CPU-s`);
  console.log(`  suite            ${s(suite.wallS).padStart(7)} s wall ${s(suite.cpuS).padStart(8)} CPU-s`);
  const total = build.cpuS + suite.cpuS;
  console.log(`  npm test         ${s(build.wallS + suite.wallS).padStart(7)} s wall ${s(total).padStart(8)} CPU-s`);
  console.log(`  budget of the goal (300 s on 2 cores): ${BUDGET_CPU_S} CPU-s; this run used ${(total / BUDGET_CPU_S).toFixed(2)}x it`);
  const inFiles = sum(files, 'cpuS');
  console.log(
    `  the test files: ${s(inFiles)} CPU-s (${s(sum(files, 'selfS'))} in vitest's workers, ${s(sum(files, 'childrenS'))} in the ` +
      `processes they started); not in any file: ${s(suite.cpuS - inFiles)} (vitest's main process, PostgreSQL, D-Bus)`,
  );

  const folders = new Map();
  for (const f of files) {
    const folder = dirname(f.file);
    const entry = folders.get(folder) ?? { files: 0, cpuS: 0, childrenS: 0 };
    folders.set(folder, { files: entry.files + 1, cpuS: entry.cpuS + f.cpuS, childrenS: entry.childrenS + f.childrenS });
  }
  console.log('\n  CPU-s  started  files  folder');
  for (const [folder, e] of [...folders].sort((a, b) => b[1].cpuS - a[1].cpuS))
    console.log(`  ${s(e.cpuS).padStart(5)}  ${s(e.childrenS).padStart(7)}  ${String(e.files).padStart(5)}  ${folder}`);

  console.log(`\n  CPU-s  started   wall  file (the ${TOP} costliest)`);
  for (const f of [...files].sort((a, b) => b.cpuS - a.cpuS).slice(0, TOP))
    console.log(`  ${s(f.cpuS).padStart(5)}  ${s(f.childrenS).padStart(7)}  ${s(f.wallS).padStart(5)}  ${f.file}`);
} catch (e) {
  console.error(`bench/suite-cpu could not measure: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
