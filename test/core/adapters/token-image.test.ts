// The token image proxy against real loopback servers: allow-listed images are served and cached (the second request
// never reaches upstream), local and metadata addresses are refused without connecting, redirects are re-checked,
// non-image types and oversize bodies are refused, and bad `url` values are a 400 with one sentence.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenImageProxy, tokenImageHeaders } from '../../../src/core/adapters/net/token-image.js';
import { TxdeskError } from '../../../src/shared/errors.js';
import { startLocalServer, type LocalRoute, type LocalServer } from '../../support/app/core-local-server.js';
import { waitFor } from '../../support/poll.js';

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';

const imageRoutes: LocalRoute = (path, res, local) => {
  if (path.startsWith('/img/')) res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG);
  else if (path === '/art.svg') res.writeHead(200, { 'content-type': 'image/svg+xml; charset=utf-8' }).end(SVG);
  else if (path === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<script>alert(1)</script>');
  else if (path === '/untyped') res.writeHead(200).end(PNG);
  else if (path === '/huge') res.writeHead(200, { 'content-type': 'image/png', 'content-length': 4096 }).end(Buffer.alloc(4096));
  else if (path === '/huge-chunked') {
    // No content-length: the size cap must hold while reading.
    res.writeHead(200, { 'content-type': 'image/png' });
    for (let i = 0; i < 8; i++) res.write(Buffer.alloc(512));
    res.end();
  } else if (path === '/hop') res.writeHead(302, { location: local.redirectTo }).end();
  else if (path === '/broken') res.writeHead(500).end();
  else res.writeHead(404).end();
};

let a: LocalServer;
let b: LocalServer;

beforeAll(async () => {
  a = await startLocalServer(imageRoutes);
  b = await startLocalServer(imageRoutes);
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

/** The TxdeskError a call fails with. */
async function failure(p: Promise<unknown>): Promise<TxdeskError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TxdeskError);
  return e as TxdeskError;
}

describe('token image proxy', () => {
  it('serves an allow-listed local image once, then from the cache without reaching upstream', async () => {
    const proxy = createTokenImageProxy({ allowOrigins: [a.origin] });
    const before = a.connections;
    const first = await proxy(`${a.origin}/img/1.png`);
    expect(first.contentType).toBe('image/png');
    expect(first.body.equals(PNG)).toBe(true);
    expect(a.connections).toBe(before + 1);
    const again = await proxy(`${a.origin}/img/1.png`);
    expect(again.body.equals(PNG)).toBe(true);
    expect(a.connections).toBe(before + 1);
  });

  it('serves SVG as image/svg+xml under a sandboxing CSP with nosniff', async () => {
    const image = await createTokenImageProxy({ allowOrigins: [a.origin] })(`${a.origin}/art.svg`);
    expect(image.contentType).toBe('image/svg+xml');
    const headers = tokenImageHeaders(image);
    expect(headers).toMatchObject({
      'content-type': 'image/svg+xml',
      'x-content-type-options': 'nosniff',
      'content-length': String(Buffer.byteLength(SVG)),
    });
    expect(headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/);
  });

  it('refuses local addresses that are not allow-listed, the cloud metadata address, and redirects to them, without connecting', async () => {
    const proxy = createTokenImageProxy({ allowOrigins: [a.origin] });
    a.redirectTo = `${b.origin}/img/2.png`;
    const before = b.connections;
    for (const url of [
      `${b.origin}/img/2.png`,
      `http://localhost:${b.port}/img/2.png`,
      'http://169.254.169.254/latest/meta-data/',
      `${a.origin}/hop`,
    ]) {
      const e = await failure(proxy(url));
      expect(`${url} ${e.status} ${e.code}`).toBe(`${url} 403 FORBIDDEN`);
      expect(e.message).toMatch(/local or private address/);
    }
    expect(b.connections).toBe(before);
    // The same hop is followed once its target is allowed too.
    expect((await createTokenImageProxy({ allowOrigins: [a.origin, b.origin] })(`${a.origin}/hop`)).body.equals(PNG)).toBe(true);
  });

  it('refuses non-image content types, oversize bodies and failed upstreams with 404 or 502', async () => {
    const proxy = createTokenImageProxy({ allowOrigins: [a.origin], maxBytes: 1024 });
    const cases: [string, number, RegExp][] = [
      ['/page.html', 502, /does not serve an image: the server sent text\/html/],
      ['/untyped', 502, /does not serve an image: the server sent no content type/],
      ['/huge', 502, /larger than/],
      ['/huge-chunked', 502, /larger than/],
      ['/missing.png', 404, /no image at this URL \(HTTP 404\)/],
      ['/broken', 502, /HTTP 500/],
    ];
    for (const [path, status, message] of cases) {
      const e = await failure(proxy(`${a.origin}${path}`));
      expect(`${path} ${e.status}`).toBe(`${path} ${status}`);
      expect(e.message).toMatch(message);
    }
    // Nothing that failed was cached: a second try reaches upstream again.
    const before = a.connections;
    await failure(proxy(`${a.origin}/page.html`));
    expect(a.connections).toBe(before + 1);
  });

  it('answers bad url values with 400 and one sentence, without fetching anything', async () => {
    const proxy = createTokenImageProxy({ allowOrigins: [a.origin] });
    const before = a.connections;
    const cases: [unknown, RegExp][] = [
      [undefined, /give the image as \?url=/],
      ['', /absolute http:\/\/ or https:\/\/ URL/],
      ['not a url', /absolute http:\/\/ or https:\/\/ URL/],
      ['ftp://example.org/1.png', /absolute http:\/\/ or https:\/\/ URL/],
      ['data:image/png;base64,AAAA', /absolute http:\/\/ or https:\/\/ URL/],
      [`${a.origin}/${'x'.repeat(2100)}`, /at most 2048 characters/],
    ];
    for (const [url, message] of cases) {
      const e = await failure(proxy(url));
      expect(e.status).toBe(400);
      expect(e.code).toBe('INVALID_PARAMETER');
      expect(e.message).toMatch(message);
      expect(e.message.split('. ').length).toBe(1);
    }
    expect(a.connections).toBe(before);
  });

  it('keeps the cache within its entry count: the oldest image is fetched again', async () => {
    const proxy = createTokenImageProxy({ allowOrigins: [a.origin], cacheEntries: 2 });
    const before = a.connections;
    for (const n of [1, 2, 3]) await proxy(`${a.origin}/img/${n}.png`);
    await proxy(`${a.origin}/img/3.png`);
    expect(a.connections).toBe(before + 3);
    await proxy(`${a.origin}/img/1.png`);
    expect(a.connections).toBe(before + 4);
  });

  it('keeps the cache within its byte budget: an image larger than the whole budget is never kept', async () => {
    const proxy = createTokenImageProxy({ allowOrigins: [a.origin], cacheBytes: 1 });
    const before = a.connections;
    await proxy(`${a.origin}/img/1.png`);
    await proxy(`${a.origin}/img/1.png`);
    expect(a.connections).toBe(before + 2);
  });
});

describe('download limits', () => {
  it('downloads at most maxParallel images at once; the others wait their turn', async () => {
    const held: ServerResponse[] = [];
    let peak = 0;
    const slow = await startLocalServer((_path, res) => {
      held.push(res);
      peak = Math.max(peak, held.length);
    });
    try {
      const proxy = createTokenImageProxy({ allowOrigins: [slow.origin], maxParallel: 2 });
      const all = Promise.all([1, 2, 3, 4, 5].map((i) => proxy(`${slow.origin}/img/${i}.png`)));
      let served = 0;
      while (served < 5) {
        await waitFor('a request held upstream', () => held.length > 0, { timeoutMs: 30_000, everyMs: 5 });
        // Room for a request beyond the limit to show up before the held ones are answered.
        await new Promise((r) => setTimeout(r, 100));
        for (const res of held.splice(0)) {
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG);
          served++;
        }
      }
      expect((await all).map((i) => i.body.equals(PNG))).toEqual([true, true, true, true, true]);
      expect(peak).toBe(2);
    } finally {
      await slow.stop();
    }
  });
});
