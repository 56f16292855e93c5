// Per-clientId rate limits across a fleet: instances trade what they took through PostgreSQL, so a client that used
// its allowance on one instance is refused on another; the bookkeeping is checked alone, through the table, and
// through real services on one database (two; and three, where a client spread over all of them gets the configured rate
// in sum within the stated tolerance of docs/deploy.md, "Limits across the fleet", and is refused by every one).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { createRateLimiter } from '../../../src/lib/http-rate-limit.js';
import { silentLogger } from '../../../src/lib/log.js';
import { newUsage, shareRateLimits } from '../../../src/service/db/pg-rate-limits.js';
import { openPgPool } from '../../../src/service/db/pg-pool.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { waitFor } from '../../support/poll.js';

describe('the shared limiter bookkeeping', () => {
  it('reports what was taken once, and lets another instance charge a bucket below zero until it refills', () => {
    const l = createRateLimiter(60);
    l.take('a', 0);
    l.take('a', 0);
    l.take('b', 0);
    expect(l.drainTaken()).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
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

/**
 * `count` services on one new database and one dev chain, each limiting listings to `perMinute` per clientId, started
 * before the describe's tests and stopped after them; the array fills as they start.
 */
function serviceFleet(count: number, label: string, perMinute: number): RunningService[] {
  let anvil: RunningAnvil;
  let db: TestDatabase;
  const services: RunningService[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    anvil = await startAnvil();
    db = await createTestDatabase(label);
    for (let i = 0; i < count; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-rate-'));
      dirs.push(dataDir);
      services.push(
        await startService({ nodeUrl: anvil.url, dataDir, port: 0, database: db.url, rateLimitPerMinute: perMinute, log: silentLogger }),
      );
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of services) await s.stop();
    await db?.drop();
    await anvil?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return services;
}

describe('two services on one database', () => {
  const services = serviceFleet(2, 'rate_fleet', 6);

  it('answers 429 on B once a client used its allowance on A', async () => {
    const [a, b] = services as [RunningService, RunningService];
    const { clientId } = await a.accounts.ensureDevAccount();
    const list = (s: RunningService) => fetch(`${s.url}/nft/v1/accounts/0x${'1'.repeat(40)}/tokens?clientId=${clientId}`);
    await waitFor('B to know the new clientId', async () => (await list(b)).status === 200);
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

/** Listing requests per clientId and minute in the three-instance fleet; each instance alone would allow this many. */
const PER_MINUTE = 60;
/**
 * The stated tolerance: what the fleet lets through beyond the rate is at most the requests of about two exchange
 * intervals (1 s each); a third second of slack for a loaded machine.
 */
const TOLERANCE_S = 3;

describe('three services on one database', () => {
  const services = serviceFleet(3, 'rate_fleet_3', PER_MINUTE);

  it('refuses a client spread over three instances once the fleet has let its rate through, on every instance', async () => {
    const account = await services[0]!.accounts.createAccount({
      email: 'spread@example.com',
      password: 'correct horse battery staple',
      name: 'S',
      organization: 'txdesk tests',
    });
    const { clientId } = account;
    await waitFor('every instance to know the new clientId', () => services.every((s) => s.accounts.isKnownClientId(clientId)), {
      timeoutMs: 30_000,
      everyMs: 50,
    });
    // Ten requests a second, in turn on each instance, for 20 s: 200 requests. Alone each instance would let its
    // PER_MINUTE and its refill through (3 x 80 > 200: every request); the fleet lets PER_MINUTE and one refill through.
    const EVERY_MS = 100;
    const COUNT = 200;
    const passed = [0, 0, 0];
    const refused = [0, 0, 0];
    const t0 = Date.now();
    for (let k = 0; k < COUNT; k++) {
      const wait = t0 + k * EVERY_MS - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const i = k % 3;
      const r = await fetch(`${services[i]!.url}/nft/v1/accounts/0x${'2'.repeat(40)}/tokens?clientId=${clientId}`);
      await r.arrayBuffer();
      if (r.status === 200) passed[i]!++;
      else {
        expect(r.status).toBe(429);
        refused[i]!++;
      }
    }
    const elapsedS = (Date.now() - t0) / 1000;
    const total = passed.reduce((x, y) => x + y, 0);
    const bound = PER_MINUTE + (PER_MINUTE / 60) * elapsedS + (1000 / EVERY_MS) * TOLERANCE_S;
    console.log(
      `fleet rate test: ${total} of ${COUNT} requests over ${elapsedS.toFixed(1)} s let through (per ` +
        `instance ${passed.join(', ')}; refused ${refused.join(', ')}); the rate ` +
        `allows ${Math.round(PER_MINUTE + (PER_MINUTE / 60) * elapsedS)}, the stated tolerance ${Math.round(bound)}`,
    );
    expect(total, 'the fleet let through less than the rate: sharing overcharged').toBeGreaterThanOrEqual(PER_MINUTE);
    expect(total, 'the fleet let through more than the rate and its tolerance').toBeLessThanOrEqual(bound);
    for (const n of refused) expect(n, 'every instance refuses the client').toBeGreaterThan(0);
  }, 120_000);
});
