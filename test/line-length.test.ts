// No source line is over 160 characters. Biome wraps code at 140 but leaves long strings, templates, SQL and comments
// as they are, so this test is what stops one from coming back.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const MAX = 160;
const PATTERNS = ['*.ts', '*.tsx', '*.js', '*.mjs', '*.cjs'];

/** The repository's source files: tracked, plus new ones not yet added (so a check before a commit sees them too). */
function sourceFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...PATTERNS], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // A file deleted in the work tree but not yet in the index is still listed; there is nothing to read.
  return [...new Set(out.split('\n').filter((f) => f !== '' && existsSync(join(root, f))))];
}

/** `file:line (n chars)` for every line over the limit. */
function longLines(files: string[], max = MAX): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.length > max) found.push(`${file}:${i + 1} (${line.length} chars)`);
      });
  }
  return found;
}

describe('line length', () => {
  it('lists the source files', () => {
    // Some 670 files today; a git call that listed none would make the next test pass on nothing.
    expect(sourceFiles().length).toBeGreaterThanOrEqual(300);
  });

  it(`has no line over ${MAX} characters`, () => {
    expect(
      longLines(sourceFiles()),
      `Lines over ${MAX} characters: break each one (a string into pieces joined with +, a comment into more lines), as Biome does not.`,
    ).toEqual([]);
  });
});
