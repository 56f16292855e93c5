// Finds the anvil executable shipped by the @foundry-rs/anvil npm package (its per-platform optional dependency).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

const archNames: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** Absolute path of the anvil binary; throws one actionable sentence when the package is missing. */
export function anvilBinaryPath(): string {
  const fromEnv = process.env.TXDESK_ANVIL_BIN;
  if (fromEnv) return fromEnv;
  const arch = archNames[process.arch] ?? process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    // The platform package has no "main"; resolving its package.json locates it.
    const dir = dirname(require.resolve(`${platformPackage}/package.json`));
    const candidate = join(dir, 'bin', exe);
    if (existsSync(candidate)) return candidate;
  } catch {
    // fall through to the wrapper package's dist/ layout
  }
  try {
    const wrapperDir = dirname(require.resolve('@foundry-rs/anvil/package.json'));
    const candidate = join(wrapperDir, '..', 'dist', exe);
    if (existsSync(candidate)) return candidate;
  } catch {
    // reported below
  }
  throw new Error(
    `The anvil binary for ${process.platform}-${arch} was not found: run \`npm install\` so ${platformPackage} is installed, or set TXDESK_ANVIL_BIN.`,
  );
}
