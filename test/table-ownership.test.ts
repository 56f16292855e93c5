// Each module owns its data: a table is named (in any string of src/) only inside the module whose migrations create
// it. The layering test cannot see coupling written in SQL strings; this one reads them. A module using another's data
// goes through that module's store interface (webhooks: the tracker's tracker-outbox-store.ts, the index's
// indexer-moves.ts). A table named outside its owner here is a design decision to discuss, not a line to allow.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, stringLiteralsOf } from './support/source/source-strings.js';

const root = resolve(import.meta.dirname, '..');

/**
 * Modules that own their tables together: the index's schema is one, recorded under one version, built from the
 * listing's steps and the indexer's (indexSchemaSteps in src/service/listing/listing-writer.ts).
 */
const DATA_OWNER: Record<string, string> = { 'src/service/indexer': 'the index', 'src/service/listing': 'the index' };

/** The module a file belongs to: src/service/<name> in the data service, else src/<name>. */
function moduleOf(file: string): string {
  const parts = file.split('/');
  const mod = parts[1] === 'service' && parts.length > 3 ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
  return DATA_OWNER[mod] ?? mod;
}

/**
 * Every string a file spells out: quoted strings, the text parts of template strings and JSX attribute strings. Read
 * by a scanner, not the TypeScript parser (loading and running it made this unit test take 12-19 s on a loaded box);
 * test/table-ownership-strings.test.ts checks that the scanner finds exactly what the parser finds in all of src/.
 */
const stringsOf = (name: string, text: string): string[] => stringLiteralsOf(text, name.endsWith('.tsx'));

const SQL_WORD = /\b(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|FROM|JOIN)\b/;

export interface Crossing {
  file: string;
  table: string;
  owner: string;
}

/**
 * Tables by owner (from the CREATE TABLE statements), then every string naming a table of another owner. A name with
 * an underscore counts in any string; a plain word (`webhook`, `txs`) only in a string that reads as SQL, so prose
 * about webhooks is not a use of the table.
 */
export function tableCrossings(files: ReadonlyMap<string, string>): { owners: Map<string, Set<string>>; crossings: Crossing[] } {
  // Reading strings is the cost: a file whose text holds no table's name anywhere has no string naming one.
  const strings = new Map<string, string[]>();
  const stringsOfFile = (f: string) => strings.get(f) ?? strings.set(f, stringsOf(f, files.get(f)!)).get(f)!;
  const owners = new Map<string, Set<string>>();
  for (const [f, text] of files) {
    if (!text.includes('CREATE TABLE')) continue;
    for (const s of stringsOfFile(f))
      for (const m of s.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g))
        owners.set(m[1]!, (owners.get(m[1]!) ?? new Set()).add(moduleOf(f)));
  }
  const anyTable = new RegExp(`\\b(${[...owners.keys()].join('|')})\\b`);
  const crossings: Crossing[] = [];
  for (const [file, text] of files) {
    if (!anyTable.test(text)) continue;
    const list = stringsOfFile(file);
    const mod = moduleOf(file);
    // The words of its strings (`t.id` is a column, not a table), and those of its strings that read as SQL.
    const words = (of: readonly string[]) => new Set(of.flatMap((s) => s.match(/(?<![\w.])\w+/g) ?? []));
    const [anyWords, sqlWords] = [words(list), words(list.filter((s) => SQL_WORD.test(s)))];
    for (const [table, by] of owners) {
      if (!by.has(mod) && (table.includes('_') ? anyWords : sqlWords).has(table))
        crossings.push({ file, table, owner: [...by].join(' + ') });
    }
  }
  return { owners, crossings };
}

describe('table ownership', () => {
  it('names every table only inside the module that creates it', () => {
    const files = new Map(sourceFiles(join(root, 'src')).map((p) => [relative(root, p), readFileSync(p, 'utf8')]));
    const { owners, crossings } = tableCrossings(files);
    // The scan sees the tables of each module (a sample, so a change in how tables are found cannot pass silently).
    expect(owners.get('webhook')).toEqual(new Set(['src/service/webhooks']));
    expect(owners.get('tracker_delivery')).toEqual(new Set(['src/service/tracker']));
    expect(owners.get('idx_transfers')).toEqual(new Set(['the index']));
    expect(owners.get('accounts_users')).toEqual(new Set(['src/service/accounts']));
    expect(crossings.map((c) => `${c.file} names ${c.table}, a table of ${c.owner}`)).toEqual([]);
  });

  it('catches a table named in another module, in SQL or by its full name, and not prose about it', () => {
    const files = new Map([
      ['src/service/tracker/sqlite/t.ts', "const m = ['CREATE TABLE tracker_delivery (x INTEGER)'];"],
      ['src/service/webhooks/sqlite/w.ts', 'const m = [`CREATE TABLE webhook (id TEXT)`];'],
      ['src/service/webhooks/rows.ts', 'const q = `SELECT d.ack_id FROM ${"tracker_delivery"} d`;'],
      ['src/service/tracker/fine.ts', "const s = 'Delete the webhook first.';"],
      ['src/service/tracker/not-fine.ts', "const s = 'DELETE FROM webhook WHERE id = ?';"],
    ]);
    expect(tableCrossings(files).crossings).toEqual([
      { file: 'src/service/webhooks/rows.ts', table: 'tracker_delivery', owner: 'src/service/tracker' },
      { file: 'src/service/tracker/not-fine.ts', table: 'webhook', owner: 'src/service/webhooks' },
    ]);
  });
});
