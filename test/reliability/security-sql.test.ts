// SQL is built only from constants plus bound parameters: every better-sqlite3 `prepare`/`exec`/`pragma` call in src/
// is found with the type checker and its SQL argument followed back to constants. The few places that interpolate
// constant table/column names are listed below with the reason they are safe; anything else fails the test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanSql, type SqlFinding } from '../support/source/reliability-sql-scan.js';

const root = join(import.meta.dirname, '..', '..');

/** Reviewed interpolations: file, the exact flagged expressions, and why no outside value can reach the SQL text. */
export const SQL_ALLOWLIST: { file: string; expressions: RegExp; why: string }[] = [
  {
    file: 'src/lib/sqlite.ts',
    expressions: /^migrations\[v\]!?$/,
    why: 'migrate() runs the schema scripts each module passes as a constant array literal.',
  },
  {
    file: 'src/lib/sqlite.ts',
    expressions: /^h\.pages$/,
    why: 'deferCheckpoints() puts back the WAL threshold it read from PRAGMA wal_autocheckpoint on the same connection, an integer.',
  },
  {
    file: 'src/service/listing/sqlite/listing-rank-sqlite.ts',
    expressions: /^listSql\(code\)\.nth$/,
    why: 'column and index names come from the constant LIST_SOURCES table, keyed by the constant LIST codes; values are bound (?).',
  },
  {
    file: 'src/service/listing/sqlite/listing-reads-sqlite.ts',
    expressions: /^(s\.(key|index|scope)|upTo|from|order|s\.extra\.replace\('owner_id', 't\.owner_id'\))$/,
    why: 'page statements interpolate LIST_SOURCES names and the fixed keywords ASC/DESC, >=, <=, < picked by a ternary on the direction; values are bound.',
  },
  {
    file: 'src/service/indexer/sqlite/indexer-moves-sqlite.ts',
    expressions: /^v$/,
    why: 'prepares each text of the constant MOVES_SQL object (src/service/indexer/indexer-moves.ts) once; values are bound (?).',
  },
  {
    file: 'src/service/listing/sqlite/listing-rebuild-sqlite.ts',
    expressions: /^(code|s\.(scope|key)|Math\.max\(1, Math\.floor\(bucketSize\)\))$/,
    why: 'the bulk rebuild inlines a LIST code (a constant small integer), LIST_SOURCES names, and the bucket size as Math.max(1, Math.floor(n)), an integer.',
  },
];

const allowed = (f: SqlFinding) => SQL_ALLOWLIST.some((a) => f.where.startsWith(`${a.file}:`) && a.expressions.test(f.expression.trim()));

describe('SQL built only with bound parameters', () => {
  it('the scanner flags interpolated and concatenated values and accepts constants', () => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-rel-sql-'));
    try {
      const file = join(dir, 'sample.ts');
      writeFileSync(
        file,
        `declare class Database { prepare(sql: string): unknown; exec(sql: string): void; pragma(sql: string): unknown }
const db = new Database();
const COLS = 'a, b';
const TABLE = \`t_\${'x'}\`;
export function ok(id: string) { db.prepare(\`SELECT \${COLS} FROM \${TABLE} WHERE id = ?\`); db.exec('VACUUM'); db.pragma('journal_mode = WAL'); return id; }
export function bad1(name: string) { db.prepare(\`SELECT * FROM t WHERE name = '\${name}'\`); }
export function bad2(name: string) { db.exec('DELETE FROM t WHERE name = ' + name); }
export function bad3(order: string) { let sql = 'SELECT 1'; sql += order; db.prepare(sql); }
export function bad4(cols: string[]) { db.prepare(\`SELECT \${cols.join(',')} FROM t\`); }
const TABLES: Record<string, { name: string; key: string }> = { a: { name: 'ta', key: 'ka' }, b: { name: 'tb', key: 'kb' } };
export function table(k: string) { const t = TABLES[k]!; db.prepare(\`SELECT \${t.key} FROM \${t.name} WHERE id = ?\`); }
const MIXED = { a: { name: 'ta' }, b: { name: String(Date.now()) } };
export function bad5(k: 'a' | 'b') { const t = MIXED[k]; db.prepare(\`SELECT * FROM \${t.name}\`); }
export function fine(re: RegExp, s: string) { return re.exec(s); }
`,
      );
      const { findings, callSites } = scanSql(dir, [file]);
      expect(callSites).toBe(9);
      expect(findings.map((f) => f.where.split(':')[1])).toEqual(['6', '7', '8', '9', '13']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every prepare/exec/pragma in src/ uses constant SQL text, apart from the reviewed allowlist', () => {
    const { findings, callSites } = scanSql(root);
    expect(callSites, 'the scanner found the database calls').toBeGreaterThan(50);
    const unexpected = findings.filter((f) => !allowed(f));
    expect(unexpected.map((f) => `${f.where} ${f.method}(): ${f.reason}: ${f.expression}`)).toEqual([]);
    process.stdout.write(`[reliability] sql scan: ${callSites} call sites, ${findings.length} reviewed interpolations\n`);
  });
});
