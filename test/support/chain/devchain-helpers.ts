// Test helpers for the dev chain: JSON-RPC, waiting on conditions (never on time), process liveness, and a JS build of src/devchain for child processes.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import ts from 'typescript';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function headBlock(url: string): Promise<number> {
  return Number(BigInt(await rpc<string>(url, 'eth_blockNumber')));
}

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return existsSync(`/proc/${pid}`) || process.platform !== 'linux';
  }
}

/**
 * Transpiles src/devchain (and the src/lib and src/shared files it imports) to plain JS, so a child `node` process
 * can run the real module without a build of the whole app. The output lives under node_modules/.cache so that
 * package imports (ethers, zod, @foundry-rs/anvil) resolve as they do from src.
 */
export function buildDevchainForChild(): { entryJs: string; dispose(): void } {
  const out = join(repoRoot, 'node_modules', '.cache', 'txdesk-devchain-test', randomUUID());
  for (const dir of ['devchain', 'lib', 'shared']) {
    const src = join(repoRoot, 'src', dir);
    for (const file of walk(src)) {
      const rel = relative(join(repoRoot, 'src'), file);
      const target = join(out, rel);
      mkdirSync(dirname(target), { recursive: true });
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
        const js = ts.transpileModule(readFileSync(file, 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
          fileName: file,
        }).outputText;
        writeFileSync(target.replace(/\.ts$/, '.js'), js);
      } else if (file.endsWith('.json')) cpSync(file, target);
    }
  }
  return { entryJs: join(out, 'devchain', 'devchain.js'), dispose: () => rmSync(out, { recursive: true, force: true }) };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}
