// Finds Foundry's cast executable shipped by the @foundry-rs/cast npm package (its per-platform optional dependency).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const archNames: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** Absolute path of the cast binary. */
export function castBinaryPath(): string {
  const arch = archNames[process.arch] ?? process.arch;
  const dir = dirname(require.resolve(`@foundry-rs/cast-${process.platform}-${arch}/package.json`));
  const path = join(dir, 'bin', process.platform === 'win32' ? 'cast.exe' : 'cast');
  if (!existsSync(path)) throw new Error(`No cast binary at ${path}: run npm install (the devDependency @foundry-rs/cast ships it).`);
  return path;
}
