// One webhook delivery attempt against real servers on loopback: how each answer and each failure is reported, that
// redirects are not followed, that a silent or endless receiver cannot hold a delivery, that the address guard runs
// before any connection on every call, and that https checks the receiver's certificate under its host name.
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { LookupAll } from '../../../src/service/webhooks/webhook-address-guard.js';
import { postWebhook } from '../../../src/service/webhooks/webhook-post.js';

interface Receiver {
  url: string;
  port: number;
  /** Requests that reached the handler. */
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  closedSockets: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** A server on 127.0.0.1 that records what reaches it; `respond` answers (or does not). */
async function receiver(
  respond: (req: IncomingMessage, res: Parameters<RequestListener>[1], r: Receiver) => void,
  server: Server = createServer(),
): Promise<Receiver> {
  const r: Receiver = { url: '', port: 0, requests: [], connections: 0, closedSockets: 0 };
  server.on('connection', (socket: Socket) => {
    r.connections++;
    socket.on('close', () => r.closedSockets++);
  });
  server.on('request', (req: IncomingMessage, res: Parameters<RequestListener>[1]) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      r.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') });
      respond(req, res, r);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}`;
  return r;
}

const answer =
  (status: number, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: Parameters<RequestListener>[1]) => {
    res.writeHead(status, headers);
    res.end('thanks');
  };

const BODY = '{"deliveryId":"d-1","payload":{"type":"confirmation","memo":"naïve ✓"}}';
const post = (url: string, extra: Partial<Parameters<typeof postWebhook>[0]> = {}) =>
  postWebhook({ url, body: BODY, headers: {}, allowPrivate: true, ...extra });

/** A lookup that answers `address` for every name and counts how often it is asked. */
function countingLookup(...answers: string[][]): LookupAll & { calls: number } {
  const lookup = Object.assign(
    async () => {
      const addresses = answers[Math.min(lookup.calls, answers.length - 1)]!;
      lookup.calls++;
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { calls: 0 },
  );
  return lookup;
}

describe('postWebhook', () => {
  it('is ok on a 2xx answer, with its status and how long it took', async () => {
    for (const status of [200, 202, 204]) {
      const r = await receiver(answer(status));
      const a = await post(`${r.url}/hook`);
      expect(a).toEqual({ ok: true, status, error: null, durationMs: expect.any(Number) });
      expect(Number.isInteger(a.durationMs) && a.durationMs >= 0).toBe(true);
    }
  });

  it('sends the body byte for byte, its own framing headers and the given ones, as a POST to the path and query', async () => {
    const r = await receiver(answer(200));
    await post(`${r.url}/hooks/txdesk?token=abc`, {
      headers: {
        'Txdesk-Signature': 't=1,v1=ab',
        'txdesk-delivery': 'd-1',
        'Content-Type': 'text/plain',
        'User-Agent': 'spoof',
        'content-length': '1',
        host: 'evil.example',
      },
    });
    expect(r.requests).toHaveLength(1);
    const got = r.requests[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hooks/txdesk?token=abc');
    expect(got.body).toBe(BODY);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('txdesk-webhooks');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(got.headers.host).toBe(`127.0.0.1:${r.port}`);
    expect(got.headers['txdesk-signature']).toBe('t=1,v1=ab');
    expect(got.headers['txdesk-delivery']).toBe('d-1');
  });

  it('is not ok on a 4xx or 5xx answer, and keeps the status', async () => {
    for (const status of [400, 410, 500, 503]) {
      const r = await receiver(answer(status));
      expect(await post(r.url)).toMatchObject({ ok: false, status, error: `the receiver answered ${status}` });
    }
  });

  it('does not follow a redirect: not ok, says to give the final URL, and the target is never asked', async () => {
    const target = await receiver(answer(200));
    for (const status of [301, 302, 307, 308]) {
      const r = await receiver(answer(status, { location: `${target.url}/elsewhere` }));
      const a = await post(r.url);
      expect(a).toMatchObject({
        ok: false,
        status,
        error: `the receiver answered ${status} (a redirect); webhooks do not follow redirects, give the final URL`,
      });
    }
    expect(target.connections).toBe(0);
  });

  it('gives up on a receiver that never answers, at the timeout, and closes the connection', async () => {
    const r = await receiver(() => undefined);
    const a = await post(r.url, { timeoutMs: 300 });
    expect(a).toMatchObject({ ok: false, status: null, error: 'the receiver did not answer within 300 ms' });
    expect(r.requests).toHaveLength(1);
    await expect.poll(() => r.closedSockets).toBe(1);
  });

  it('reads at most maxResponseBytes of an endless body, then cuts the connection; the 2xx still counts', async () => {
    let written = 0;
    let serverSawClose = false;
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.on('close', () => (serverSawClose = true));
      const chunk = Buffer.alloc(16 * 1024, 120);
      const pump = () => {
        while (!res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const a = await post(r.url, { timeoutMs: 30_000 });
    expect(a).toMatchObject({ ok: true, status: 200, error: null });
    await expect.poll(() => serverSawClose).toBe(true);
    expect(written).toBeGreaterThan(4096);
  });

  it('answers by the status when the deadline comes while a slow body trickles in', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(202);
      res.write('a');
    });
    expect(await post(r.url, { timeoutMs: 300 })).toMatchObject({ ok: true, status: 202 });
  });

  it('says the connection was refused when nothing listens', async () => {
    const r = await receiver(answer(200));
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    const a = await post(`${r.url}/hook`);
    expect(a).toMatchObject({ ok: false, status: null, error: `127.0.0.1:${r.port} refused the connection (nothing listens there)` });
  });

  it('says the receiver hung up when it closes the connection without answering', async () => {
    const r = await receiver((req) => req.socket.destroy());
    expect(await post(r.url)).toMatchObject({
      ok: false,
      status: null,
      error: `127.0.0.1:${r.port} closed the connection before answering`,
    });
  });

  it('without allowPrivate refuses a loopback receiver before connecting, by address or by name', async () => {
    const r = await receiver(answer(200));
    const literal = await post(r.url, { allowPrivate: false });
    expect(literal).toMatchObject({ ok: false, status: null });
    expect(literal.error).toMatch(/^The URL's host 127\.0\.0\.1 is a loopback address; .*--allow-private-webhooks\.$/);

    const lookup = countingLookup(['127.0.0.1']);
    const named = await post(`https://hooks.example:${r.port}/hook`, { allowPrivate: false, lookup });
    expect(named).toMatchObject({
      ok: false,
      status: null,
      error:
        'hooks.example resolves to a loopback address (127.0.0.1); webhooks may only reach public addresses unless the ' +
        'service runs with --allow-private-webhooks.',
    });
    expect(lookup.calls).toBe(1);
    expect(r.connections).toBe(0);
  });

  it('connects to the address it checked, by name (the Host header keeps the name), with one lookup', async () => {
    const r = await receiver(answer(200));
    const lookup = countingLookup(['127.0.0.1'], ['10.99.99.99']);
    const a = await post(`http://localhost:${r.port}/hook`, { lookup });
    expect(a).toMatchObject({ ok: true, status: 200 });
    expect(lookup.calls).toBe(1);
    expect(r.requests[0]!.headers.host).toBe(`localhost:${r.port}`);
  });

  it('checks the address again on every call, so a name rebound to a private address is refused without connecting', async () => {
    const r = await receiver(answer(200));
    const cancel = new AbortController();
    // The first answer is public and passes the guard; the attempt is then cancelled, so nothing leaves the machine.
    const lookup = countingLookup(['93.184.216.34'], ['127.0.0.1']);
    const first = await post(`https://rebind.example:${r.port}/hook`, {
      allowPrivate: false,
      signal: cancel.signal,
      lookup: async (host) => {
        const answers = await lookup(host);
        cancel.abort();
        return answers;
      },
    });
    expect(first).toMatchObject({
      ok: false,
      status: null,
      error: 'the delivery was cancelled before the receiver answered (the service is stopping)',
    });
    const second = await post(`https://rebind.example:${r.port}/hook`, { allowPrivate: false, lookup });
    expect(second.error).toBe(
      'rebind.example resolves to a loopback address (127.0.0.1); webhooks may only reach public addresses unless the ' +
        'service runs with --allow-private-webhooks.',
    );
    expect(lookup.calls).toBe(2);
    expect(r.connections).toBe(0);
  });

  it('counts a slow resolver against the same deadline', async () => {
    const never: LookupAll = () => new Promise(() => undefined);
    const a = await post('https://slow-dns.example/hook', { lookup: never, timeoutMs: 200 });
    expect(a).toMatchObject({ ok: false, status: null, error: 'slow-dns.example did not resolve within 200 ms' });
  });

  it('reports a name that does not resolve with the guard’s sentence', async () => {
    const failing: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await post('https://nowhere.invalid/hook', { lookup: failing })).toMatchObject({
      ok: false,
      status: null,
      error: "nowhere.invalid does not resolve to any address (ENOTFOUND); check the host name in the webhook's URL.",
    });
  });

  it('refuses a URL that breaks the rules, without a lookup', async () => {
    const lookup = countingLookup(['93.184.216.34']);
    for (const url of ['ftp://hooks.example/', 'http://hooks.example/', 'https://u:p@hooks.example/', 'not a url']) {
      const a = await post(url, { lookup });
      expect(a.ok).toBe(false);
      expect(a.status).toBeNull();
      expect(a.error).toMatch(/^[A-Z].*\.$/);
    }
    expect(lookup.calls).toBe(0);
  });

  it('stops when the caller cancels, and with an already cancelled signal never connects', async () => {
    const r = await receiver(() => undefined);
    const cancel = new AbortController();
    const pending = post(r.url, { signal: cancel.signal, timeoutMs: 30_000 });
    await expect.poll(() => r.requests.length).toBe(1);
    cancel.abort();
    expect(await pending).toMatchObject({
      ok: false,
      status: null,
      error: 'the delivery was cancelled before the receiver answered (the service is stopping)',
    });

    const idle = await receiver(answer(200));
    expect(await post(idle.url, { signal: AbortSignal.abort() })).toMatchObject({ ok: false, status: null });
    expect(idle.connections).toBe(0);
  });

  it('says, not throws, when a given header cannot be sent', async () => {
    const r = await receiver(answer(200));
    const a = await post(r.url, { headers: { 'x-bad': 'line\r\nbreak' } });
    expect(a).toMatchObject({ ok: false, status: null });
    expect(a.error).toMatch(/^the request to 127\.0\.0\.1:\d+ failed \(ERR_INVALID_CHAR\)$/);
    expect(r.connections).toBe(0);
  });

  it('keeps a connection alive for the next delivery to the same checked address, and only for it', async () => {
    const r = await receiver(answer(200));
    for (let i = 0; i < 5; i++) expect((await post(`${r.url}/hook`)).ok).toBe(true);
    expect(r.connections).toBe(1);
    // The same name checked to another address gets a pool of its own (127.0.0.2 is loopback too on Linux).
    const server = createServer(answer(200));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as AddressInfo).port;
    const local: string[] = [];
    server.on('request', (req: IncomingMessage) => local.push(req.socket.localAddress ?? ''));
    const lookup = countingLookup(['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1']);
    for (let i = 0; i < 3; i++) expect((await post(`http://localhost:${port}/h`, { lookup })).ok).toBe(true);
    expect(local.map((a) => a.replace(/^::ffff:/, ''))).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.1']);
  });

  it('sends again on a fresh connection when a kept-alive one was closed under the request, without calling it a failure', async () => {
    const seen = new Map<Socket, number>();
    const r = await receiver((req, res) => {
      const n = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, n);
      // The second request on a socket: the receiver drops the connection without answering, as one whose
      // keep-alive ran out just then does.
      if (n === 2) return void req.socket.destroy();
      res.writeHead(200);
      res.end('ok');
    });
    expect((await post(`${r.url}/a`)).ok).toBe(true);
    const second = await post(`${r.url}/b`);
    expect(second).toMatchObject({ ok: true, status: 200 });
    expect(r.requests.map((q) => q.url)).toEqual(['/a', '/b', '/b']);
    expect(r.connections).toBe(2);
  });

  it('over https connects to the checked address under the host name: SNI carries the name, an untrusted certificate is refused', async () => {
    const names: string[] = [];
    // `.invalid` never resolves (RFC 6761): a connection can only reach the server through the checked address.
    const tls = createTlsServer({ key: TEST_KEY, cert: TEST_CERT, SNICallback: (name, cb) => (names.push(name), cb(null, undefined)) });
    tls.on('tlsClientError', () => undefined);
    const r = await receiver(answer(200), tls);
    const a = await post(`https://hooks.invalid:${r.port}/hook`, { lookup: countingLookup(['127.0.0.1']) });
    expect(a).toMatchObject({ ok: false, status: null });
    expect(a.error).toMatch(
      /^hooks\.invalid:\d+ \(127\.0\.0\.1\) presented a TLS certificate that is not valid for it \((DEPTH_ZERO_SELF_SIGNED_CERT|CERT_NOT_YET_VALID)/,
    );
    expect(names).toEqual(['hooks.invalid']);
    expect(r.connections).toBe(1);
    expect(r.requests).toHaveLength(0);
  });

  it('says the handshake failed when an https URL reaches a plain http server', async () => {
    const r = await receiver(answer(200));
    const a = await post(`https://hooks.invalid:${r.port}/hook`, { lookup: countingLookup(['127.0.0.1']) });
    expect(a).toMatchObject({ ok: false, status: null });
    expect(a.error).toMatch(
      /^the TLS handshake with hooks\.invalid:\d+ \(127\.0\.0\.1\) failed \((EPROTO|ERR_SSL_[A-Z_]+)\); the URL must point at an https server$/,
    );
    expect(r.requests).toHaveLength(0);
  });
});

// A throwaway self-signed certificate for `localhost` (P-256, valid to 2126), made for this test with
// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 -subj /CN=localhost
// -addext subjectAltName=DNS:localhost`. It protects nothing: the test only needs a certificate no client trusts.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgt+h19+G1GrFg5uSj
Fc+Ffe/QOPRdhiRRM5ArPwfmIMihRANCAAQlY/wyFPh0c0IOiMA8mUinpC9XIwNL
suEfSV5Uc8Ptx7rCUZVOBXjbDpD26ga4r3QWAxATmPVepMiEwdxdB5oD
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBlDCCATugAwIBAgIUdlyvnrpew677DDvesYf9LnC4MAQwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyODEzMjUzNFoYDzIxMjYxMTA0
MTMyNTM0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQlY/wyFPh0c0IOiMA8mUinpC9XIwNLsuEfSV5Uc8Ptx7rCUZVOBXjb
DpD26ga4r3QWAxATmPVepMiEwdxdB5oDo2kwZzAdBgNVHQ4EFgQUQaKz6y9fiMDU
EGQwBgr5x9AgzIAwHwYDVR0jBBgwFoAUQaKz6y9fiMDUEGQwBgr5x9AgzIAwDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID
RwAwRAIgCXBvZt0+SKCGy9xMknBtfMH5iEsHjKG7PEO9OAicggECIAo1JGxji9wm
djghmg9VuqoDAUT47llRuSsLIpl0MOXs
-----END CERTIFICATE-----`;
