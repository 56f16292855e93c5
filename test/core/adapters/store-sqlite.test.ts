// The SQLite TxStore on a real file: round trips, nonce queries, atomicity, idempotency bookkeeping, reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTxStore } from '../../../src/core/adapters/sqlite/tx-store-sqlite.js';
import { hashOf, rec } from '../../support/app/core-records.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-core-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqlite tx store', () => {
  const file = join(dir, 'tx.db');
  const from = '0x' + 'a'.repeat(40);

  it('stores records with raw bytes and history, lists oldest first, survives reopen', () => {
    const s = openTxStore(file);
    s.insert(rec({ n: 1, nonce: 0 }), '0xraw1', [{ kind: 'signed', summary: 'Signed.', detail: { nonce: 0 } }]);
    s.insert(rec({ n: 2, nonce: 1, txType: 'eip1559', maxPriorityFeePerGas: '5' }), '0xraw2', []);
    s.insert(rec({ n: 3, nonce: 0, attempt: 1, replaces: hashOf(1) }), '0xraw3', []);
    s.linkReplacement(hashOf(1), hashOf(3), '2026-01-01T00:00:01.000Z');
    s.close();

    const t = openTxStore(file);
    expect(t.list().map((r) => Number(BigInt(r.transactionHash)))).toEqual([1, 2, 3]);
    expect(t.get(hashOf(1))).toMatchObject({ replacedBy: hashOf(3), replaces: null, data: {} });
    expect(t.get(hashOf(1))).not.toHaveProperty('status');
    expect(t.get(hashOf(2))).toMatchObject({ txType: 'eip1559', maxPriorityFeePerGas: '5' });
    expect(t.get(hashOf(3))).toMatchObject({ replaces: hashOf(1), attempt: 1 });
    expect(t.rawOf(hashOf(3))).toBe('0xraw3');
    expect(t.history(hashOf(1))).toEqual([{ at: '2026-01-01T00:00:00.000Z', kind: 'signed', summary: 'Signed.', detail: { nonce: 0 } }]);
    expect(t.byNonce(from, 0).map((r) => r.attempt)).toEqual([0, 1]);
    expect(t.liveNonces(from).sort()).toEqual([0, 1]);
    expect(t.noncesFrom(from, 1)).toEqual([1]);
    expect(t.noncesFrom(from, 5)).toEqual([1]); // the highest, below the bound
    expect(t.noncesFrom('0x' + '9'.repeat(40), 0)).toEqual([]);
    expect(t.openNonces(from)).toEqual([0, 1]);

    const changed = t.applyChanges(
      [
        {
          hash: hashOf(3),
          status: 'confirmation',
          data: { blockNumber: 9 },
          event: { kind: 'confirmation', summary: 'Confirmed.', detail: {} },
        },
        { hash: hashOf(1), status: 'replaced', event: { kind: 'replaced', summary: 'Lost.', detail: {} } },
      ],
      '2026-01-01T00:00:02.000Z',
    );
    expect(changed.map((r) => r.status)).toEqual(['confirmation', 'replaced']);
    expect(t.get(hashOf(3))).toMatchObject({ status: 'confirmation', data: { blockNumber: 9 }, updatedAt: '2026-01-01T00:00:02.000Z' });
    expect(t.openNonces(from)).toEqual([1]);

    t.markBroadcast(hashOf(2), 'rejected');
    expect(t.rejected(from)).toEqual(new Set([hashOf(2)]));
    t.markBroadcast(hashOf(2), 'sent'); // refusals are retried: a later send that works counts
    expect(t.rejected(from)).toEqual(new Set());
    expect(t.broadcastOf(hashOf(2))).toBe('sent');
    // Every nonce with a record is live, refused or not: none is reused.
    expect(t.liveNonces(from).sort()).toEqual([0, 1]);

    // kind and problem round-trip; clearProblems empties a whole nonce.
    expect(t.get(hashOf(1))).toMatchObject({ kind: 'generate', problem: null });
    const problem = {
      reason: 'funds' as const,
      summary: 'Balance 0 ETH is below the 0.1 ETH this replacement needs.',
      since: '2026-01-01T00:00:03.000Z',
    };
    t.setProblem(hashOf(2), problem, '2026-01-01T00:00:03.000Z');
    expect(t.get(hashOf(2))!.problem).toEqual(problem);
    expect(t.withProblems().map((r) => r.transactionHash)).toEqual([hashOf(2)]);
    t.clearProblems(from, t.get(hashOf(2))!.nonce, '2026-01-01T00:00:04.000Z');
    expect(t.withProblems()).toEqual([]);
    t.close();
  });

  it('skippedNonces: unreplaced records with no mined status and a replacement-skipped event', () => {
    const s = openTxStore(join(dir, 'skipped.db'));
    const other = '0x' + 'b'.repeat(40);
    const skip = { kind: 'replacement-skipped' as const, summary: 'Not replaced.', detail: { reason: 'cap' } };
    s.insert(rec({ n: 1, nonce: 0, status: 'pending' }), '0x1', [skip]); // waiting candidate
    s.insert(rec({ n: 2, nonce: 1, status: 'pending' }), '0x2', []); // no skip
    s.insert(rec({ n: 3, nonce: 2, status: 'pending' }), '0x3', [skip]); // replaced later: the newer one decides
    s.insert(rec({ n: 4, nonce: 2, attempt: 1, replaces: hashOf(3) }), '0x4', []);
    s.linkReplacement(hashOf(3), hashOf(4), 'now');
    s.insert(rec({ n: 5, nonce: 3, status: 'receipt' }), '0x5', [skip]);
    s.insert(rec({ n: 6, nonce: 4, status: 'replaced' }), '0x6', [skip]);
    s.insert(rec({ n: 7, nonce: 5 }), '0x7', [skip]); // no status: a refused replacement whose re-bump was skipped
    s.insert(rec({ n: 8, nonce: 0, from: other, status: 'pending' }), '0x8', [skip]);
    s.insert(rec({ n: 9, nonce: 0, attempt: 1 }), '0x9', [skip]); // two candidates of one nonce: listed once
    expect(s.skippedNonces()).toEqual([
      { from, nonce: 0 },
      { from, nonce: 5 },
      { from: other, nonce: 0 },
    ]);
    s.close();
  });

  it('rolls back every write of a failed transaction, including processed message ids', () => {
    const s = openTxStore(join(dir, 'atomic.db'));
    s.insert(rec({ n: 1 }), '0xraw', []);
    expect(() =>
      s.transaction(() => {
        s.markProcessed('m1', 'now');
        s.applyChanges([{ hash: hashOf(1), status: 'pending', event: { kind: 'pending', summary: 'p', detail: {} } }], 'now');
        throw new Error('crash before commit');
      }),
    ).toThrow('crash before commit');
    expect(s.isProcessed('m1')).toBe(false);
    expect(s.get(hashOf(1))?.status).toBeUndefined();
    expect(s.history(hashOf(1))).toEqual([]);
    s.transaction(() => s.markProcessed('m1', 'now'));
    s.markProcessed('m1', 'again');
    expect(s.isProcessed('m1')).toBe(true);
    s.markProcessed('old', '2020-01-01T00:00:00.000Z');
    expect(s.pruneProcessed('2021-01-01T00:00:00.000Z')).toBe(1);
    expect(s.isProcessed('old')).toBe(false);
    expect(s.isProcessed('m1')).toBe(true);
    s.close();
  });
});
