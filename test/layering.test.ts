// The layers of src/ as the README draws them, enforced on the import graph (static imports, re-exports, dynamic
// import() and require), read with the TypeScript compiler's own pre-processor. A rule broken here is a design
// decision to discuss, not a test to loosen.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

interface Edge {
  /** Importing file, relative to the repository (src/core/...). */
  from: string;
  /** What it names: a path relative to the repository for our own files, else the bare module name. */
  to: string;
  external: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : sourceFiles(p);
    return /\.(ts|tsx|mts)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

function importsOf(file: string): Edge[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const from = relative(root, file);
  return info.importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith('.')) return { from, to: fileName, external: true };
    const target = relative(root, resolve(dirname(file), fileName)).replace(/\.js$/, '');
    return { from, to: target, external: false };
  });
}

const edges = sourceFiles(src).flatMap(importsOf);
const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
const isNodeBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name.split('/')[0]!);
const show = (list: Edge[]) => list.map((e) => `${e.from} -> ${e.to}`);

describe('the import graph reader', () => {
  it('sees static, type-only, re-exported and dynamic imports (so the rules below cannot pass by reading nothing)', () => {
    expect(edges.length).toBeGreaterThan(500);
    const has = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to);
    expect(has('src/main/index.ts', 'electron')).toBe(true);
    expect(has('src/core/create-core.ts', 'src/core/services/late-api')).toBe(true);
    expect(has('src/core/ports.ts', 'src/shared/desktop-api')).toBe(true); // import type
    expect(has('src/service/http/service-node.ts', 'src/shared/networks')).toBe(true); // export … from
    expect(has('src/cli/command-serve.ts', 'src/embedded/index')).toBe(true); // await import()
  });
});

describe('layers', () => {
  it('src/core never imports electron, src/main, src/renderer, src/service or src/embedded', () => {
    const bad = edges.filter(
      (e) => inside(e.from, 'src/core') && (e.to === 'electron' || ['src/main', 'src/renderer', 'src/service', 'src/embedded', 'src/devchain'].some((d) => inside(e.to, d))),
    );
    expect(show(bad)).toEqual([]);
  });

  it('src/core/domain does no I/O: no node: module, no adapter, no service', () => {
    const bad = edges.filter(
      (e) => inside(e.from, 'src/core/domain') && ((e.external && isNodeBuiltin(e.to)) || inside(e.to, 'src/core/adapters') || inside(e.to, 'src/core/services')),
    );
    expect(show(bad)).toEqual([]);
  });

  it('src/core/services orchestrate; file and network I/O lives under src/core/adapters', () => {
    const io = new Set(['node:fs', 'node:fs/promises', 'node:http', 'node:https', 'node:child_process', 'node:net', 'ws', 'better-sqlite3']);
    const ioImports = edges.filter((e) => inside(e.from, 'src/core/services') && e.external && io.has(e.to));
    // node:net is allowed for its pure address helpers (isIPv4/isIPv6), nothing that opens a socket.
    const allowed = (e: Edge) => e.to === 'node:net' && /import \{ isIPv4, isIPv6 \} from 'node:net'/.test(readFileSync(join(root, e.from), 'utf8'));
    expect(show(ioImports.filter((e) => !allowed(e)))).toEqual([]);
    const fetching = sourceFiles(join(src, 'core/services')).filter((f) => /\bfetch\(/.test(readFileSync(f, 'utf8')));
    expect(fetching.map((f) => relative(root, f))).toEqual([]);
  });

  it('src/service never imports src/core', () => {
    expect(show(edges.filter((e) => inside(e.from, 'src/service') && inside(e.to, 'src/core')))).toEqual([]);
  });

  it('src/renderer imports only src/renderer, src/shared and browser packages', () => {
    const bad = edges.filter(
      (e) => inside(e.from, 'src/renderer') && (e.external ? isNodeBuiltin(e.to) || e.to === 'electron' : !inside(e.to, 'src/renderer') && !inside(e.to, 'src/shared')),
    );
    expect(show(bad)).toEqual([]);
  });

  it('src/shared imports only itself, and zod only in the schema file', () => {
    const bad = edges.filter((e) => inside(e.from, 'src/shared') && (e.external ? !(e.to === 'zod' && e.from === 'src/shared/desktop-schemas.ts') : !inside(e.to, 'src/shared')));
    expect(show(bad)).toEqual([]);
  });

  it('src/sdk (published as txdesk/tracker) imports only itself and ws', () => {
    const bad = edges.filter((e) => inside(e.from, 'src/sdk') && (e.external ? !isNodeBuiltin(e.to) && e.to !== 'ws' : !inside(e.to, 'src/sdk')));
    expect(show(bad)).toEqual([]);
  });

  it('the preload reaches only electron, the shared contract and the IPC envelope type', () => {
    const bad = edges.filter((e) => inside(e.from, 'src/preload') && (e.external ? e.to !== 'electron' : !inside(e.to, 'src/shared') && e.to !== 'src/main/ipc-result'));
    expect(show(bad)).toEqual([]);
  });
});
