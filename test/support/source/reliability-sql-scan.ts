// A static check that SQL is built only from constants plus bound parameters: finds every call of better-sqlite3's
// `prepare`, `exec` and `pragma` in src/ with the TypeScript type checker, and follows the SQL argument back through
// constants; anything that could carry a runtime value into the SQL text is reported with its file and line.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface SqlFinding {
  /** `src/...:line` */
  where: string;
  method: string;
  /** The piece of the SQL argument that is not provably constant. */
  expression: string;
  reason: string;
}

const SQL_METHODS = new Set(['prepare', 'exec', 'pragma']);
/** The text any call of those methods contains (`db.prepare(`, `db?.exec(`, `db\n  .pragma(`). */
const SQL_CALL_TEXT = /\.\s*(prepare|exec|pragma)\b/;

/** Scans the files of `root`'s tsconfig.build.json under `root/src`, or just `files` (the scanner's own self-test). */
export function scanSql(root: string, files?: string[]): { findings: SqlFinding[]; callSites: number } {
  let program: ts.Program;
  // The self-test's files declare what they use: no DOM library and no @types packages to parse (that was 3 s).
  if (files)
    program = ts.createProgram({
      rootNames: files,
      options: { noEmit: true, strict: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] },
    });
  else {
    const configPath = join(root, 'tsconfig.build.json');
    const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    if (!parsed) throw new Error('cannot read tsconfig.build.json');
    // Only the files whose text calls a method of that name are roots (what they import is loaded with them, for the
    // types): a file neither such a file nor imported by one cannot hold a call site, and parsing those cost a second.
    const rootNames = parsed.fileNames.filter((f) => SQL_CALL_TEXT.test(readFileSync(f, 'utf8')));
    program = ts.createProgram({ rootNames, options: { ...parsed.options, noEmit: true } });
  }
  const checker = program.getTypeChecker();
  const findings: SqlFinding[] = [];
  /** Further offending pieces found while following one argument. */
  const extra: { node: ts.Node; reason: string }[] = [];
  let callSites = 0;

  const where = (n: ts.Node) => {
    const sf = n.getSourceFile();
    return `${relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  };

  /** True when the receiver is a better-sqlite3 Database (directly or through our Db alias). */
  function isDatabase(expr: ts.Expression): boolean {
    const type = checker.getTypeAtLocation(expr);
    const text = checker.typeToString(type);
    const symbol = type.getSymbol() ?? type.aliasSymbol;
    const name = symbol?.getName() ?? '';
    return /\bDatabase\b/.test(text) || name === 'Database' || /^(Db|BetterSqlite3\.Database)$/.test(text);
  }

  function constDeclaration(id: ts.Identifier): ts.VariableDeclaration | null {
    let symbol = checker.getSymbolAtLocation(id);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const decl = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
    if (!decl || !ts.isVariableDeclaration(decl)) return null;
    const list = decl.parent;
    if (!ts.isVariableDeclarationList(list) || !(list.flags & ts.NodeFlags.Const)) return null;
    return decl;
  }

  const strip = (e: ts.Expression): ts.Expression =>
    ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)
      ? strip(e.expression)
      : e;

  /** The const object/array literal an expression reads from, through const names and property/element reads. */
  function rootLiteral(e: ts.Expression, depth: number): ts.ObjectLiteralExpression | ts.ArrayLiteralExpression | null {
    if (depth > 12) return null;
    const x = strip(e);
    if (ts.isObjectLiteralExpression(x) || ts.isArrayLiteralExpression(x)) return x;
    if (ts.isIdentifier(x)) {
      const decl = constDeclaration(x);
      return decl?.initializer ? rootLiteral(decl.initializer, depth + 1) : null;
    }
    if (ts.isElementAccessExpression(x) || ts.isPropertyAccessExpression(x)) return rootLiteral(x.expression, depth + 1);
    return null;
  }

  /** True when every leaf of a literal table is a compile-time constant. */
  function deepConstant(lit: ts.ObjectLiteralExpression | ts.ArrayLiteralExpression, depth: number): boolean {
    const values = ts.isArrayLiteralExpression(lit)
      ? [...lit.elements]
      : lit.properties.map((p) => (ts.isPropertyAssignment(p) ? p.initializer : null));
    return values.every((v) => {
      if (!v || !ts.isExpression(v)) return false;
      const x = strip(v);
      if (ts.isObjectLiteralExpression(x) || ts.isArrayLiteralExpression(x)) return deepConstant(x, depth + 1);
      return nonConstant(x, depth + 1) === null;
    });
  }

  /** Returns null when `e` is provably a compile-time constant string, else the offending sub-expression and why. */
  function nonConstant(e: ts.Expression, depth = 0): { node: ts.Node; reason: string } | null {
    if (depth > 12) return { node: e, reason: 'too deep to follow' };
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isNumericLiteral(e)) return null;
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) return nonConstant(e.expression, depth + 1);
    if (ts.isTemplateExpression(e)) {
      // Every span is reported on its own, so a reviewed constant never hides a value next to it.
      const bads = e.templateSpans.map((span) => nonConstant(span.expression, depth + 1)).filter((b) => b !== null);
      if (bads.length > 1) extra.push(...bads.slice(1));
      return bads[0] ?? null;
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const l = nonConstant(e.left, depth + 1);
      const r = nonConstant(e.right, depth + 1);
      if (l && r) extra.push(r);
      return l ?? r;
    }
    if (ts.isConditionalExpression(e)) return nonConstant(e.whenTrue, depth + 1) ?? nonConstant(e.whenFalse, depth + 1);
    if (ts.isIdentifier(e)) {
      const decl = constDeclaration(e);
      if (!decl) return { node: e, reason: 'a variable or parameter, not a const' };
      if (!decl.initializer) return { node: e, reason: 'a const without initializer' };
      return nonConstant(decl.initializer, depth + 1);
    }
    if (ts.isElementAccessExpression(e) || ts.isPropertyAccessExpression(e)) {
      // Any read path into a const literal table whose every leaf is a constant (e.g. LIST_SOURCES[code].key) is constant.
      const table = rootLiteral(e.expression, 0);
      if (table && deepConstant(table, depth + 1)) return null;
      // A property of a const object/array literal of constants (e.g. a table of statements or column lists).
      const obj = e.expression;
      if (ts.isIdentifier(obj)) {
        const decl = constDeclaration(obj);
        const init = decl?.initializer && (ts.isAsExpression(decl.initializer) ? decl.initializer.expression : decl.initializer);
        if (init && (ts.isArrayLiteralExpression(init) || ts.isObjectLiteralExpression(init))) {
          const parts = ts.isArrayLiteralExpression(init)
            ? [...init.elements]
            : init.properties.map((p) => (ts.isPropertyAssignment(p) ? p.initializer : p));
          for (const p of parts) {
            const bad = ts.isExpression(p) ? nonConstant(p, depth + 1) : { node: p, reason: 'not a plain property' };
            if (bad) return bad;
          }
          if (ts.isElementAccessExpression(e) && !ts.isStringLiteral(e.argumentExpression) && !ts.isNumericLiteral(e.argumentExpression)) {
            // The index picks one of several constants: still constant text.
            return null;
          }
          return null;
        }
      }
      return { node: e, reason: 'a property read that is not from a const literal' };
    }
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'join') {
      // [constants].join(constant) and [constants].map(...).join(...) over constant arrays of identifiers.
      const target = e.expression.expression;
      const sep = e.arguments[0];
      if (sep && nonConstant(sep, depth + 1)) return { node: sep, reason: 'a non-constant separator' };
      if (ts.isArrayLiteralExpression(target)) {
        for (const el of target.elements) {
          const bad = nonConstant(el as ts.Expression, depth + 1);
          if (bad) return bad;
        }
        return null;
      }
      if (ts.isIdentifier(target)) {
        const decl = constDeclaration(target);
        const init = decl?.initializer && (ts.isAsExpression(decl.initializer) ? decl.initializer.expression : decl.initializer);
        if (init && ts.isArrayLiteralExpression(init))
          return init.elements.map((el) => nonConstant(el as ts.Expression, depth + 1)).find((x) => x) ?? null;
      }
      return { node: e, reason: 'a join over values that are not provably constant' };
    }
    return { node: e, reason: `a ${ts.SyntaxKind[e.kind]} whose value is computed at run time` };
  }

  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || !sf.fileName.startsWith(files ? root : join(root, 'src'))) continue;
    const visit = (n: ts.Node) => {
      if (
        ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        SQL_METHODS.has(n.expression.name.text) &&
        isDatabase(n.expression.expression)
      ) {
        callSites++;
        const arg = n.arguments[0];
        if (!arg) findings.push({ where: where(n), method: n.expression.name.text, expression: n.getText(), reason: 'no SQL argument' });
        else {
          extra.length = 0;
          const bad = nonConstant(arg);
          for (const b of bad ? [bad, ...extra] : [])
            findings.push({
              where: where(n),
              method: n.expression.name.text,
              expression: b.node.getText().slice(0, 200),
              reason: b.reason,
            });
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { findings, callSites };
}
