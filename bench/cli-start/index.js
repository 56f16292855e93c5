// bench/cli-start: what one start of the `txdesk` command costs (node bin/txdesk.js, the compiled CLI in dist/), per
// kind of command: help, a usage error, the short account and config commands, and a long-running command's --help.
//
// Each case runs BENCH_CLI_RUNS times (default 10), the cases interleaved round by round so a busy neighbour slows all
// alike. Per case: median wall time and mean CPU (user + sys, of the child, from the shell's `times`), and both as a
// ratio to the baseline measured in the same rounds: a bare `node -e 0`. No account command reaches a service: they
// stop at "Not logged in" (exit 1) with the keychain off and an empty config folder, which is where a start's cost
// ends and the network's begins. Not part of `npm test`; exits non-zero only when it could not measure.
//
// BENCH_CLI_BEFORE=/path/to/other/bin/txdesk.js also runs every case on that build (e.g. a copy of the previous
// commit, built) in the same rounds, and prints this build's CPU as a ratio of that one's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const bin = join(root, 'bin', 'txdesk.js');
const runs = Number(process.env.BENCH_CLI_RUNS ?? 10);
const before = process.env.BENCH_CLI_BEFORE;
const configDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-cli-'));
// The default endpoint is never asked: without a session every account command stops before its first request.
const env = { ...process.env, TXDESK_CONFIG_DIR: configDir, TXDESK_KEYCHAIN: 'off', TXDESK_LOG: 'silent' };
delete env.TXDESK_ENDPOINT;

/** [label, argv after `node`, expected exit code] */
const thisBuild = [
  ['node -e 0 (baseline)', ['-e', '0'], 0],
  ['txdesk --help', [bin, '--help'], 0],
  ['txdesk --version', [bin, '--version'], 0],
  ['txdesk account:describe --help', [bin, 'account:describe', '--help'], 0],
  ['txdesk serve --help', [bin, 'serve', '--help'], 0],
  ['txdesk service --help', [bin, 'service', '--help'], 0],
  ['txdesk webhook add (usage error)', [bin, 'webhook', 'add'], 2],
  ['txdesk serve --port x (bad option)', [bin, 'serve', '--port', 'x'], 2],
  ['txdesk config:set endpoint URL', [bin, 'config:set', 'endpoint', 'http://127.0.0.1:4000'], 0],
  ['txdesk config:get', [bin, 'config:get'], 0],
  ['txdesk account:describe (not logged in)', [bin, 'account:describe'], 1],
  ['txdesk webhook list (not logged in)', [bin, 'webhook', 'list'], 1],
];
const beforeBuild = before ? thisBuild.slice(1).map(([label, [, ...args], code]) => [`${label} [before]`, [before, ...args], code]) : [];
const cases = [...thisBuild, ...beforeBuild];

/** One run: wall ms (this process's clock around the spawn) and the child's CPU seconds (the shell's `times`). */
function once([label, args, expected]) {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const started = process.hrtime.bigint();
  const r = spawnSync('sh', ['-c', `${quoted} >/dev/null 2>&1; echo "rc=$?"; times`], { env, encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const rc = Number(/rc=(\d+)/.exec(r.stdout)?.[1]);
  if (rc !== expected) throw new Error(`${label}: exit code ${rc}, expected ${expected}; output: ${r.stdout}${r.stderr}`);
  // `times` prints the shell's own times, then its children's: "0m0.450s 0m0.040s" (user, sys).
  const children = r.stdout.trim().split('\n').at(-1) ?? '';
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(children);
  if (!m) throw new Error(`could not read the child's CPU time from: ${r.stdout}`);
  const cpuS = Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
  return { wallMs, cpuS };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

try {
  const results = cases.map(() => []);
  once(cases[1]); // warm the file cache once, so the first round is not the only one reading from disk
  for (let round = 0; round < runs; round++) cases.forEach((c, i) => results[i].push(once(c)));
  const base = { wall: median(results[0].map((r) => r.wallMs)), cpu: mean(results[0].map((r) => r.cpuS)) };
  console.log(`${runs} runs per case, interleaved; wall: median, CPU: mean of user+sys`);
  cases.forEach(([label], i) => {
    const wall = median(results[i].map((r) => r.wallMs));
    const cpu = mean(results[i].map((r) => r.cpuS));
    const twin = beforeBuild.findIndex(([l]) => l === `${label} [before]`);
    const vsBefore = twin < 0 ? '' : `, ${(cpu / mean(results[thisBuild.length + twin].map((r) => r.cpuS))).toFixed(2)}x of before`;
    console.log(
      `${label.padEnd(51)} wall ${wall.toFixed(0).padStart(5)} ms (${(wall / base.wall).toFixed(2)}x)   ` +
        `CPU ${cpu.toFixed(3)} s (${(cpu / base.cpu).toFixed(2)}x of node${vsBefore})`,
    );
  });
} finally {
  rmSync(configDir, { recursive: true, force: true });
}
