// The transaction engine against a scripted chain and tracker feed (real SQLite, real signing): exactly-once effects
// for redelivered messages, ack only after commit, out-of-order messages, refused broadcasts, start-up recovery, and
// retries of replacements skipped for the fee cap or the replacement limit.
import { keccak256, Wallet } from 'ethers';
import { beforeEach, describe, expect, it } from 'vitest';
import { createWalletSigner } from '../../../src/core/adapters/chain/chain-signer.js';
import { createSqliteTxStore, migrateTxStore } from '../../../src/core/adapters/sqlite/tx-store-sqlite.js';
import { defaultPolicy } from '../../../src/core/config.js';
import type { NetworkFees } from '../../../src/core/domain/fees.js';
import {
  BroadcastError,
  type BroadcastFailure,
  type Chain,
  type FeedMessage,
  type TrackerFeed,
  type TxStore,
} from '../../../src/core/ports.js';
import { startNonceWatchdog } from '../../../src/core/services/nonce-watchdog.js';
import { createTxEngine, type RetrySummary, type SweepSummary, type TxEngine } from '../../../src/core/services/tx-engine.js';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { silentLogger, type Logger } from '../../../src/lib/log.js';
import type { ReplacementPolicy } from '../../../src/shared/desktop-api.js';
import { isTxdeskError } from '../../../src/shared/errors.js';
import type { TxRecord } from '../../../src/shared/tx-record.js';
import { waitFor } from '../../support/poll.js';

const GWEI = 1_000_000_000n;
const wallet = Wallet.createRandom();
const signer = createWalletSigner(wallet.privateKey);

interface World {
  store: TxStore;
  engine: TxEngine;
  sent: string[];
  tracked: string[];
  pendingNonce: number;
  minedNonce: number;
  receipts: Map<string, Record<string, unknown>>;
  fees: NetworkFees;
  feesFail: boolean;
  /** Failures for the next sendRaw calls, in order. */
  sendFailures: BroadcastFailure[];
  policy: ReplacementPolicy;
  changed: TxRecord[];
  /** The signing key is not loaded. */
  noKey: boolean;
  /** Hashes the node holds (pool or chain): what hasTransaction answers. */
  known: Set<string>;
  balance: bigint;
  head: number;
  /** Messages of the node for the next scripted failures (default "scripted <failure>"). */
  failureMessages: string[];
}

let w: World;

function makeWorld(log: Logger = silentLogger): World {
  const db = openDatabase(':memory:');
  migrateTxStore(db);
  const world = {
    store: createSqliteTxStore(db),
    sent: [] as string[],
    tracked: [] as string[],
    pendingNonce: 0,
    minedNonce: 0,
    receipts: new Map<string, Record<string, unknown>>(),
    fees: { baseFeeWei: 100_000_000n, gasPriceWei: GWEI, priorityFeeWei: GWEI } as NetworkFees,
    feesFail: false,
    sendFailures: [] as BroadcastFailure[],
    policy: { ...defaultPolicy, timeoutMs: 2000, confirmations: 2 },
    changed: [] as TxRecord[],
    noKey: false,
    known: new Set<string>(),
    balance: 10n ** 18n,
    head: 1,
    failureMessages: [] as string[],
  } as World;
  const chain: Chain = {
    chainId: async () => 31337,
    genesisHash: async () => '0x00',
    nonceCount: async (_a, tag) => (tag === 'pending' ? world.pendingNonce : world.minedNonce),
    fees: async () => {
      if (world.feesFail) throw new Error('node down');
      return world.fees;
    },
    sendRaw: async (raw) => {
      const f = world.sendFailures.shift();
      if (f) throw new BroadcastError(f, world.failureMessages.shift() ?? `scripted ${f}`);
      world.sent.push(raw);
      world.known.add(keccak256(raw));
    },
    hasTransaction: async (h) => world.known.has(h),
    receipt: async (h) => world.receipts.get(h) ?? null,
    balance: async () => world.balance,
    latestBlock: async () => ({ number: world.head, baseFeeWei: world.fees.baseFeeWei }),
    request: async (method) => {
      throw new Error(`the scripted chain does not answer ${method}`);
    },
    close: async () => {},
  };
  const feed: TrackerFeed = { track: async (h) => void world.tracked.push(h), start: async () => {}, stop: async () => {} };
  world.engine = createTxEngine({
    store: world.store,
    chain,
    feed,
    clock: { now: () => Date.now() },
    log,
    chainId: 31337,
    signer: () => (world.noKey ? null : signer),
    policy: () => world.policy,
    changed: (r) => world.changed.push(...r),
  });
  return world;
}

let acks: string[];
function message(id: string, type: FeedMessage['type'], hash: string, extra: Record<string, unknown> = {}): FeedMessage {
  return {
    id,
    type,
    result: { transactionHash: hash, ...extra },
    ack: async () => {
      // Ack only after commit: by now the message must be recorded as processed.
      expect(w.store.isProcessed(id)).toBe(true);
      acks.push(id);
    },
  };
}
const receipt = (hash: string, block: number) => ({ transactionHash: hash, blockNumber: block, blockHash: `0xb${block}`, status: 1 });

beforeEach(() => {
  w = makeWorld();
  acks = [];
});

describe('tx engine', () => {
  it('sends at the planned nonce, stores before sending, and tracks', async () => {
    const r = await w.engine.send();
    expect(r).toMatchObject({ nonce: 0, gasPrice: String(GWEI), attempt: 0, txType: 'legacy' });
    expect(w.sent).toHaveLength(1);
    expect(w.tracked).toEqual([r.transactionHash]);
    expect(w.store.history(r.transactionHash).map((e) => e.kind)).toEqual(['signed', 'broadcast']);
    // The node has not seen the next ones yet: our own stored nonces count.
    w.pendingNonce = 0;
    expect((await w.engine.send()).nonce).toBe(1);
    w.pendingNonce = 5; // used elsewhere
    expect((await w.engine.send()).nonce).toBe(5);
  });

  it('concurrent generate calls never share a nonce', async () => {
    const recs = await Promise.all(Array.from({ length: 10 }, () => w.engine.send()));
    expect(recs.map((r) => r.nonce).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('a refused first broadcast is stored with its problem, keeps its nonce, and is sent again on a new block', async () => {
    w.sendFailures.push('pool-full');
    const r = await w.engine.send();
    expect(r.problem).toMatchObject({ reason: 'refused' });
    expect(r.problem!.summary).toMatch(/pool is full/);
    expect(w.store.history(r.transactionHash).map((e) => e.kind)).toEqual(['signed', 'broadcast-failed']);
    expect(w.tracked).toEqual([]);
    expect((await w.engine.send()).nonce).toBe(1);
    w.head++;
    const s = (await w.engine.sweep())!;
    expect(s.resent).toBe(1);
    const after = w.store.get(r.transactionHash)!;
    expect(after.problem).toBeNull();
    expect(w.store.history(r.transactionHash).at(-1)).toMatchObject({
      kind: 'broadcast',
      summary: 'Sent to the node; it took it this time.',
    });
    expect(w.tracked).toContain(r.transactionHash);
    // The same block again: nothing to do.
    expect(await w.engine.sweep()).toBeNull();
  });

  it('pending -> one replacement, even when the message is redelivered or repeated', async () => {
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash)); // redelivery, same messageId
    await w.engine.handleMessage(message('m2', 'pending', r.transactionHash)); // a second pending, other id
    expect(acks).toEqual(['m1', 'm1', 'm2']);
    const all = w.store.list();
    expect(all).toHaveLength(2);
    const [orig, repl] = all as [TxRecord, TxRecord];
    expect(orig).toMatchObject({ status: 'pending', replacedBy: repl.transactionHash });
    expect(repl).toMatchObject({ nonce: 0, attempt: 1, replaces: orig.transactionHash, gasPrice: String(1_125_000_000n) });
    expect(repl).not.toHaveProperty('status');
    expect(w.sent).toHaveLength(2);
    expect(w.tracked).toEqual([orig.transactionHash, repl.transactionHash]);
    expect(w.store.history(orig.transactionHash).map((e) => e.kind)).toEqual(['signed', 'broadcast', 'pending', 'replacement-sent']);

    // The replacement is mined: the original is replaced; a late receipt for the original changes nothing wrong.
    await w.engine.handleMessage(message('m3', 'receipt', repl.transactionHash, receipt(repl.transactionHash, 7)));
    await w.engine.handleMessage(message('m4', 'confirmation', repl.transactionHash, receipt(repl.transactionHash, 7)));
    await w.engine.handleMessage(message('m5', 'receipt', repl.transactionHash, receipt(repl.transactionHash, 7)));
    await w.engine.handleMessage(message('m6', 'pending', repl.transactionHash));
    expect(w.store.get(orig.transactionHash)!.status).toBe('replaced');
    expect(w.store.get(repl.transactionHash)).toMatchObject({ status: 'confirmation', data: receipt(repl.transactionHash, 7) });
    expect(w.store.list()).toHaveLength(2);
    expect(w.changed.length).toBeGreaterThan(0);
  });

  it('does not ack (and commits nothing) when the fee lookup fails; the redelivery then works', async () => {
    const r = await w.engine.send();
    w.feesFail = true;
    await expect(w.engine.handleMessage(message('m1', 'pending', r.transactionHash))).rejects.toThrow('node down');
    expect(acks).toEqual([]);
    expect(w.store.isProcessed('m1')).toBe(false);
    expect(w.store.get(r.transactionHash)!.status).toBeUndefined();
    w.feesFail = false;
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    expect(acks).toEqual(['m1']);
    expect(w.store.list()).toHaveLength(2);
  });

  it('an underpriced replacement is bumped again at once; a cap stops it with a reason', async () => {
    const r = await w.engine.send();
    w.sendFailures.push('underpriced');
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    const fees = w.store.list().map((x) => [x.attempt, x.gasPrice]);
    expect(fees).toEqual([
      [0, String(GWEI)],
      [1, String(1_125_000_000n)],
      [2, String(1_265_625_000n)],
    ]);

    const w2 = makeWorld();
    w = w2;
    w.policy = { ...w.policy, maxFeeWei: String(1_100_000_000n) };
    const r2 = await w.engine.send();
    await w.engine.handleMessage(message('c1', 'pending', r2.transactionHash));
    expect(w.store.list()).toHaveLength(1);
    const skipped = w.store.history(r2.transactionHash).find((e) => e.kind === 'replacement-skipped')!;
    expect(skipped.detail.reason).toBe('cap');
    expect(skipped.summary).toMatch(/above the cap/);
  });

  it('out of order: a confirmation before the receipt, then stale messages, change nothing after', async () => {
    const r = await w.engine.send();
    await w.engine.handleMessage(message('c', 'confirmation', r.transactionHash, receipt(r.transactionHash, 3)));
    await w.engine.handleMessage(message('r', 'receipt', r.transactionHash, receipt(r.transactionHash, 3)));
    await w.engine.handleMessage(message('p', 'pending', r.transactionHash));
    expect(w.store.get(r.transactionHash)!.status).toBe('confirmation');
    expect(w.store.list()).toHaveLength(1);
    expect(w.store.history(r.transactionHash).map((e) => e.kind)).toEqual(['signed', 'broadcast', 'confirmation']);
    expect(acks).toEqual(['c', 'r', 'p']);
  });

  it('acks messages about hashes it does not know', async () => {
    await w.engine.handleMessage(message('x', 'receipt', '0x' + '9'.repeat(64)));
    expect(acks).toEqual(['x']);
  });

  it('recovery: resends what never reached the node, adopts receipts, concedes nonces used elsewhere', async () => {
    // Crash right after the write-ahead insert: three stored, none sent.
    w.sendFailures.push('unreachable', 'unreachable', 'unreachable');
    for (let i = 0; i < 3; i++) await w.engine.send().catch(() => undefined);
    const [a, b, c] = w.store.list() as [TxRecord, TxRecord, TxRecord];
    expect([a.nonce, b.nonce, c.nonce]).toEqual([0, 1, 2]);
    w.sent = [];
    w.tracked = [];
    // Meanwhile: nonce 0 was mined by our transaction, nonce 1 by a foreign one, nonce 2 is still open.
    w.receipts.set(a.transactionHash, receipt(a.transactionHash, 4));
    w.minedNonce = 2;
    const sum = await w.engine.recover();
    expect(sum).toEqual({ nonces: 3, mined: 1, usedElsewhere: 1, rebroadcast: 1, tracked: 2 });
    expect(w.store.get(a.transactionHash)!.status).toBe('receipt');
    expect(w.store.get(b.transactionHash)!.status).toBe('replaced');
    expect(w.store.history(b.transactionHash).at(-1)!.kind).toBe('nonce-used-elsewhere');
    expect(w.store.get(c.transactionHash)!.status).toBeUndefined();
    expect(w.sent).toHaveLength(1);
    expect(w.store.history(c.transactionHash).at(-1)!.kind).toBe('rebroadcast');
    expect(w.tracked.sort()).toEqual([a.transactionHash, c.transactionHash].sort());
  });
});

describe('retrying skipped replacements', () => {
  const skips = (hash: string) => w.store.history(hash).filter((e) => e.kind === 'replacement-skipped');
  const retry = (): Promise<RetrySummary> => w.engine.retrySkipped();

  it('a cap skip waits quietly, records only news, and is replaced once the cap allows', async () => {
    w.policy = { ...w.policy, maxFeeWei: String(1_150_000_000n) };
    const r = await w.engine.send();
    w.fees = { ...w.fees, gasPriceWei: 1_500_000_000n };
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    expect(skips(r.transactionHash).map((e) => e.detail)).toEqual([{ reason: 'cap', neededWei: '1500000001', capWei: '1150000000' }]);

    // Same fees, several ticks: nothing new to say.
    for (let i = 0; i < 3; i++) expect(await retry()).toEqual({ waiting: 1, replaced: 0, recorded: 0 });
    // The market moved a little (under 10%): still nothing new.
    w.fees = { ...w.fees, gasPriceWei: 1_600_000_000n };
    expect(await retry()).toEqual({ waiting: 1, replaced: 0, recorded: 0 });
    // The market moved a lot: one event, then quiet again.
    w.fees = { ...w.fees, gasPriceWei: 2n * GWEI };
    expect(await retry()).toEqual({ waiting: 1, replaced: 0, recorded: 1 });
    expect(await retry()).toEqual({ waiting: 1, replaced: 0, recorded: 0 });
    expect(skips(r.transactionHash).map((e) => e.detail.neededWei)).toEqual(['1500000001', '2000000001']);
    expect(w.sent).toHaveLength(1);

    // Fees fall back (the 12.5% bump, 1.125 gwei, is under the cap): the next tick replaces it, signed at a fee the node accepts, sent and tracked.
    w.fees = { ...w.fees, gasPriceWei: GWEI };
    expect(await retry()).toEqual({ waiting: 1, replaced: 1, recorded: 0 });
    const [orig, repl] = w.store.list() as [TxRecord, TxRecord];
    expect(orig).toMatchObject({ status: 'pending', replacedBy: repl.transactionHash });
    expect(repl).toMatchObject({ nonce: r.nonce, attempt: 1, replaces: orig.transactionHash, gasPrice: '1125000000' });
    expect(w.sent).toHaveLength(2);
    expect(w.tracked).toEqual([orig.transactionHash, repl.transactionHash]);
    expect(w.store.history(orig.transactionHash).at(-1)!.kind).toBe('replacement-sent');
    expect(w.changed.map((c) => c.transactionHash)).toContain(repl.transactionHash);
    expect(await retry()).toEqual({ waiting: 0, replaced: 0, recorded: 0 });
  });

  it('a max-replacements skip is not asked again until the limit is raised', async () => {
    w.policy = { ...w.policy, maxReplacements: 0 };
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    expect(skips(r.transactionHash).map((e) => e.detail.reason)).toEqual(['max-replacements']);
    w.feesFail = true; // not even asked: a node that is down changes nothing
    for (let i = 0; i < 3; i++) expect(await retry()).toEqual({ waiting: 0, replaced: 0, recorded: 0 });
    expect(skips(r.transactionHash)).toHaveLength(1);
    w.feesFail = false;
    w.policy = { ...w.policy, maxReplacements: 1 };
    expect(await retry()).toEqual({ waiting: 1, replaced: 1, recorded: 0 });
    expect(w.store.list()).toHaveLength(2);
    expect(w.sent).toHaveLength(2);
  });

  it('a raised limit with a fee still above the cap records the new reason once', async () => {
    w.policy = { ...w.policy, maxReplacements: 0, maxFeeWei: String(1_100_000_000n) };
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    w.policy = { ...w.policy, maxReplacements: 3 };
    expect(await retry()).toEqual({ waiting: 1, replaced: 0, recorded: 1 });
    expect(await retry()).toEqual({ waiting: 1, replaced: 0, recorded: 0 });
    expect(skips(r.transactionHash).map((e) => e.detail.reason)).toEqual(['max-replacements', 'cap']);
  });

  it(
    'a nonce skipped for a missing key is its problem and is replaced once the key is loaded; a key missing during a retry ' +
      'keeps the nonce waiting',
    async () => {
      const a = await w.engine.send();
      w.noKey = true;
      await w.engine.handleMessage(message('m1', 'pending', a.transactionHash));
      expect(skips(a.transactionHash).map((e) => e.detail.reason)).toEqual(['no-key']);
      expect(w.store.get(a.transactionHash)!.problem).toMatchObject({ reason: 'no-key' });
      expect(await retry()).toEqual({ waiting: 0, replaced: 0, recorded: 0 });
      w.noKey = false;
      expect(await retry()).toEqual({ waiting: 1, replaced: 1, recorded: 0 });
      expect(w.store.get(a.transactionHash)!.problem).toBeNull();

      w.policy = { ...w.policy, maxFeeWei: String(1_100_000_000n) };
      const b = await w.engine.send();
      await w.engine.handleMessage(message('m2', 'pending', b.transactionHash));
      w.policy = { ...w.policy, maxFeeWei: String(5n * GWEI) };
      w.noKey = true;
      expect(await retry()).toEqual({ waiting: 0, replaced: 0, recorded: 0 });
      expect(skips(b.transactionHash).map((e) => e.detail.reason)).toEqual(['cap']);
      w.noKey = false;
      expect(await retry()).toEqual({ waiting: 1, replaced: 1, recorded: 0 });
    },
  );

  it('a mined nonce is no longer waiting; a node failure writes nothing and the next try works', async () => {
    w.policy = { ...w.policy, maxFeeWei: String(1_100_000_000n) };
    const a = await w.engine.send();
    const b = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'pending', a.transactionHash));
    await w.engine.handleMessage(message('m2', 'pending', b.transactionHash));
    await w.engine.handleMessage(message('m3', 'receipt', a.transactionHash, receipt(a.transactionHash, 4)));
    expect(await retry()).toEqual({ waiting: 1, replaced: 0, recorded: 0 });

    w.policy = { ...w.policy, maxFeeWei: String(5n * GWEI) };
    w.feesFail = true;
    await expect(retry()).rejects.toThrow('node down');
    expect(w.store.list()).toHaveLength(2);
    expect(skips(b.transactionHash)).toHaveLength(1);
    w.feesFail = false;
    expect(await retry()).toEqual({ waiting: 1, replaced: 1, recorded: 0 });
    expect(w.store.byNonce(b.from, b.nonce)).toHaveLength(2);
  });

  it('after stop nothing is retried', async () => {
    w.policy = { ...w.policy, maxReplacements: 0 };
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    w.policy = { ...w.policy, maxReplacements: 1 };
    w.engine.stop();
    expect(await retry()).toEqual({ waiting: 0, replaced: 0, recorded: 0 });
    expect(w.store.list()).toHaveLength(1);
  });
});

describe('startNonceWatchdog', () => {
  const capture = () => {
    const lines: string[] = [];
    const log: Logger = {
      info: (m) => void lines.push(`info ${m}`),
      warn: (m) => void lines.push(`warn ${m}`),
      error: (m) => void lines.push(`error ${m}`),
      child: () => log,
    };
    return { log, lines };
  };
  const ok: SweepSummary = {
    block: 1,
    waiting: 0,
    replaced: 0,
    recorded: 0,
    resent: 0,
    repriced: 0,
    rebroadcast: 0,
    reorged: 0,
    settled: 0,
  };

  it('logs a failure once per distinct message and recovers', async () => {
    const outcomes: (Error | SweepSummary)[] = [
      new Error('node down'),
      new Error('node down'),
      new Error('node down'),
      new Error('timeout'),
      new Error('timeout'),
      ok,
      new Error('node down'),
      { ...ok, rebroadcast: 2 },
    ];
    const engine = {
      sweep: async () => {
        const o = outcomes.shift()!;
        if (o instanceof Error) throw o;
        return o;
      },
    };
    const { log, lines } = capture();
    const s = startNonceWatchdog(engine, log, 3_600_000);
    try {
      while (outcomes.length) await s.kick();
    } finally {
      s.stop();
    }
    expect(lines.filter((l) => l.startsWith('warn')).map((l) => l.match(/\((.*)\)/)![1])).toEqual(['node down', 'timeout', 'node down']);
    expect(lines.filter((l) => l.includes('reaches the node again'))).toHaveLength(2);
    expect(lines.at(-1)).toBe('info block 1: 2 dropped transaction(s) sent again');
  });

  it('a kick during a run runs once more after it; the timer runs it too; stop ends both', async () => {
    let calls = 0;
    let release: () => void = () => {};
    const forced: boolean[] = [];
    const engine = {
      sweep: (o: { force?: boolean } = {}) => {
        calls++;
        forced.push(o.force === true);
        return calls === 1 ? new Promise<SweepSummary>((r) => (release = () => r(ok))) : Promise.resolve(ok);
      },
    };
    const s = startNonceWatchdog(engine, silentLogger, 3_600_000);
    const first = s.kick();
    const second = s.kick();
    const third = s.kick(); // folded into the same follow-up run
    expect(calls).toBe(1);
    release();
    await first;
    await Promise.all([second, third]);
    expect(calls).toBe(2);
    expect(forced).toEqual([true, true]);
    s.stop();
    await s.kick();
    expect(calls).toBe(2);

    let ticks = 0;
    const timed = startNonceWatchdog({ sweep: async () => (ticks++, null) }, silentLogger, 20);
    await waitFor('two watchdog sweeps', () => ticks >= 2, { timeoutMs: 30_000, everyMs: 10 });
    timed.stop();
    const after = ticks;
    await new Promise((r) => setTimeout(r, 100));
    expect(ticks).toBe(after);
  });
});

describe('faults', () => {
  const kinds = (hash: string) => w.store.history(hash).map((e) => e.kind);
  const newBlock = async () => {
    w.head++;
    return (await w.engine.sweep())!;
  };

  it('a replacement refused for funds waits with one sentence, and goes out on the first block after a top-up', async () => {
    const r = await w.engine.send();
    w.balance = 20_000_000_000_000n; // 0.00002 ETH: not enough for 21000 x 1.125 gwei
    w.sendFailures.push('funds');
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    const repl = w.store.get(w.store.get(r.transactionHash)!.replacedBy!)!;
    expect(repl.kind).toBe('replace');
    expect(repl.problem!.reason).toBe('funds');
    expect(repl.problem!.summary).toMatch(/^Balance 0\.00002 ETH is below the 0\.000023625 ETH this replacement needs; add funds to 0x/);
    // The earlier attempt stays live and tracked.
    expect(w.store.get(r.transactionHash)!.problem).toBeNull();
    expect(w.known.has(r.transactionHash)).toBe(true);
    const sentBefore = w.sent.length;
    expect((await newBlock()).resent).toBe(0);
    expect(w.sent).toHaveLength(sentBefore);
    expect(kinds(repl.transactionHash).filter((k) => k === 'broadcast-failed')).toHaveLength(1);
    w.balance = 10n ** 18n;
    expect((await newBlock()).resent).toBe(1);
    expect(w.store.get(repl.transactionHash)!.problem).toBeNull();
    expect(w.known.has(repl.transactionHash)).toBe(true);
    expect(w.tracked).toContain(repl.transactionHash);
  });

  it('a fee below the base fee is signed again at the network price on the next block', async () => {
    w.sendFailures.push('fee-too-low');
    w.failureMessages.push('max fee per gas less than block base fee');
    const r = await w.engine.send();
    expect(r.problem!.reason).toBe('underpriced');
    w.fees = { ...w.fees, baseFeeWei: 3n * GWEI, gasPriceWei: 3n * GWEI };
    expect((await newBlock()).resent).toBe(1);
    const next = w.store.get(w.store.get(r.transactionHash)!.replacedBy!)!;
    expect(BigInt(next.gasPrice)).toBeGreaterThan(3n * GWEI);
    expect(next.problem).toBeNull();
    expect(w.known.has(next.transactionHash)).toBe(true);
  });

  it('a transaction refused three times for another reason is filled by a cancel', async () => {
    w.sendFailures.push('refused', 'refused', 'refused');
    const r = await w.engine.send();
    expect(r.problem!.summary).toMatch(/after 3 refusals nonce 0 is filled by a cancel/);
    await newBlock();
    await newBlock();
    expect(w.store.list()).toHaveLength(1);
    await newBlock();
    const cancel = w.store.get(w.store.get(r.transactionHash)!.replacedBy!)!;
    expect(cancel).toMatchObject({ kind: 'cancel', nonce: 0, problem: null });
    expect(w.known.has(cancel.transactionHash)).toBe(true);
    expect(kinds(r.transactionHash).filter((k) => k === 'broadcast-failed')).toHaveLength(1);
  });

  it('a cancel the fee cap holds back is the problem until the cap allows it, then it fills the nonce', async () => {
    w.policy = { ...w.policy, maxFeeWei: String(GWEI) };
    w.sendFailures.push('refused', 'refused', 'refused');
    const r = await w.engine.send();
    await newBlock();
    await newBlock();
    await newBlock();
    expect(w.store.list()).toHaveLength(1);
    expect(w.store.get(r.transactionHash)!.problem).toMatchObject({ reason: 'fee-cap' });
    expect(w.store.get(r.transactionHash)!.problem!.summary).toMatch(
      /^To cancel nonce 0 needs a fee of .*, above your fee cap of 1 gwei; raise the cap in Settings, then retry\.$/,
    );
    w.policy = { ...w.policy, maxFeeWei: String(5n * GWEI) };
    await newBlock();
    const cancel = w.store.get(w.store.get(r.transactionHash)!.replacedBy!)!;
    expect(cancel).toMatchObject({ kind: 'cancel', problem: null });
    expect(w.known.has(cancel.transactionHash)).toBe(true);
  });

  it('an unreachable node is a problem on the nonce until a new block finds it again', async () => {
    w.sendFailures.push('unreachable');
    const r = await w.engine.send();
    expect(r.problem!.reason).toBe('unreachable');
    expect(w.tracked).toEqual([r.transactionHash]);
    await newBlock();
    expect(w.store.get(r.transactionHash)!.problem).toBeNull();
    expect(w.known.has(r.transactionHash)).toBe(true);
  });

  it('a transaction the node forgot is sent again exactly as signed every few blocks', async () => {
    const r = await w.engine.send();
    const raw = w.store.rawOf(r.transactionHash)!;
    w.known.clear();
    w.sent = [];
    for (let i = 0; i < 3 && w.sent.length === 0; i++) await newBlock();
    expect(w.sent).toEqual([raw]);
    expect(w.store.history(r.transactionHash).at(-1)).toMatchObject({ kind: 'rebroadcast' });
    expect(w.store.history(r.transactionHash).at(-1)!.summary).toMatch(/no longer knew it/);
  });

  it('a receipt withdrawn by a reorg reopens the nonce, undoes the replaced marks and replaces again', async () => {
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    const second = w.store.get(r.transactionHash)!.replacedBy!;
    await w.engine.handleMessage(message('m2', 'receipt', second, receipt(second, 7)));
    expect(w.store.get(r.transactionHash)!.status).toBe('replaced');
    await w.engine.handleMessage(message('m3', 'pending', second, { reorged: true }));
    expect(w.store.get(second)).toMatchObject({ status: 'pending', data: {} });
    expect(w.store.get(r.transactionHash)!.status).toBe('pending');
    const third = w.store.get(second)!.replacedBy!;
    expect(third).not.toBeNull();
    expect(w.store.get(third)!.attempt).toBe(2);
    expect(kinds(second)).toContain('reorged');
    // A repeat of the news changes nothing.
    await w.engine.handleMessage(message('m4', 'pending', second, { reorged: true }));
    expect(w.store.byNonce(r.from, 0)).toHaveLength(3);
    expect(acks).toEqual(['m1', 'm2', 'm3', 'm4']);
  });

  it('the nonce check confirms at depth and undoes a receipt the node no longer has', async () => {
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'receipt', r.transactionHash, receipt(r.transactionHash, 2)));
    // The reorg: the node is past block 2 and nonce 0 is unused again.
    w.head = 5;
    w.minedNonce = 0;
    w.known.clear();
    const s = (await w.engine.sweep({ force: true }))!;
    expect(s.reorged).toBe(1);
    const again = w.store.byNonce(r.from, 0);
    expect(again.find((x) => x.transactionHash === r.transactionHash)!.status).toBe('pending');
    const newest = again.find((x) => x.attempt === 1)!;
    expect(w.known.has(newest.transactionHash)).toBe(true);
    // Mined again at block 6, confirmed by the engine itself once deep enough.
    w.receipts.set(newest.transactionHash, receipt(newest.transactionHash, 6));
    w.minedNonce = 1;
    w.head = 6;
    await w.engine.sweep({ force: true });
    expect(w.store.get(newest.transactionHash)!.status).toBe('receipt');
    w.head = 6 + w.policy.confirmations;
    await w.engine.sweep({ force: true });
    expect(w.store.get(newest.transactionHash)!.status).toBe('confirmation');
    expect(w.store.get(r.transactionHash)!.status).toBe('replaced');
  });

  /** A transaction confirmed at block 2 and swept at head 5: a reorg can now undo it deeper than the confirmations. */
  async function confirmedAtBlock2(): Promise<TxRecord> {
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'confirmation', r.transactionHash, receipt(r.transactionHash, 2)));
    w.minedNonce = 1;
    w.head = 5;
    await w.engine.sweep({ force: true });
    return r;
  }

  it('a confirmed nonce undone by a reorg deeper than the confirmations is reopened and replaced at once', async () => {
    const r = await confirmedAtBlock2();
    expect(w.store.get(r.transactionHash)!.status).toBe('confirmation');
    // The chain went back past block 2: nonce 0 is unused again and the node has no receipt.
    w.minedNonce = 0;
    w.known.clear();
    w.sent = [];
    const s = (await w.engine.sweep({ force: true }))!;
    expect(s.reorged).toBe(1);
    expect(w.store.history(r.transactionHash).find((e) => e.kind === 'reorged')!.summary).toMatch(/deeper than the 2 confirmations/);
    // Its tracking ended at the confirmation (a tracker does not report a finished tracking pending again): the nonce
    // goes on under a new hash, tracked from now, as after a receipt reorganised away.
    const replacement = w.store.get(r.transactionHash)!.replacedBy!;
    expect(replacement).not.toBeNull();
    expect(w.store.get(replacement)).toMatchObject({ attempt: 1, nonce: r.nonce, replaces: r.transactionHash });
    expect(w.sent).toEqual([w.store.rawOf(replacement)]);
    expect(w.known.has(replacement)).toBe(true);
  });

  it('a deep reorg whose replacement the fee cap holds back sends the winner again as signed', async () => {
    const r = await confirmedAtBlock2();
    // No bump fits under the cap: the attempt's own fee is the cap.
    w.policy = { ...w.policy, maxFeeWei: String(BigInt(w.store.get(r.transactionHash)!.gasPrice)) };
    w.minedNonce = 0;
    w.known.clear();
    w.sent = [];
    await w.engine.sweep({ force: true });
    expect(w.store.get(r.transactionHash)).toMatchObject({ status: 'pending', replacedBy: null });
    expect(w.sent).toEqual([w.store.rawOf(r.transactionHash)]);
    expect(kinds(r.transactionHash)).toContain('rebroadcast');
  });

  it('the fee cap holds from the first attempt: nothing is signed above it', async () => {
    w.policy = { ...w.policy, maxFeeWei: String(2n * GWEI) };
    w.fees = { ...w.fees, baseFeeWei: 3n * GWEI };
    const err = await w.engine.send().catch((e: unknown) => e);
    expect(isTxdeskError(err, 'CONFLICT')).toBe(true);
    expect((err as Error).message).toBe(
      "The network's price is 3 gwei, above your fee cap of 2 gwei; raise the cap in Settings or wait for fees to fall, then retry.",
    );
    expect(w.store.list()).toEqual([]);
    expect(w.sent).toEqual([]);
  });

  it('cancel and speed-up: 202 with the new record, 404 unknown, 409 mined or over the cap', async () => {
    const a = await w.engine.send();
    const up = await w.engine.speedUp(a.transactionHash);
    expect(up).toMatchObject({ kind: 'speed-up', nonce: 0, attempt: 1, replaces: a.transactionHash });
    expect(BigInt(up.gasPrice)).toBeGreaterThan(BigInt(a.gasPrice));
    // Cancel named by the old hash replaces the newest attempt.
    const c = await w.engine.cancel(a.transactionHash);
    expect(c).toMatchObject({ kind: 'cancel', attempt: 2, replaces: up.transactionHash });
    await w.engine.handleMessage(message('m1', 'pending', c.transactionHash));
    expect(w.store.get(w.store.get(c.transactionHash)!.replacedBy!)!.kind).toBe('cancel');
    const unknown = await w.engine.cancel('0x' + '7'.repeat(64)).catch((e: unknown) => e);
    expect(isTxdeskError(unknown, 'NOT_FOUND')).toBe(true);
    const b = await w.engine.send();
    w.policy = { ...w.policy, maxFeeWei: String(GWEI) };
    const capped = await w.engine.speedUp(b.transactionHash).catch((e: unknown) => e);
    expect(isTxdeskError(capped, 'CONFLICT')).toBe(true);
    expect((capped as Error).message).toMatch(
      /^To speed up nonce 1 needs a fee of .* above your fee cap of 1 gwei; raise the cap in Settings, then retry\.$/,
    );
    await w.engine.handleMessage(message('m2', 'receipt', b.transactionHash, receipt(b.transactionHash, 3)));
    const mined = await w.engine.cancel(b.transactionHash).catch((e: unknown) => e);
    expect(isTxdeskError(mined, 'CONFLICT')).toBe(true);
    expect((mined as Error).message).toMatch(/^Nonce 1 is already mined by 0x/);
  });

  it('a slow ack does not hold up the next send', async () => {
    const r = await w.engine.send();
    let release: () => void = () => {};
    const slow: FeedMessage = {
      id: 's1',
      type: 'pending',
      result: { transactionHash: r.transactionHash },
      ack: () => new Promise<void>((res) => (release = res)),
    };
    const handled = w.engine.handleMessage(slow);
    await w.engine.idle();
    const next = await w.engine.send();
    expect(next.nonce).toBe(1);
    release();
    await handled;
  });
});

describe('operational log', () => {
  it('says when a transaction is sent, replaced (old fee -> new fee, why) and its nonce settled', async () => {
    const lines: string[] = [];
    const log: Logger = {
      info: (m) => void lines.push(`info ${m}`),
      warn: (m) => void lines.push(`warn ${m}`),
      error: (m) => void lines.push(`error ${m}`),
      child: () => log,
    };
    w = makeWorld(log);
    const r = await w.engine.send();
    await w.engine.handleMessage(message('m1', 'pending', r.transactionHash));
    const next = w.store.get(r.transactionHash)!.replacedBy!;
    await w.engine.handleMessage(message('m2', 'confirmation', next, receipt(next, 9)));
    const s = (h: string) => `${h.slice(0, 10)}…`;
    expect(lines).toEqual([
      `info sent ${s(r.transactionHash)} nonce 0 at 1 gwei (transaction)`,
      `info replacing ${s(r.transactionHash)} (nonce 0) with ${s(next)}: 1 gwei -> 1.125 gwei, not mined within the 2 s timeout`,
      `info sent ${s(next)} nonce 0 at 1.125 gwei (replacement)`,
      `info nonce 0 settled: ${s(next)} (replacement, attempt 1, 1.125 gwei) confirmed in block 9`,
    ]);
  });
});
