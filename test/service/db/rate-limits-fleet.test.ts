// Per-clientId rate limits across a fleet: instances trade what they took through PostgreSQL, so a client that used
// its allowance on one instance is refused on another; the bookkeeping is checked alone, through the table, and
// through two real services on one database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/index.js';
import { createRateLimiter } from '../../../src/lib/http-rate-limit.js';
import { silentLogger } from '../../../src/lib/log.js';
import { newUsage, shareRateLimits } from '../../../src/service/db/pg-rate-limits.js';
import { openPgPool } from '../../../src/service/db/pg-pool.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres-db.js';
import { waitUntil } from '../../support/tracker-harness.js';

describe('the shared limiter bookkeeping', () => {
  it('reports what was taken once, and lets another instance charge a bucket below zero until it refills', () => {
    const l = createRateLimiter(60);
    l.take('a', 0);
    l.take('a', 0);
    l.take('b', 0);
    expect(l.drainTaken()).toEqual(new Map([['a', 2], ['b', 1]]));
    expect(l.drainTaken()).toEqual(new Map());
    l.charge('a', 200, 0); // 58 left, less 200, clamps at one minute's debt (-60)
    expect(() => l.take('a', 0)).toThrow(/retry after 61 s/);
    expect(() => l.take('a', 60_000)).toThrow(/retry after 1 s/);
    l.take('a', 61_000);
    expect(l.drainTaken()).toEqual(new Map([['a', 1]]));
  });

  it('charges each row of another instance only for what it grew by since it was last read', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }), (rounds) => {
        // Each round the other instance's rows (one per key index) have grown by the given amounts.
        const seen = new Map<string, number>();
        const totals: number[] = [];
        let charged = 0;
        for (const growth of rounds) {
          growth.forEach((g, k) => (totals[k] = (totals[k] ?? 0) + g));
          const rows = totals.map((taken, k) => ({ scope: 'listing', key: `c${k}`, instance: 'other', slot: 1, taken }));
          for (const byKey of newUsage(rows, seen).values()) for (const n of byKey.values()) charged += n;
        }
        expect(charged).toBe(totals.reduce((a, b) => a + b, 0));
      }),
    );
  });
});

describe('rate limits shared through PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('rate_limits');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('refuses on instance B what a client already took on instance A, once they have exchanged', async () => {
    const [poolA, poolB] = [openPgPool(db.url), openPgPool(db.url)];
    const [a, b] = [{ listing: createRateLimiter(5) }, { listing: createRateLimiter(5) }];
    const [xa, xb] = await Promise.all([
      shareRateLimits(poolA, 'A', a, silentLogger, { intervalMs: 60_000 }),
      shareRateLimits(poolB, 'B', b, silentLogger, { intervalMs: 60_000 }),
    ]);
    try {
      const now = Date.now();
      for (let i = 0; i < 4; i++) a.listing.take('client', now);
      b.listing.take('other-client', now);
      await xa.exchange();
      await xb.exchange();
      b.listing.take('client', now); // the fifth, fleet-wide
      expect(() => b.listing.take('client', now)).toThrow(/Too many requests/);
      await xb.exchange();
      await xa.exchange();
      expect(() => a.listing.take('client', now)).toThrow(/Too many requests/);
      a.listing.take('other-client', now); // 1 of 5 used on B: still allowed on A
      // Reading the same rows again charges nothing twice.
      await xa.exchange();
      await xb.exchange();
      expect(() => b.listing.take('other-client', now)).not.toThrow();
    } finally {
      await Promise.all([xa.stop(), xb.stop()]);
      await Promise.all([poolA.end(), poolB.end()]);
    }
  });

  it('keeps the local limit and says so once when the database stops answering, then resumes', async () => {
    const pool = openPgPool(db.url);
    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (m: string) => void warnings.push(m), child: () => log };
    const l = { listing: createRateLimiter(3) };
    const x = await shareRateLimits(pool, 'C', l, log, { intervalMs: 60_000 });
    await pool.end(); // every query now fails
    l.listing.take('k', Date.now());
    await x.exchange();
    await x.exchange();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/limits are per instance until it answers/);
    l.listing.take('k', Date.now());
    l.listing.take('k', Date.now());
    expect(() => l.listing.take('k', Date.now())).toThrow(/Too many requests/);
    await x.stop();
  });
});

describe('two services on one database', () => {
  let anvil: RunningAnvil;
  let db: TestDatabase;
  const services: RunningService[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    anvil = await startAnvil();
    db = await createTestDatabase('rate_fleet');
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-rate-'));
      dirs.push(dataDir);
      services.push(await startService({ nodeUrl: anvil.url, dataDir, port: 0, database: db.url, rateLimitPerMinute: 6, log: silentLogger }));
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of services) await s.stop();
    await db?.drop();
    await anvil?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('answers 429 on B once a client used its allowance on A', async () => {
    const [a, b] = services as [RunningService, RunningService];
    const { clientId } = await a.accounts.ensureDevAccount();
    const list = (s: RunningService) => fetch(`${s.url}/nft/v1/accounts/0x${'1'.repeat(40)}/tokens?clientId=${clientId}`);
    await waitUntil(async () => (await list(b)).status === 200, 'B to know the new clientId');
    for (let i = 0; i < 5; i++) expect((await list(a)).status).toBe(200);
    // The fleet's 6 are used (1 on B, 5 on A). Alone, B would still allow 5; sharing (an exchange every second) makes
    // it refuse before that. Asking once every 1.2 s leaves room for about one more while the exchange catches up.
    let throughOnB = 0;
    for (;;) {
      const r = await list(b);
      if (r.status === 429) break;
      expect(r.status).toBe(200);
      throughOnB++;
      expect(throughOnB, 'B allowed what its own bucket allows: the usage on A never reached it').toBeLessThan(5);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
    }
    const refused = await list(b);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
