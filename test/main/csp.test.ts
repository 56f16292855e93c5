// The window's CSP exists twice (meta tag for every way the page loads, session header in Electron): they must agree,
// and stay strict.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../src/main/csp.js';
import { tokenImageScheme } from '../../src/shared/desktop-api.js';

const directives = (policy: string) =>
  new Map(
    policy
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name!, values.sort().join(' ')] as const;
      }),
  );

describe('content security policy', () => {
  const html = readFileSync('src/renderer/index.html', 'utf8');
  const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];

  it('the meta tag and the header say the same (frame-ancestors only works as a header)', () => {
    expect(meta).toBeTruthy();
    const header = directives(contentSecurityPolicy);
    header.delete('frame-ancestors');
    expect(directives(meta!)).toEqual(header);
  });

  it('allows no inline or remote script, no eval, and no connections but the app itself', () => {
    const d = directives(contentSecurityPolicy);
    expect(d.get('default-src')).toBe("'none'");
    expect(d.get('script-src')).toBe("'self'");
    expect(d.get('connect-src')).toBe("'self'");
    expect(contentSecurityPolicy).not.toMatch(/unsafe-(inline|eval)/);
    expect(d.get('object-src')).toBe("'none'");
  });

  it('loads images only from the app, data: and the image scheme of the core: no remote or loopback hosts', () => {
    for (const policy of [contentSecurityPolicy, meta!]) {
      const img = directives(policy).get('img-src');
      expect(img).toBe(["'self'", 'data:', `${tokenImageScheme}:`].sort().join(' '));
      expect(img).not.toMatch(/https?:|127\.0\.0\.1|localhost|\*/);
    }
  });
});
