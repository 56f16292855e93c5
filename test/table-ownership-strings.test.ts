// The string scanner of test/support/source/source-strings.ts (what test/table-ownership.test.ts reads, so the unit tests need
// not load the TypeScript parser) finds in every file of src/ exactly the strings the parser finds, in the same order.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { sourceFiles, stringLiteralsOf } from './support/source/source-strings.js';

const root = resolve(import.meta.dirname, '..');

/** The parser's view: every string literal (JSX attribute strings too) and the text parts of template strings. */
function parsedStrings(name: string, text: string): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (
      ts.isStringLiteral(n) ||
      ts.isNoSubstitutionTemplateLiteral(n) ||
      ts.isTemplateHead(n) ||
      ts.isTemplateMiddle(n) ||
      ts.isTemplateTail(n)
    )
      out.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, name.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS));
  return out;
}

it('finds the strings the TypeScript parser finds, in every file of src/', () => {
  const differing: string[] = [];
  for (const p of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(p, 'utf8');
    const [scanned, parsed] = [stringLiteralsOf(text, p.endsWith('.tsx')), parsedStrings(p, text)];
    if (JSON.stringify(scanned) !== JSON.stringify(parsed)) differing.push(relative(root, p));
  }
  expect(differing).toEqual([]);
});

it('steps over comments, regular expressions and JSX text, and reads escapes as the parser does', () => {
  const text = [
    "// 'not a string' in a comment",
    "const a = /'[/]\"/g.test(x) ? 'one' : `two ${b / 2 + `three${'four'}`} five\\n`; /* 'nor here' */",
    'const c = <div title="six">don\'t {"seven"} <b>it\'s</b></div>;',
    "const d = 'e\\u0069ght' + x / y / 'nine';",
  ].join('\n');
  expect(stringLiteralsOf(text, true)).toEqual(['one', 'two ', 'three', 'four', '', ' five\n', 'six', 'seven', 'eight', 'nine']);
  expect(parsedStrings('x.tsx', text)).toEqual(stringLiteralsOf(text, true));
});
