// The layers of src/ as the README draws them, enforced on the whole import chain: a rule holds for every file a layer
// reaches at run time (imports, re-exports, import() and require, followed to the end), not only for its own import
// lines. Type-only imports are erased at build time, so they count for the direct rules but are not followed.
// A rule broken here is a design decision to discuss, not a test to loosen.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');
/** The tracker SDK's own package (@txdesk/tracker), which the app and the service import by name. */
const trackerPackage = 'packages/tracker';
const trackerSource = join(root, trackerPackage, 'src');

interface Edge {
  /** Importing file, relative to the repository (src/core/create-core.ts). */
  from: string;
  /** A file relative to the repository for our own modules (@txdesk/tracker included), else the bare module name. */
  to: string;
  /** The import as written. */
  spec: string;
  external: boolean;
  /** `import type` / `export type`: gone at run time. */
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : sourceFiles(p);
    return /\.(ts|tsx|mts)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `./x.js` -> the file it names (x.ts, x.tsx or x/index.ts); `@txdesk/tracker[/x]` -> its source file. */
function resolveLocal(file: string, spec: string): string {
  const inPackage = /^@txdesk\/tracker(?:\/(.+))?$/.exec(spec);
  if (inPackage) return `${trackerPackage}/src/${inPackage[1] ?? 'index'}.ts`;
  const base = resolve(dirname(file), spec).replace(/\.js$/, '');
  const hit = [`${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, 'index.ts')].find((p) => existsSync(p)) ?? base;
  return relative(root, hit);
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false; // import './side-effect.js'
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

function importsOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const from = relative(root, file);
  const out: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const external = !spec.startsWith('.') && !spec.startsWith('@txdesk/tracker');
    out.push({ from, to: external ? spec : resolveLocal(file, spec), spec, external, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, isTypeOnly(node));
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]!)) {
      const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const required = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (dynamic || required) add((node.arguments[0] as ts.StringLiteral).text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true); // import('./x.js').T in a type position
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const edges = [...sourceFiles(src), ...sourceFiles(trackerSource)].flatMap(importsOf);
const byFile = new Map<string, Edge[]>();
for (const e of edges) byFile.set(e.from, [...(byFile.get(e.from) ?? []), e]);

const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
const isNodeBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name.split('/')[0]!);
const files = (dir: string) => [...byFile.keys()].filter((f) => inside(f, dir));

/** Every module the files reach at run time, each with the chain that reaches it (for the failure message). */
function reach(starts: string[]): Map<string, string[]> {
  const chains = new Map<string, string[]>(starts.map((s) => [s, [s]]));
  const queue = [...starts];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const e of byFile.get(at) ?? []) {
      if (e.typeOnly || chains.has(e.to)) continue;
      chains.set(e.to, [...chains.get(at)!, e.to]);
      if (!e.external) queue.push(e.to);
    }
  }
  return chains;
}

/** The chains from `dir`'s files to any module `bad` picks, as `a -> b -> c` lines ([] when the rule holds). */
function badChains(dir: string | string[], bad: (module: string) => boolean): string[] {
  const starts = (Array.isArray(dir) ? dir : [dir]).flatMap(files);
  return [...reach(starts)].filter(([m]) => bad(m)).map(([, chain]) => chain.join(' -> '));
}

/**
 * Every import circle of a graph, each as the files around it (`a -> b -> a`), found by a depth-first walk: an edge back
 * to a file still on the walk's path closes one. Circles that are rotations of one another are reported once.
 */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found = new Map<string, string>();
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Map<string, number>();
  const walk = (at: string) => {
    onPath.set(at, path.push(at) - 1);
    for (const next of graph.get(at) ?? []) {
      const back = onPath.get(next);
      if (back !== undefined) {
        const ring = path.slice(back);
        const key = [...ring].sort().join(' ');
        if (!found.has(key)) found.set(key, [...ring, next].join(' -> '));
      } else if (!done.has(next)) walk(next);
    }
    path.pop();
    onPath.delete(at);
    done.add(at);
  };
  for (const start of [...graph.keys()].sort()) if (!done.has(start)) walk(start);
  return [...found.values()];
}

/**
 * The zustand slices pattern, a circle of types only (erased at build time): the store's type is the union of its
 * slices, and each slice is typed against the whole store. It is the one circle allowed, and only among types: no
 * circle of run-time imports is allowed anywhere.
 */
const SLICES = 'src/renderer/src/store/slices';
const allowedCircle = (circle: string): boolean => circle.split(' -> ').every((f) => inside(f, SLICES));

const IO_MODULES = [
  'node:fs',
  'node:fs/promises',
  'node:http',
  'node:https',
  'node:child_process',
  'node:net',
  'node:dgram',
  'node:worker_threads',
  'ws',
  'better-sqlite3',
  'pg',
  'undici',
  'electron',
];
const STORAGE = ['better-sqlite3', 'pg'];

/** The rules as the README states them (its layer section quotes each `says` line; a test below checks it does). */
const rules: Array<{ says: string; broken: () => string[] }> = [
  {
    says: 'src/core never reaches electron, src/main, src/renderer, src/cli, src/service, src/embedded or src/devchain',
    broken: () =>
      badChains(
        'src/core',
        (m) =>
          m === 'electron' ||
          ['src/main', 'src/renderer', 'src/cli', 'src/service', 'src/embedded', 'src/devchain'].some((d) => inside(m, d)),
      ),
  },
  {
    says: 'src/core/domain is pure: it reaches no node: module, no I/O package, no adapter and no service',
    broken: () =>
      badChains(
        'src/core/domain',
        (m) => isNodeBuiltin(m) || IO_MODULES.includes(m) || inside(m, 'src/core/adapters') || inside(m, 'src/core/services'),
      ),
  },
  {
    says: 'src/core/services reach I/O only through the ports of src/core/ports.ts: no adapter, no I/O module, no fetch',
    broken: () => [
      // node:net is allowed for its pure address helpers (isIPv4/isIPv6), nothing that opens a socket.
      ...badChains('src/core/services', (m) => inside(m, 'src/core/adapters') || (IO_MODULES.includes(m) && m !== 'node:net')),
      ...files('src/core/services')
        .filter((f) => /\bfetch\(/.test(readFileSync(join(root, f), 'utf8')))
        .map((f) => `${f} calls fetch()`),
      ...edges
        .filter(
          (e) =>
            inside(e.from, 'src/core/services') &&
            e.to === 'node:net' &&
            !/import \{ isIPv4, isIPv6 \} from 'node:net'/.test(readFileSync(join(root, e.from), 'utf8')),
        )
        .map((e) => `${e.from} -> node:net`),
    ],
  },
  {
    says: 'src/main reaches the core only through its entry, src/core/create-core.ts (and the types of src/core/ports.ts)',
    broken: () =>
      edges
        .filter(
          (e) =>
            inside(e.from, 'src/main') &&
            inside(e.to, 'src/core') &&
            e.to !== 'src/core/create-core.ts' &&
            !(e.to === 'src/core/ports.ts' && e.typeOnly),
        )
        .map((e) => `${e.from} -> ${e.to}`),
  },
  {
    says:
      'src/service never reaches src/core, and uses the tracker SDK only for its wire contracts, ' +
      '@txdesk/tracker/tracker-wire and @txdesk/tracker/webhook-signature',
    broken: () => [
      ...badChains('src/service', (m) => inside(m, 'src/core')),
      ...edges
        .filter((e) => inside(e.from, 'src/service') && (inside(e.to, trackerPackage) || inside(e.to, 'src/sdk')))
        .filter((e) => e.spec !== '@txdesk/tracker/tracker-wire' && e.spec !== '@txdesk/tracker/webhook-signature')
        .map((e) => `${e.from} -> ${e.spec}`),
    ],
  },
  {
    says:
      'storage (better-sqlite3, pg) is opened only by the store modules: src/lib/sqlite*, src/service/db, the sqlite/ ' +
      'and postgres/ folders of src/service, src/core/adapters/sqlite and src/main/native-sqlite.ts',
    broken: () => {
      const store = (f: string) =>
        /^src\/lib\/sqlite[^/]*\.ts$/.test(f) ||
        inside(f, 'src/service/db') ||
        /^src\/service\/[^/]+\/(sqlite|postgres)\//.test(f) ||
        inside(f, 'src/core/adapters/sqlite') ||
        f === 'src/main/native-sqlite.ts';
      return edges.filter((e) => STORAGE.includes(e.to) && !e.typeOnly && !store(e.from)).map((e) => `${e.from} -> ${e.to}`);
    },
  },
  {
    says:
      'a backend is chosen in one place: src/service/*/sqlite and src/service/*/postgres are imported only by the same ' +
      "backend's folders and src/service/backend.ts",
    broken: () => {
      const backend = (p: string) => /^src\/service\/[^/]+\/(sqlite|postgres)\//.exec(p)?.[1];
      return edges
        .filter(
          (e) => !e.external && !e.typeOnly && backend(e.to) && backend(e.from) !== backend(e.to) && e.from !== 'src/service/backend.ts',
        )
        .map((e) => `${e.from} -> ${e.to}`);
    },
  },
  {
    says: 'src/renderer reaches only src/renderer, src/shared and browser packages',
    broken: () =>
      badChains(
        'src/renderer',
        (m) => isNodeBuiltin(m) || m === 'electron' || (m.startsWith('src/') && !inside(m, 'src/renderer') && !inside(m, 'src/shared')),
      ),
  },
  {
    says: 'src/shared reaches only itself, and zod only from src/shared/desktop-schemas.ts',
    broken: () =>
      edges
        .filter(
          (e) =>
            inside(e.from, 'src/shared') &&
            (e.external ? !(e.to === 'zod' && e.from === 'src/shared/desktop-schemas.ts') : !inside(e.to, 'src/shared')),
        )
        .map((e) => `${e.from} -> ${e.to}`),
  },
  {
    says: 'packages/tracker (published alone as @txdesk/tracker) reaches only itself, node: modules and ws',
    broken: () =>
      badChains(`${trackerPackage}/src`, (m) =>
        /^(src|packages)\//.test(m) ? !inside(m, trackerPackage) : !isNodeBuiltin(m) && m !== 'ws',
      ),
  },
  {
    says: 'src reaches the tracker SDK by its package name, @txdesk/tracker, never by a path into packages/; src/sdk only re-exports it as txdesk/tracker',
    broken: () => [
      ...edges
        .filter((e) => inside(e.from, 'src') && e.spec.startsWith('.') && inside(e.to, 'packages'))
        .map((e) => `${e.from} -> ${e.spec}`),
      ...edges.filter((e) => inside(e.to, 'src/sdk')).map((e) => `${e.from} -> ${e.to}`),
      ...edges.filter((e) => inside(e.from, 'src/sdk') && e.spec !== '@txdesk/tracker').map((e) => `${e.from} -> ${e.spec}`),
    ],
  },
  {
    says: 'src/preload reaches only electron, src/shared and the IPC envelope type of src/main/ipc-result.ts',
    broken: () =>
      edges
        .filter(
          (e) =>
            inside(e.from, 'src/preload') &&
            (e.external ? e.to !== 'electron' : !inside(e.to, 'src/shared') && e.to !== 'src/main/ipc-result.ts'),
        )
        .map((e) => `${e.from} -> ${e.to}`),
  },
];

describe('the import graph reader', () => {
  it('sees static, type-only, re-exported, dynamic and required imports, and resolves them to files', () => {
    expect(edges.length).toBeGreaterThan(500);
    const has = (from: string, to: string, typeOnly?: boolean) =>
      edges.some((e) => e.from === from && e.to === to && (typeOnly === undefined || e.typeOnly === typeOnly));
    expect(has('src/main/index.ts', 'electron', false)).toBe(true);
    expect(has('src/core/ports.ts', 'src/shared/desktop-api.ts', true)).toBe(true); // import type
    expect(has('src/service/http/service-node.ts', 'src/shared/networks.ts', false)).toBe(true); // export … from
    expect(has('src/cli/command-serve.ts', 'src/embedded/embedded-network.ts', false)).toBe(true); // await import()
    // Every local edge lands on a file, so a rule cannot pass because a path did not resolve.
    expect(edges.filter((e) => !e.external && !existsSync(join(root, e.to))).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('follows chains past the first step and stops at type-only imports', () => {
    const fromMain = reach(['src/main/index.ts']);
    expect(fromMain.get('better-sqlite3')?.length).toBeGreaterThan(2); // main -> core -> ... -> sqlite adapter -> better-sqlite3
    const fromPorts = reach(['src/core/ports.ts']);
    expect([...fromPorts.keys()].filter((m) => m === 'src/shared/desktop-api.ts')).toEqual([]); // only `import type` edges there
  });
});

describe('layers', () => {
  for (const rule of rules) it(rule.says, () => expect(rule.broken()).toEqual([]));

  it('the README states every rule, word for word', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(rules.map((r) => r.says).filter((says) => !readme.includes(says))).toEqual([]);
  });
});

describe('import circles', () => {
  it('finds circles, once each, and nothing in a graph without one', () => {
    const g = (pairs: string) => {
      const m = new Map<string, string[]>();
      for (const [a, b] of pairs.split(' ').map((p) => p.split('>') as [string, string])) m.set(a, [...(m.get(a) ?? []), b]);
      return m;
    };
    expect(importCircles(g('a>b b>c a>c'))).toEqual([]);
    expect(importCircles(g('a>b b>a'))).toEqual(['a -> b -> a']);
    expect(importCircles(g('a>a'))).toEqual(['a -> a']);
    expect(importCircles(g('x>a a>b b>c c>a c>d d>b'))).toEqual(['a -> b -> c -> a', 'b -> c -> d -> b']);
  });

  const graphOf = (picked: Edge[]) => {
    const graph = new Map<string, string[]>();
    for (const e of picked) if (!e.external) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
    return graph;
  };

  it('src has no circle of run-time imports', () => {
    expect(importCircles(graphOf(edges.filter((e) => !e.typeOnly)))).toEqual([]);
  });

  it('nor one through type-only imports (they still tie modules together), but for the store slices', () => {
    expect(importCircles(graphOf(edges)).filter((c) => !allowedCircle(c))).toEqual([]);
    expect(allowedCircle('src/service/index.ts -> src/service/dev-service.ts -> src/service/index.ts')).toBe(false);
  });
});

/**
 * Files are named for what they hold: an `index.ts` only re-exports, except the entry points a tool names by that
 * name (electron-vite's main and preload, the CLI's compiled entry, the renderer store's one combination of slices).
 */
const indexEntryPoints = ['src/main/index.ts', 'src/preload/index.ts', 'src/cli/index.ts', 'src/renderer/src/store/index.ts'];

/** The statements of a file that are neither imports nor re-exports (what makes it an implementation). */
function ownStatements(text: string): string[] {
  const file = ts.createSourceFile('index.ts', text, ts.ScriptTarget.Latest, true);
  return file.statements
    .filter((s) => !ts.isImportDeclaration(s) && !(ts.isExportDeclaration(s) && s.moduleSpecifier))
    .map((s) => s.getText(file).split('\n')[0]!);
}

describe('file names', () => {
  it('tells a re-export from an implementation', () => {
    expect(ownStatements("// job\nexport { a } from './a.js';\nexport * from './b.js';\nimport './c.js';")).toEqual([]);
    expect(ownStatements("import { a } from './a.js';\nexport const b = a + 1;\nexport { a };")).toEqual([
      'export const b = a + 1;',
      'export { a };',
    ]);
  });

  it('an index.ts only re-exports, but for the entry points a tool names', () => {
    const indexes = [...sourceFiles(src), ...sourceFiles(trackerSource)].filter((p) => p.endsWith('/index.ts'));
    const implementations = indexes
      .map((p) => relative(root, p))
      .filter((p) => !indexEntryPoints.includes(p) && ownStatements(readFileSync(join(root, p), 'utf8')).length > 0);
    expect(implementations).toEqual([]);
    for (const p of indexEntryPoints) expect(existsSync(join(root, p)), p).toBe(true);
  });
});
