// bench/listing: p50/p99 latency and requests/s of the token listing on loopback (autocannon, 16 connections) for
// page 0 and a page deep in the largest owner's list, against a naive OFFSET + COUNT(*) query of the same data, and
// the service (on Hono) against its HTTP front before Hono serving the same listing function.
//
// Seeds 1,000,000 holdings over 100,000 owners (the largest holds 50,000) and 1,000 contracts, a fifth of them ERC-1155
// and a fifth batch-minted ERC-721 (seed.js), straight into the index tables, then serves them from a child process.
// TXDESK_BENCH_SECONDS sets each run's length (default 5); TXDESK_BENCH_LISTING_DIR keeps the seeded database there
// between runs. The index is also copied into a throwaway PostgreSQL, and the service started on it (`database`) and
// its bare listing query are measured beside SQLite's in the same run, with the PostgreSQL/SQLite ratios
// (`--sqlite-only` skips that). The service's network-scoped path (/nft/v1/{platform}/{network}/accounts/...) is
// measured against the seed's path in alternating rounds (target p99 <= 1.1x).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startThrowawayPostgres } from '../lib/throwaway-postgres.js';
import { copyListingToPg } from './copy-to-pg.js';
import { SEED, ownerAddress, seedListing } from './seed.js';

const here = dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.env.TXDESK_BENCH_SECONDS ?? 5);
const keep = process.env.TXDESK_BENCH_LISTING_DIR;
const dataDir = keep ?? mkdtempSync(join(tmpdir(), 'txdesk-bench-listing-'));
const file = join(dataDir, 'service.sqlite');

if (!existsSync(join(dataDir, 'seeded'))) {
  rmSync(file, { force: true });
  mkdirSync(dataDir, { recursive: true });
  const t = Date.now();
  process.stderr.write(`seeding ${SEED.tokens} tokens, ${SEED.owners} owners, ${SEED.contracts} contracts...\n`);
  seedListing(file);
  (await import('node:fs')).writeFileSync(join(dataDir, 'seeded'), '');
  process.stderr.write(`seeded in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
}

const pg = process.argv.includes('--sqlite-only') ? null : await startThrowawayPostgres('listing');
if (pg) {
  const t = Date.now();
  const n = await copyListingToPg(file, pg.url);
  console.log(`copied ${n} rows into PostgreSQL (unnest batches, then VACUUM ANALYZE) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

const child = spawn(process.execPath, [join(here, 'server.js'), dataDir, ...(pg ? [pg.url] : [])], {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: { ...process.env, TXDESK_LOG: 'silent' },
});
const ready = await new Promise((resolve, reject) => {
  createInterface({ input: child.stdout }).once('line', (l) => resolve(JSON.parse(l)));
  child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
});

const size = 15;
const owner = ownerAddress(0);
const deepPage = Math.floor((SEED.largestOwner / size) * 0.9);

async function measure(url) {
  const r = await autocannon({ url, connections: 16, duration: seconds });
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average };
}

/**
 * The same run keeping every response's latency unrounded (autocannon's own percentiles are whole milliseconds, too
 * coarse for a 1.1x target at a p99 of a few ms).
 */
async function measureFine(url) {
  const latencies = [];
  const run = autocannon({ url, connections: 16, duration: seconds });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r = await run;
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), rps: r.requests.average };
}

const ROUNDS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (label, m) =>
  console.log(`${label.padEnd(44)} p50 ${m.p50.toFixed(2)} ms  p99 ${m.p99.toFixed(2)} ms  ${Math.round(m.rps)} req/s`);
const results = {};
try {
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );
  console.log(
    `listing of ${owner} (${SEED.largestOwner} tokens), size ${size}, transfer_block_number desc; deep = page ${deepPage} (offset ${deepPage * size})`,
  );
  const runs = [];
  if (ready.service) {
    const base = `${ready.service.url}/nft/v1/accounts/${owner}/tokens?clientId=${ready.service.clientId}&size=${size}`;
    runs.push(['service page 0', `${base}&page=0`], ['service deep page', `${base}&page=${deepPage}`]);
    // The same listing on the same service and index, asked on the default network's own path.
    const scoped = `${ready.service.url}/nft/v1/${ready.service.network}/accounts/${owner}/tokens?clientId=${ready.service.clientId}&size=${size}`;
    runs.push(['service network path page 0', `${scoped}&page=0`], ['service network path deep page', `${scoped}&page=${deepPage}`]);
    if (ready.pgService) {
      const onPg = `${ready.pgService.url}/nft/v1/accounts/${owner}/tokens?clientId=${ready.pgService.clientId}&size=${size}`;
      runs.push(['service on PostgreSQL page 0', `${onPg}&page=0`], ['service on PostgreSQL deep page', `${onPg}&page=${deepPage}`]);
    }
    const old = `${ready.oldFrontUrl}/nft/v1/accounts/${owner}/tokens?clientId=${ready.service.clientId}&size=${size}`;
    runs.push(['front before Hono page 0', `${old}&page=0`], ['front before Hono deep page', `${old}&page=${deepPage}`]);
  }
  runs.push(
    ['index query (bare http) page 0', `${ready.bareUrl}/seek/accounts/${owner}/tokens?size=${size}&page=0`],
    ['index query (bare http) deep page', `${ready.bareUrl}/seek/accounts/${owner}/tokens?size=${size}&page=${deepPage}`],
    ['naive OFFSET+COUNT(*) (bare http) page 0', `${ready.bareUrl}/naive/accounts/${owner}/tokens?size=${size}&page=0`],
    ['naive OFFSET+COUNT(*) (bare http) deep page', `${ready.bareUrl}/naive/accounts/${owner}/tokens?size=${size}&page=${deepPage}`],
  );
  if (pg) {
    runs.push(
      ['PostgreSQL index query (bare http) page 0', `${ready.bareUrl}/pg/accounts/${owner}/tokens?size=${size}&page=0`],
      ['PostgreSQL index query (bare http) deep page', `${ready.bareUrl}/pg/accounts/${owner}/tokens?size=${size}&page=${deepPage}`],
    );
  }
  // Warm every server and path first (JIT, page cache, prepared statements), so no figure pays for starting up.
  for (const [, url] of runs) await autocannon({ url, connections: 16, duration: 2 });
  const urls = Object.fromEntries(runs);
  for (const [label, url] of runs) {
    results[label] = await measure(url);
    line(label, results[label]);
  }
  const ratio = (a, b) => (results[a].p99 / results[b].p99).toFixed(2);
  if (ready.service) {
    // The two fronts again, alternating in short rounds, so that load drifting on a shared box hits both alike.
    for (const page of ['page 0', 'deep page']) {
      const ratios = [];
      for (let round = 0; round < ROUNDS; round++) {
        const hono = await measure(urls[`service ${page}`]);
        const old = await measure(urls[`front before Hono ${page}`]);
        ratios.push(hono.rps / old.rps);
      }
      const all = ratios.map((r) => r.toFixed(2)).join(', ');
      console.log(
        `ratio service (Hono)/front before Hono req/s, ${page}: median ${median(ratios).toFixed(2)} of ${ROUNDS} alternating rounds (${all}) (target >= 0.90)`,
      );
    }
    // The network path against the seed's path, alternating (each round starts with the one the last ended with).
    for (const page of ['page 0', 'deep page']) {
      const p50 = [];
      const p99 = [];
      const seen = { seed: [], network: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? ['seed', 'network'] : ['network', 'seed'];
        const m = {};
        for (const which of order)
          m[which] = await measureFine(urls[which === 'seed' ? `service ${page}` : `service network path ${page}`]);
        seen.seed.push(m.seed);
        seen.network.push(m.network);
        p50.push(m.network.p50 / m.seed.p50);
        p99.push(m.network.p99 / m.seed.p99);
      }
      const all = (xs) => xs.map((r) => r.toFixed(2)).join(', ');
      const ms = (xs, k) => `${median(xs.map((x) => x[k])).toFixed(2)} ms`;
      console.log(
        `service network path/seed path, ${page} (unrounded, median of rounds): seed p50 ${ms(seen.seed, 'p50')}, ` +
          `p99 ${ms(seen.seed, 'p99')}, ${Math.round(median(seen.seed.map((x) => x.rps)))} req/s; ` +
          `network path p50 ${ms(seen.network, 'p50')}, p99 ${ms(seen.network, 'p99')}, ${Math.round(median(seen.network.map((x) => x.rps)))} req/s`,
      );
      console.log(
        `ratio service /nft/v1/${ready.service.network}/accounts/.../tokens over /nft/v1/accounts/.../tokens, ${page}: p99 ` +
          `median ${median(p99).toFixed(2)} of ${ROUNDS} alternating rounds (${all(p99)}) (target <= 1.1); p50 ` +
          `median ${median(p50).toFixed(2)} (${all(p50)})`,
      );
    }
  }
  const front = ready.service ? 'service' : 'index query (bare http)';
  console.log(`ratio ${front} deep/page-0 p99: ${ratio(`${front} deep page`, `${front} page 0`)} (target <= 1.5)`);
  console.log(
    `ratio naive deep/page-0 p99: ${ratio('naive OFFSET+COUNT(*) (bare http) deep page', 'naive OFFSET+COUNT(*) (bare http) page 0')}`,
  );
  console.log(
    `ratio naive/index p99, deep page: ${ratio('naive OFFSET+COUNT(*) (bare http) deep page', 'index query (bare http) deep page')}`,
  );
  if (pg) {
    const x = (a, b) => `${(a / b).toFixed(2)}x SQLite`;
    const pairs = [['index query', 'PostgreSQL index query (bare http)', 'index query (bare http)']];
    if (ready.pgService) pairs.unshift(['service', 'service on PostgreSQL', 'service']);
    for (const [what, onPg, onSqlite] of pairs) {
      for (const page of ['page 0', 'deep page']) {
        const [p, q] = [results[`${onPg} ${page}`], results[`${onSqlite} ${page}`]];
        console.log(`ratio PostgreSQL/SQLite ${what}, ${page}: p50 ${x(p.p50, q.p50)}, p99 ${x(p.p99, q.p99)}, req/s ${x(p.rps, q.rps)}`);
      }
    }
  }
  console.log(
    `ratio index/naive req/s, deep page: ${(
      results['index query (bare http) deep page'].rps / results['naive OFFSET+COUNT(*) (bare http) deep page'].rps
    ).toFixed(2)}`,
  );
} finally {
  child.stdin.end();
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  await pg?.stop();
  if (!keep) rmSync(dataDir, { recursive: true, force: true });
}
