// The README's map ("Where things live") names only paths that exist, so a rename that forgets the map fails here.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The backticked repository paths of the README's "Where things live" section. */
function mapPaths(): string[] {
  const section = /### Where things live\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  return [...section.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((p) => /^(src|test|docs|bench|scripts)\//.test(p));
}

describe("the README's map", () => {
  it('has the section and names paths in it', () => {
    // The table names some thirty paths; a parse that found none would make the next test pass on nothing.
    expect(mapPaths().length).toBeGreaterThanOrEqual(30);
  });

  it('names only paths that exist', () => {
    expect(mapPaths().filter((p) => !existsSync(join(root, p)))).toEqual([]);
  });
});
