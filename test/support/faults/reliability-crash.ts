// The crash scenario shared by the fast and the soak crash tests: a dev chain under high congestion, the data service
// and the app core as child processes, POST /api/tx until `target` transactions are acknowledged while a killer
// SIGKILLs the service or the core at random moments and restarts it; then everything must settle, with nothing lost,
// no nonce used twice, the tracker outbox drained and both SQLite stores passing PRAGMA integrity_check.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Wallet } from 'ethers';
import { expect } from 'vitest';
import { startDevchain, type Devchain } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import type { TxRecord } from '../../../src/shared/tx-record.js';
import { authHeader } from '../app/core-api-token.js';
import { allConfirmed } from '../chain/core-chain.js';
import {
  freePort,
  killAllChildren,
  spawnCore,
  spawnService,
  tempDir,
  type ChildProc,
  type CoreInfo,
  type ServiceInfo,
} from './reliability-procs.js';
import { waitFor } from '../poll.js';

export interface CrashOptions {
  target: number;
  /** Victims in order; random when only a count is given. */
  kills: number | ('service' | 'core')[];
  /** Random pause before each kill: min + random(spread) ms. */
  pauseMs?: { min: number; spread: number };
  settleTimeoutMs?: number;
  /** Random pause between POSTs, 0..this ms (150 unless set); longer spreads generation over more kills. */
  postPauseMs?: number;
}

export interface CrashFigures {
  transactions: number;
  acknowledgedPosts: number;
  attemptedPosts: number;
  replacedRecords: number;
  kills: number;
  serviceKills: number;
  coreKills: number;
  trackerMessagesApplied: number;
  settledAfterS: number;
  killSchedule: { victim: string; atMs: number; acknowledged: number }[];
}

const policy = { pricing: 'seed', timeoutMs: 2_000, confirmations: 2, maxReplacements: 5 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function integrity(file: string): string {
  const db = new Database(file);
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

export async function runCrashScenario(o: CrashOptions): Promise<CrashFigures> {
  const serviceDir = tempDir('txdesk-rel-crash-service-');
  const coreDir = tempDir('txdesk-rel-crash-core-');
  let chain: Devchain | undefined;
  let service: ChildProc<ServiceInfo> | undefined;
  let core: ChildProc<CoreInfo> | undefined;
  try {
    chain = await startDevchain({ port: 0, blockTimeSeconds: 1, congestion: 'high', log: silentLogger });
    const nodeUrl = chain.nodeUrl;
    const servicePort = await freePort();
    const startService = () => spawnService({ mode: 'node', nodeUrl, dataDir: serviceDir.path, port: servicePort });
    service = await startService();
    const wallet = Wallet.createRandom();
    await chain.fund(wallet.address, 1000n * 10n ** 18n);
    const address = wallet.address.toLowerCase();
    const coreEnv: NodeJS.ProcessEnv = {
      NODE_ENDPOINT: nodeUrl,
      TXDESK_SERVICE_URL: service.info.serviceUrl,
      CLIENT_ID: service.info.clientId,
      PRIVATE_KEY: wallet.privateKey,
      PLATFORM: 'ethereum',
      NETWORK: 'local',
      TXDESK_DATA_DIR: coreDir.path,
      TXDESK_KEY_PASSPHRASE: '',
    };
    core = await spawnCore({ port: 0, policy }, coreEnv);
    const coreDb = () => join(coreDir.path, readdirSync(coreDir.path).find((f) => /^tx-.*\.db$/.test(f))!);
    const serviceDb = () => join(serviceDir.path, 'service.sqlite');
    const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
      const res = await fetch(nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return ((await res.json()) as { result: T }).result;
    };
    const list = async (): Promise<TxRecord[] | null> => {
      try {
        const r = await fetch(`${core!.info.apiUrl}/api/tx`, {
          headers: authHeader(String(core!.info.apiTokenFile)),
          signal: AbortSignal.timeout(10_000),
        });
        return r.ok ? ((await r.json()) as TxRecord[]) : null;
      } catch {
        return null;
      }
    };

    const acknowledged = new Set<string>();
    let attempted = 0;
    const schedule: CrashFigures['killSchedule'] = [];
    const t0 = Date.now();
    let restarting = Promise.resolve();

    // The generator: POST /api/tx until the target is acknowledged; requests that die with the core are retried.
    const generator = (async () => {
      while (acknowledged.size < o.target) {
        await restarting;
        attempted++;
        try {
          const res = await fetch(`${core!.info.apiUrl}/api/tx`, {
            method: 'POST',
            headers: authHeader(String(core!.info.apiTokenFile)),
            signal: AbortSignal.timeout(20_000),
          });
          if (res.status === 201) acknowledged.add(((await res.json()) as TxRecord).transactionHash);
          else await sleep(200);
        } catch {
          await sleep(200);
        }
        await sleep(Math.floor(Math.random() * (o.postPauseMs ?? 150)));
      }
    })();

    // The killer: a victim at a random moment, during generation and while replacements and confirmations run.
    const victims: ('service' | 'core')[] = Array.isArray(o.kills)
      ? o.kills
      : Array.from({ length: o.kills }, () => (Math.random() < 0.5 ? 'service' : 'core'));
    const pause = o.pauseMs ?? { min: 3_000, spread: 9_000 };
    for (const [k, victim] of victims.entries()) {
      await sleep(pause.min + Math.floor(Math.random() * pause.spread));
      schedule.push({ victim, atMs: Date.now() - t0, acknowledged: acknowledged.size });
      let done!: () => void;
      restarting = new Promise<void>((r) => (done = r));
      if (victim === 'service') {
        await service.kill('SIGKILL');
        expect(integrity(serviceDb()), `service store after kill ${k + 1}`).toBe('ok');
        await sleep(Math.floor(Math.random() * 2_000));
        service = await startService();
        expect(service.info.clientId).toBe(coreEnv.CLIENT_ID);
      } else {
        await core.kill('SIGKILL');
        expect(core.output().toLowerCase(), 'the key in the output of a killed core').not.toContain(
          wallet.privateKey.slice(2).toLowerCase(),
        );
        expect(integrity(coreDb()), `core store after kill ${k + 1}`).toBe('ok');
        core = await spawnCore({ port: 0, policy }, coreEnv);
      }
      done();
    }
    await generator;

    // Left alone now: everything open must settle.
    const final = await waitFor(
      'every nonce settled',
      async () => {
        const l = await list();
        return l && allConfirmed(l) && new Set(l.map((r) => r.nonce)).size >= o.target ? l : undefined;
      },
      { timeoutMs: o.settleTimeoutMs ?? 20 * 60_000, everyMs: 2_000 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; kills ${JSON.stringify(schedule)}\n${core?.output().slice(-3000) ?? ''}`);
    });
    const settledMs = Date.now() - t0;

    // Every acknowledged transaction is stored; no POST had two effects; nonces are contiguous and each mined once.
    const hashes = new Set(final.map((r) => r.transactionHash));
    for (const h of acknowledged) expect(hashes.has(h), `acknowledged ${h} lost`).toBe(true);
    const byNonce = new Map<number, TxRecord[]>();
    for (const r of final) byNonce.set(r.nonce, [...(byNonce.get(r.nonce) ?? []), r]);
    const nonces = [...byNonce.keys()].sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: nonces.length }, (_, i) => i));
    expect(nonces.length).toBeGreaterThanOrEqual(acknowledged.size);
    expect(nonces.length, 'more transactions than POSTs: a POST had two effects').toBeLessThanOrEqual(attempted);
    const mined = Number(BigInt(await rpc<string>('eth_getTransactionCount', [address, 'latest'])));
    expect(mined, 'nonces mined on chain').toBe(nonces.length);
    let replaced = 0;
    for (const [nonce, group] of byNonce) {
      const winners = group.filter((r) => r.status === 'confirmation');
      expect(winners, `nonce ${nonce}`).toHaveLength(1);
      for (const r of group) {
        if (r === winners[0]) continue;
        expect(r.status, `nonce ${nonce} loser`).toBe('replaced');
        replaced++;
      }
      const receipt = await rpc<{ blockNumber: string } | null>('eth_getTransactionReceipt', [winners[0]!.transactionHash]);
      expect(receipt, `winner of nonce ${nonce} is on chain`).not.toBeNull();
      expect(winners[0]!.data.blockNumber).toBe(Number(BigInt(receipt!.blockNumber)));
    }

    // Tracker messages: the service's outbox for this client drains (all delivered and acked), and the core applied
    // a receipt and a confirmation for every winner, each once (idempotent under redelivery).
    const unacked = () => {
      const db = new Database(serviceDb(), { readonly: true, fileMustExist: true });
      const n = (db.prepare('SELECT count(*) AS n FROM tracker_delivery WHERE client_id = ?').get(coreEnv.CLIENT_ID) as { n: number }).n;
      db.close();
      return n;
    };
    await waitFor('an empty tracker outbox', () => unacked() === 0, { timeoutMs: 5 * 60_000, everyMs: 2_000 }).catch(() => {});
    expect(unacked(), 'un-acked tracker deliveries left').toBe(0);
    const cdb = new Database(coreDb(), { readonly: true, fileMustExist: true });
    const processed = (cdb.prepare('SELECT count(*) AS n FROM tracker_processed').get() as { n: number }).n;
    const dupConfirm = cdb
      .prepare("SELECT hash, count(*) AS n FROM tx_events WHERE kind = 'confirmation' GROUP BY hash HAVING n > 1")
      .all();
    const attemptsOver = cdb.prepare('SELECT nonce, count(*) AS n FROM txs GROUP BY nonce HAVING n > ?').all(policy.maxReplacements + 2);
    cdb.close();
    expect(processed).toBeGreaterThanOrEqual(2 * nonces.length);
    expect(dupConfirm, 'a confirmation applied twice').toEqual([]);
    expect(attemptsOver, 'more attempts per nonce than the policy allows').toEqual([]);

    await core.stop();
    await service.stop();
    expect(core.output().toLowerCase(), 'the key in the core output').not.toContain(wallet.privateKey.slice(2).toLowerCase());
    expect(integrity(coreDb())).toBe('ok');
    expect(integrity(serviceDb())).toBe('ok');
    return {
      transactions: nonces.length,
      acknowledgedPosts: acknowledged.size,
      attemptedPosts: attempted,
      replacedRecords: replaced,
      kills: schedule.length,
      serviceKills: schedule.filter((k) => k.victim === 'service').length,
      coreKills: schedule.filter((k) => k.victim === 'core').length,
      trackerMessagesApplied: processed,
      settledAfterS: Math.round(settledMs / 1000),
      killSchedule: schedule,
    };
  } finally {
    await core?.stop().catch(() => {});
    await service?.stop().catch(() => {});
    killAllChildren();
    await chain?.stop();
    serviceDir.remove();
    coreDir.remove();
  }
}

export function printCrashFigures(label: string, f: CrashFigures): void {
  const { killSchedule, ...rest } = f;
  process.stdout.write(
    `\n[${label}] crash figures\n${Object.entries(rest)
      .map(([k, v]) => `  ${k.padEnd(24)} ${v}`)
      .join('\n')}\n  kill schedule ${JSON.stringify(killSchedule)}\n`,
  );
}
