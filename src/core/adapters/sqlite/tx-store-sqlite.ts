// The TxStore on better-sqlite3: records with their signed bytes (for re-broadcast), event history, and the ids of
// tracker messages already applied (idempotency). Every statement uses bound parameters.
import { migrate, openDatabase, writeTransaction, type Db } from '../../../lib/sqlite.js';
import type { NonceProblem, PricedBy, TxEvent, TxKind, TxRecord, TxStatus } from '../../../shared/tx-record.js';
import type { BroadcastState, NewEvent, TxStore } from '../../ports.js';

const MIGRATIONS = [
  `CREATE TABLE txs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     hash TEXT NOT NULL UNIQUE,
     sender TEXT NOT NULL,
     nonce INTEGER NOT NULL,
     tx_type TEXT NOT NULL,
     gas_price TEXT NOT NULL,
     max_priority_fee TEXT,
     status TEXT,
     data TEXT NOT NULL DEFAULT '{}',
     replaces TEXT,
     replaced_by TEXT,
     attempt INTEGER NOT NULL,
     raw TEXT NOT NULL,
     broadcast TEXT NOT NULL DEFAULT 'unsent',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX txs_sender_nonce ON txs (sender, nonce);
   CREATE TABLE tx_events (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     hash TEXT NOT NULL REFERENCES txs (hash),
     at TEXT NOT NULL,
     kind TEXT NOT NULL,
     summary TEXT NOT NULL,
     detail TEXT NOT NULL
   );
   CREATE INDEX tx_events_hash ON tx_events (hash, id);
   CREATE TABLE tracker_processed (message_id TEXT PRIMARY KEY, at TEXT NOT NULL);`,
  // Why each record was signed, and what keeps its nonce from settling (JSON NonceProblem, newest record only).
  `ALTER TABLE txs ADD COLUMN kind TEXT NOT NULL DEFAULT 'generate';
   UPDATE txs SET kind = 'replace' WHERE attempt > 0;
   ALTER TABLE txs ADD COLUMN problem TEXT;
   CREATE INDEX txs_problem ON txs (sender, nonce) WHERE problem IS NOT NULL;`,
  // What each record does (earlier records were all 0-value self-transfers of 21,000 gas).
  `ALTER TABLE txs ADD COLUMN to_addr TEXT;
   ALTER TABLE txs ADD COLUMN value TEXT NOT NULL DEFAULT '0';
   ALTER TABLE txs ADD COLUMN input TEXT NOT NULL DEFAULT '0x';
   ALTER TABLE txs ADD COLUMN gas_limit TEXT NOT NULL DEFAULT '21000';
   UPDATE txs SET to_addr = sender;`,
  // How each record's fee was chosen (JSON PricedBy; NULL for records from before).
  `ALTER TABLE txs ADD COLUMN priced_by TEXT;`,
];

interface Row {
  hash: string;
  sender: string;
  nonce: number;
  tx_type: 'legacy' | 'eip1559';
  gas_price: string;
  max_priority_fee: string | null;
  status: TxStatus | null;
  data: string;
  replaces: string | null;
  replaced_by: string | null;
  attempt: number;
  kind: TxKind;
  problem: string | null;
  to_addr: string | null;
  value: string;
  input: string;
  gas_limit: string;
  priced_by: string | null;
  created_at: string;
  updated_at: string;
}

const COLS =
  'hash, sender, nonce, tx_type, gas_price, max_priority_fee, status, data, replaces, replaced_by, attempt, kind, problem, ' +
  'to_addr, value, input, gas_limit, priced_by, created_at, updated_at';

function toRecord(r: Row): TxRecord {
  const rec: TxRecord = {
    transactionHash: r.hash,
    from: r.sender,
    nonce: r.nonce,
    gasPrice: r.gas_price,
    txType: r.tx_type,
    to: r.to_addr,
    value: r.value,
    input: r.input,
    gasLimit: r.gas_limit,
    data: JSON.parse(r.data) as Record<string, unknown>,
    replaces: r.replaces,
    replacedBy: r.replaced_by,
    attempt: r.attempt,
    kind: r.kind,
    problem: r.problem === null ? null : (JSON.parse(r.problem) as NonceProblem),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.max_priority_fee !== null) rec.maxPriorityFeePerGas = r.max_priority_fee;
  if (r.status !== null) rec.status = r.status;
  if (r.priced_by !== null) rec.pricedBy = JSON.parse(r.priced_by) as PricedBy;
  return rec;
}

export function migrateTxStore(db: Db): void {
  migrate(db, 'core-tx', MIGRATIONS);
}

export function openTxStore(file: string, opts: { nativeBinding?: string } = {}): TxStore {
  const db = openDatabase(file, opts);
  migrateTxStore(db);
  return createSqliteTxStore(db);
}

export function createSqliteTxStore(db: Db): TxStore {
  const q = {
    get: db.prepare(`SELECT ${COLS} FROM txs WHERE hash = ?`),
    list: db.prepare(`SELECT ${COLS} FROM txs ORDER BY id`),
    senders: db.prepare('SELECT DISTINCT sender FROM txs'),
    byNonce: db.prepare(`SELECT ${COLS} FROM txs WHERE sender = ? AND nonce = ? ORDER BY attempt, id`),
    history: db.prepare('SELECT at, kind, summary, detail FROM tx_events WHERE hash = ? ORDER BY id'),
    liveNonces: db.prepare('SELECT DISTINCT nonce FROM txs WHERE sender = ?'),
    noncesFrom: db.prepare(
      'SELECT DISTINCT nonce FROM txs WHERE sender = ? AND nonce >= ? UNION SELECT MAX(nonce) FROM txs WHERE sender = ? ORDER BY 1',
    ),
    openNonces: db.prepare(
      "SELECT DISTINCT nonce FROM txs WHERE sender = ? AND nonce NOT IN (SELECT nonce FROM txs WHERE sender = ? AND status = 'confirmation') ORDER BY nonce",
    ),
    skippedNonces: db.prepare(
      `SELECT DISTINCT sender, nonce FROM txs t
       WHERE replaced_by IS NULL AND (status IS NULL OR status = 'pending')
         AND EXISTS (SELECT 1 FROM tx_events e WHERE e.hash = t.hash AND e.kind = 'replacement-skipped')
       ORDER BY sender, nonce`,
    ),
    raw: db.prepare('SELECT raw FROM txs WHERE hash = ?'),
    rejected: db.prepare("SELECT hash FROM txs WHERE sender = ? AND broadcast = 'rejected'"),
    insert: db.prepare(
      `INSERT INTO txs (hash, sender, nonce, tx_type, gas_price, max_priority_fee, status, data, replaces, replaced_by,
         attempt, kind, problem, to_addr, value, input, gas_limit, priced_by, raw, created_at, updated_at)
       VALUES (@hash, @sender, @nonce, @tx_type, @gas_price, @max_priority_fee, @status, @data, @replaces, @replaced_by,
         @attempt, @kind, @problem, @to_addr, @value, @input, @gas_limit, @priced_by, @raw, @created_at, @updated_at)`,
    ),
    withProblems: db.prepare(`SELECT ${COLS} FROM txs WHERE problem IS NOT NULL ORDER BY sender, nonce, id`),
    setProblem: db.prepare('UPDATE txs SET problem = ?, updated_at = ? WHERE hash = ?'),
    clearProblems: db.prepare('UPDATE txs SET problem = NULL, updated_at = ? WHERE sender = ? AND nonce = ? AND problem IS NOT NULL'),
    broadcastOf: db.prepare('SELECT broadcast FROM txs WHERE hash = ?'),
    setStatus: db.prepare('UPDATE txs SET status = ?, updated_at = ? WHERE hash = ?'),
    setStatusData: db.prepare('UPDATE txs SET status = ?, data = ?, updated_at = ? WHERE hash = ?'),
    event: db.prepare('INSERT INTO tx_events (hash, at, kind, summary, detail) VALUES (?, ?, ?, ?, ?)'),
    link: db.prepare('UPDATE txs SET replaced_by = ?, updated_at = ? WHERE hash = ?'),
    broadcast: db.prepare('UPDATE txs SET broadcast = ? WHERE hash = ?'),
    unreject: db.prepare("UPDATE txs SET broadcast = 'unsent' WHERE hash = ? AND broadcast = 'rejected'"),
    isProcessed: db.prepare('SELECT 1 FROM tracker_processed WHERE message_id = ?'),
    markProcessed: db.prepare('INSERT OR IGNORE INTO tracker_processed (message_id, at) VALUES (?, ?)'),
    pruneProcessed: db.prepare('DELETE FROM tracker_processed WHERE at < ?'),
  };

  const get = (hash: string): TxRecord | null => {
    const row = q.get.get(hash.toLowerCase()) as Row | undefined;
    return row ? toRecord(row) : null;
  };
  const addEvent = (hash: string, e: NewEvent, at: string) => q.event.run(hash, at, e.kind, e.summary, JSON.stringify(e.detail));

  return {
    transaction: (fn) => writeTransaction(db, fn)(),
    get,
    senders: () => (q.senders.all() as { sender: string }[]).map((r) => r.sender),
    list: () => (q.list.all() as Row[]).map(toRecord),
    history: (hash) =>
      (q.history.all(hash.toLowerCase()) as { at: string; kind: TxEvent['kind']; summary: string; detail: string }[]).map((e) => ({
        at: e.at,
        kind: e.kind,
        summary: e.summary,
        detail: JSON.parse(e.detail) as Record<string, unknown>,
      })),
    byNonce: (from, nonce) => (q.byNonce.all(from.toLowerCase(), nonce) as Row[]).map(toRecord),
    liveNonces: (from) => (q.liveNonces.all(from.toLowerCase()) as { nonce: number }[]).map((r) => r.nonce),
    noncesFrom: (from, atLeast) =>
      (q.noncesFrom.raw().all(from.toLowerCase(), atLeast, from.toLowerCase()) as [number | null][])
        .map(([n]) => n)
        .filter((n): n is number => n !== null),
    openNonces: (from) => (q.openNonces.all(from.toLowerCase(), from.toLowerCase()) as { nonce: number }[]).map((r) => r.nonce),
    skippedNonces: () => (q.skippedNonces.all() as { sender: string; nonce: number }[]).map((r) => ({ from: r.sender, nonce: r.nonce })),
    rawOf: (hash) => (q.raw.get(hash.toLowerCase()) as { raw: string } | undefined)?.raw ?? null,
    rejected: (from) => new Set((q.rejected.all(from.toLowerCase()) as { hash: string }[]).map((r) => r.hash)),
    insert(r, raw, events) {
      writeTransaction(db, () => {
        q.insert.run({
          hash: r.transactionHash.toLowerCase(),
          sender: r.from.toLowerCase(),
          nonce: r.nonce,
          tx_type: r.txType,
          gas_price: r.gasPrice,
          max_priority_fee: r.maxPriorityFeePerGas ?? null,
          status: r.status ?? null,
          data: JSON.stringify(r.data),
          replaces: r.replaces,
          replaced_by: r.replacedBy,
          attempt: r.attempt,
          kind: r.kind,
          problem: r.problem ? JSON.stringify(r.problem) : null,
          to_addr: r.to === null ? null : r.to.toLowerCase(),
          value: r.value,
          input: r.input.toLowerCase(),
          gas_limit: r.gasLimit,
          priced_by: r.pricedBy ? JSON.stringify(r.pricedBy) : null,
          raw,
          created_at: r.createdAt,
          updated_at: r.updatedAt,
        });
        for (const e of events) addEvent(r.transactionHash.toLowerCase(), e, r.createdAt);
      })();
    },
    applyChanges(changes, now) {
      return writeTransaction(db, () => {
        for (const c of changes) {
          if (c.data) q.setStatusData.run(c.status, JSON.stringify(c.data), now, c.hash);
          else q.setStatus.run(c.status, now, c.hash);
          addEvent(c.hash, c.event, now);
        }
        return [...new Set(changes.map((c) => c.hash))].map((h) => get(h)).filter((r): r is TxRecord => r !== null);
      })();
    },
    addEvent: (hash, e, now) => void addEvent(hash.toLowerCase(), e, now),
    linkReplacement: (prev, next, now) => void q.link.run(next.toLowerCase(), now, prev.toLowerCase()),
    markBroadcast: (hash, state) => void q.broadcast.run(state, hash.toLowerCase()),
    unreject: (hash) => void q.unreject.run(hash.toLowerCase()),
    broadcastOf: (hash) => (q.broadcastOf.get(hash.toLowerCase()) as { broadcast: BroadcastState } | undefined)?.broadcast ?? null,
    withProblems: () => (q.withProblems.all() as Row[]).map(toRecord),
    setProblem: (hash, problem, now) => void q.setProblem.run(problem ? JSON.stringify(problem) : null, now, hash.toLowerCase()),
    clearProblems: (from, nonce, now) => void q.clearProblems.run(now, from.toLowerCase(), nonce),
    isProcessed: (id) => q.isProcessed.get(id) !== undefined,
    markProcessed: (id, now) => void q.markProcessed.run(id, now),
    pruneProcessed: (before) => q.pruneProcessed.run(before).changes,
    close: () => db.close(),
  };
}
