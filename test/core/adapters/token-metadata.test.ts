// Token metadata fetches against real loopback servers: local addresses are refused unless their origin is
// allow-listed, redirects are re-checked per hop, and the address policy itself is a table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../../src/lib/ip-address.js';
import { createMetadataResolver } from '../../../src/core/adapters/net/token-metadata.js';
import { startLocalServer, type LocalRoute, type LocalServer as Local } from '../../support/app/core-local-server.js';

const META = { name: 'Tile #1', description: 'a sample', image: 'https://example.org/1.svg' };

const metadataRoutes: LocalRoute = (path, res, local) => {
  if (path === '/meta.json') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(META));
  } else if (path.startsWith('/chain/')) {
    // /chain/N redirects N more times, then serves the metadata.
    const n = Number(path.slice('/chain/'.length));
    if (n > 0) res.writeHead(302, { location: `/chain/${n - 1}` }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(META));
  } else if (path === '/hop') {
    res.writeHead(307, { location: local.redirectTo }).end();
  } else if (path === '/big') {
    const body = JSON.stringify({ ...META, description: 'x'.repeat(300 * 1024) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  } else if (path === '/big-chunked') {
    // No content-length: the size limit must hold while reading.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"name":"big","description":"`);
    for (let i = 0; i < 40; i++) res.write('y'.repeat(8 * 1024));
    res.end('"}');
  } else {
    res.writeHead(404).end('{}');
  }
};
const startLocal = (host?: string) => startLocalServer(metadataRoutes, host);

let a: Local;
let b: Local;
/** A server on [::1], where the machine has IPv6 loopback; null otherwise. */
let v6: Local | null;

beforeAll(async () => {
  a = await startLocal();
  b = await startLocal();
  v6 = await startLocal('::1').catch(() => null);
});

afterAll(async () => {
  for (const s of [a, b, v6]) if (s) await s.stop();
});

describe('isPublicAddress', () => {
  const refused = [
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '[::ffff:127.0.0.1]',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::ffff:192.168.0.1',
    '::ffff:100.64.0.1',
    '::127.0.0.1',
    '::ffff:0:127.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b:1::8.8.8.8',
    '2002:a9fe:a9fe::1',
    '0:0:0:0:0:ffff:7f00:1',
    // Not IP addresses at all: never treated as public.
    'localhost',
    'example.com',
    '',
    '010.0.0.1',
    '127.1',
    '1.2.3.4.5',
  ];
  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '11.0.0.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '169.253.255.255',
    '169.255.0.1',
    '192.167.255.255',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450::1]',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2400::1',
  ];
  it.each(refused)('refuses %s', (ip) => expect(isPublicAddress(ip)).toBe(false));
  it.each(allowed)('accepts %s', (ip) => expect(isPublicAddress(ip)).toBe(true));
});

describe('createMetadataResolver', () => {
  it('refuses a local server by default and serves it once its origin is allow-listed', async () => {
    const uri = `${a.origin}/meta.json`;
    const before = a.connections;
    expect(await createMetadataResolver()([uri])).toEqual({ [uri]: {} });
    expect(a.connections).toBe(before);

    expect(await createMetadataResolver({ allowOrigins: [a.origin] })([uri])).toEqual({ [uri]: META });
    expect(a.connections).toBe(before + 1);
  });

  it('allow-lists exact origins: another port or the name localhost is not the same origin', async () => {
    const resolve = createMetadataResolver({ allowOrigins: [`${a.origin}/ignored/path`] });
    const other = `${b.origin}/meta.json`;
    const byName = `http://localhost:${a.port}/meta.json`;
    const [ca, cb] = [a.connections, b.connections];
    // localhost goes through the DNS lookup guard, which refuses its loopback answer.
    expect(await resolve([other, byName])).toEqual({ [other]: {}, [byName]: {} });
    expect([a.connections, b.connections]).toEqual([ca, cb]);
  });

  it('refuses literal local IP hosts in every spelling without connecting', async () => {
    const uris = [
      `http://[::ffff:127.0.0.1]:${a.port}/meta.json`,
      `http://[::ffff:7f00:1]:${a.port}/meta.json`,
      `http://2130706433:${a.port}/meta.json`,
      `http://0x7f.1:${a.port}/meta.json`,
      'http://10.0.0.1/meta.json',
      'http://169.254.169.254/latest/meta-data/',
      'https://[::1]/meta.json',
      ...(v6 ? [`${v6.origin}/meta.json`] : []),
    ];
    const before = [a.connections, v6?.connections];
    const out = await createMetadataResolver()(uris);
    expect(out).toEqual(Object.fromEntries(uris.map((u) => [u, {}])));
    // URL parsing folds 2130706433 and 0x7f.1 into 127.0.0.1, but an IPv6 spelling of it is another origin.
    const mapped = uris[0]!;
    expect(await createMetadataResolver({ allowOrigins: [a.origin] })([mapped])).toEqual({ [mapped]: {} });
    expect([a.connections, v6?.connections]).toEqual(before);
  });

  it('refuses a redirect from an allowed origin to a local origin that is not allowed', async () => {
    a.redirectTo = `${b.origin}/meta.json`;
    const uri = `${a.origin}/hop`;
    const before = b.connections;
    expect(await createMetadataResolver({ allowOrigins: [a.origin] })([uri])).toEqual({ [uri]: {} });
    expect(b.connections).toBe(before);
    // The same hop is followed once the target is allowed too.
    expect(await createMetadataResolver({ allowOrigins: [a.origin, b.origin] })([uri])).toEqual({ [uri]: META });
  });

  it('follows at most 3 redirects, and only to http(s)', async () => {
    const resolve = createMetadataResolver({ allowOrigins: [a.origin] });
    const three = `${a.origin}/chain/3`;
    const four = `${a.origin}/chain/4`;
    expect(await resolve([three, four])).toEqual({ [three]: META, [four]: {} });
    a.redirectTo = 'file:///etc/passwd';
    const toFile = `${a.origin}/hop`;
    expect(await resolve([toFile])).toEqual({ [toFile]: {} });
  });

  it('maps oversize bodies, error statuses and junk to {}, and still decodes data: URIs locally', async () => {
    const resolve = createMetadataResolver({ allowOrigins: [a.origin] });
    const dataUri = `data:application/json;base64,${Buffer.from(JSON.stringify({ name: 'inline' })).toString('base64')}`;
    const uris = [`${a.origin}/big`, `${a.origin}/big-chunked`, `${a.origin}/missing`, 'ftp://x/1.json', 'http://', dataUri];
    const out = await resolve(uris);
    expect(out).toEqual({ ...Object.fromEntries(uris.map((u) => [u, {}])), [dataUri]: { name: 'inline' } });
  });
});
