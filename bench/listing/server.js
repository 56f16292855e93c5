// Child process of the listing benchmark: serves the seeded index over HTTP so the load generator gets its own core.
// Three servers: the real data service (startService; listing route with clientId, validation, rate limit off), the
// service's HTTP front as it was before Hono around the same listing function (old-front.js, the baseline of the
// framework's cost), and a bare node:http handler exposing the index query layer (/seek) next to a naive OFFSET +
// COUNT(*) query (/naive). Given a PostgreSQL URL (holding a copy of the same index) as the second argument, also the
// data service started with that `database` on the same anvil, and the PostgreSQL listing query in the bare handler (/pg).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../dist/lib/sqlite.js';
import { openPgPool } from '../../dist/service/db/pg-pool.js';
import { queryTokens } from '../../dist/service/listing/sqlite/listing-reads-sqlite.js';
import { queryTokensPg } from '../../dist/service/listing/postgres/listing-reads-postgres.js';
import { startOldFront } from './old-front.js';

const dataDir = process.argv[2];
const pgPool = process.argv[3] ? openPgPool(process.argv[3], 16) : null;
const file = join(dataDir, 'service.sqlite');
const silent = { info() {}, warn() {}, error() {}, child: () => silent };
const stops = [];

// The service's indexer follows a fresh anvil each run: forget any tip and checkpoints a previous run left, or it
// would take the new chain for a reorganisation and roll the seeded contracts back.
{
  const db = openDatabase(file);
  db.exec("DELETE FROM idx_blocks; DELETE FROM idx_state WHERE key = 'tip'");
  db.close();
}

let service = null;
let pgService = null;
try {
  const { startAnvil } = await import('../../dist/devchain/devchain.js');
  const { startService } = await import('../../dist/service/index.js');
  const anvil = await startAnvil({ blockTimeSeconds: 5 });
  stops.push(() => anvil.stop());
  const s = await startService({ nodeUrl: anvil.url, dataDir, port: 0, rateLimitPerMinute: 0, log: silent });
  stops.push(() => s.stop());
  // `network`: the default network's key, for its network-scoped path /nft/v1/{platform}/{network}/accounts/...
  service = { url: s.url, clientId: (await s.accounts.ensureDevAccount()).clientId, network: `${s.platform}/${s.network}` };
  if (process.argv[3]) {
    try {
      // Its own data dir: a service on PostgreSQL still opens a service.sqlite there, which must not be the seeded one.
      const pgDataDir = mkdtempSync(join(tmpdir(), 'txdesk-bench-listing-pg-'));
      stops.push(async () => rmSync(pgDataDir, { recursive: true, force: true }));
      const p = await startService({
        nodeUrl: anvil.url,
        dataDir: pgDataDir,
        database: process.argv[3],
        port: 0,
        rateLimitPerMinute: 0,
        log: silent,
      });
      stops.push(() => p.stop());
      pgService = { url: p.url, clientId: (await p.accounts.ensureDevAccount()).clientId };
    } catch (e) {
      process.stderr.write(
        `bench/listing: the data service on PostgreSQL could not start (${e?.message ?? e}); measuring PostgreSQL in the bare handler only\n`,
      );
    }
  }
} catch (e) {
  process.stderr.write(`bench/listing: the data service could not start (${e?.message ?? e}); measuring the bare handler only\n`);
}

const db = openDatabase(file);
const contractSql = 'SELECT address, name, symbol, total_supply, minted, burned, standard FROM idx_contracts WHERE id = ?';
const naive = {
  account: db.prepare('SELECT id FROM idx_accounts WHERE address = ?').pluck(),
  count: db.prepare('SELECT count(*) FROM idx_tokens WHERE owner_id = ?').pluck(),
  page: db.prepare(
    'SELECT t.token_id, t.uri, t.balance, a.address AS owner, t.contract_id FROM idx_tokens t JOIN idx_accounts a ON a.id = t.owner_id ' +
      'WHERE t.owner_id = ? ORDER BY t.k_tr DESC LIMIT ? OFFSET ?',
  ),
  contract: db.prepare(contractSql),
};

function naiveQuery(owner, page, size) {
  const id = naive.account.get(owner);
  if (id === undefined) return { tokens: [], totalCount: 0 };
  const rows = naive.page.all(id, size, page * size);
  return {
    totalCount: naive.count.get(id),
    tokens: rows.map((r) => {
      const c = naive.contract.get(r.contract_id);
      return {
        id: r.token_id,
        owner: r.owner,
        uri: r.uri,
        balance: r.balance,
        contract: {
          address: c.address,
          name: c.name,
          symbol: c.symbol,
          totalSupply: c.total_supply === null ? c.minted - c.burned : Number(c.total_supply),
          standard: c.standard,
        },
      };
    }),
  };
}

const bare = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  const m = /^\/(seek|naive|pg)\/accounts\/(0x[0-9a-f]{40})\/tokens$/.exec(url.pathname);
  if (!m) {
    res.statusCode = 404;
    return res.end();
  }
  const page = Number(url.searchParams.get('page') ?? 0);
  const size = Number(url.searchParams.get('size') ?? 15);
  const q = { owner: m[2], page, size, orderBy: 'transfer_block_number', direction: 'desc' };
  let r;
  try {
    r = m[1] === 'seek' ? queryTokens(db, q) : m[1] === 'pg' && pgPool ? await queryTokensPg(pgPool, q) : naiveQuery(m[2], page, size);
  } catch (e) {
    res.statusCode = 500;
    return res.end(String(e?.message ?? e));
  }
  const body = JSON.stringify({ data: r.tokens, pagination: { totalCount: r.totalCount } });
  res.setHeader('content-type', 'application/json');
  res.end(body);
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
let oldFrontUrl = null;
if (service) {
  const oldFront = await startOldFront(db, service.clientId);
  stops.push(() => oldFront.stop());
  oldFrontUrl = oldFront.url;
}
stops.push(
  () =>
    new Promise((r) => {
      bare.closeAllConnections();
      bare.close(() => r());
    }),
);

process.stdout.write(
  JSON.stringify({ ready: true, service, pgService, oldFrontUrl, bareUrl: `http://127.0.0.1:${bare.address().port}` }) + '\n',
);

// Once: the parent both closes stdin and sends SIGTERM, and a second run would reverse `stops` under the first and
// exit before it had removed everything.
let stopping;
const stop = () =>
  (stopping ??= (async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
    db.close();
    await pgPool?.end();
    process.exit(0);
  })());
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Exit with the parent: stdin closes when it goes.
process.stdin.on('end', stop);
process.stdin.resume();
