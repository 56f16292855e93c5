// Electron's token image scheme handler over the real image proxy and a loopback server: the image with its headers,
// the JSON error envelope for bad or refused URLs, and nothing but the one host of the scheme.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenImageProxy } from '../../src/core/adapters/net/token-image.js';
import { tokenImageResponse } from '../../src/main/image-protocol.js';
import { tokenImageScheme } from '../../src/shared/desktop-api.js';
import { startLocalServer, type LocalServer } from '../support/app/core-local-server.js';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>';
let art: LocalServer;

beforeAll(async () => {
  art = await startLocalServer((path, res) => {
    if (path === '/1.svg') res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG);
    else res.writeHead(404).end();
  });
});

afterAll(async () => {
  await art?.stop();
});

const schemeUrl = (image: string) => `${tokenImageScheme}://token/?url=${encodeURIComponent(image)}`;

describe('token image scheme', () => {
  it('answers with the image and the same headers as GET /api/token-image', async () => {
    const proxy = createTokenImageProxy({ allowOrigins: [art.origin] });
    const res = await tokenImageResponse(proxy, schemeUrl(`${art.origin}/1.svg`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(await res.text()).toBe(SVG);
  });

  it('answers failures with the error envelope and its status', async () => {
    const proxy = createTokenImageProxy();
    const cases: [string, number, string][] = [
      [`${tokenImageScheme}://token/`, 400, 'INVALID_PARAMETER'],
      [schemeUrl('javascript:alert(1)'), 400, 'INVALID_PARAMETER'],
      [schemeUrl(`${art.origin}/1.svg`), 403, 'FORBIDDEN'],
      [`${tokenImageScheme}://other/?url=${encodeURIComponent('https://example.org/1.png')}`, 404, 'NOT_FOUND'],
      ['not a url', 404, 'NOT_FOUND'],
    ];
    for (const [url, status, code] of cases) {
      const res = await tokenImageResponse(proxy, url);
      expect(`${url} ${res.status}`).toBe(`${url} ${status}`);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    }
  });

  it('hides unexpected errors behind INTERNAL', async () => {
    const res = await tokenImageResponse(() => Promise.reject(new Error('/home/secret/path')), schemeUrl('https://example.org/1.png'));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toMatch(/secret/);
  });
});
