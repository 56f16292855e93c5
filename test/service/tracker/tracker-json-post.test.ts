// The watcher's JSON POST to the node (src/lib/json-post.ts) against a real loopback server: answers parsed, kept-alive
// connections reused, and every way a node can fail (an error status, a body that is not JSON, a dropped socket, an
// abort) a rejection with a sentence, never a hang.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bodyText, postJson } from '../../../src/lib/json-post.js';

let server: Server;
let url: URL;
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { mode } = JSON.parse(body) as { mode: string };
      if (mode === 'echo') return res.end(JSON.stringify({ got: body.length }));
      if (mode === 'busy') return void ((res.statusCode = 503), res.end('busy'));
      if (mode === 'html') return res.end('<html>proxy error</html>');
      if (mode === 'drop') return req.socket.destroy();
      if (mode === 'utf8') {
        // A revert reason in UTF-8, its multi-byte characters cut across two writes.
        const bytes = Buffer.from(JSON.stringify({ error: { message: 'execution reverted: prix trop élevé ✓' } }));
        const cut = bytes.indexOf(0xc3) + 1;
        res.write(bytes.subarray(0, cut));
        return setTimeout(() => res.end(bytes.subarray(cut)), 20);
      }
      // 'silent': never answers
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const post = (mode: string, signal = AbortSignal.timeout(10_000)) => postJson(url, JSON.stringify({ mode }), signal);

it('parses answers and reuses one kept-alive connection for requests one after another', async () => {
  const before = connections;
  for (let i = 0; i < 5; i++) expect(await post('echo')).toEqual({ got: JSON.stringify({ mode: 'echo' }).length });
  expect(connections - before).toBe(1);
});

it('rejects an error status, a body that is not JSON, a dropped socket and an abort', async () => {
  await expect(post('busy')).rejects.toThrow('node answered HTTP 503');
  await expect(post('html')).rejects.toThrow('node answered with a body that is not JSON (HTTP 200)');
  await expect(post('drop')).rejects.toThrow();
  const abort = new AbortController();
  const pending = post('silent', abort.signal);
  abort.abort();
  await expect(pending).rejects.toThrow(/abort/i);
  await expect(post('silent', AbortSignal.timeout(100))).rejects.toThrow();
  // The connection pool is still usable afterwards.
  expect(await post('echo')).toEqual({ got: JSON.stringify({ mode: 'echo' }).length });
});

it('decodes UTF-8 answers, even split inside a character, and reads ASCII ones unchanged', async () => {
  expect(await post('utf8')).toEqual({ error: { message: 'execution reverted: prix trop élevé ✓' } });
  const ascii = JSON.stringify({ result: [{ data: '0x' + 'ab'.repeat(100), removed: false }] });
  expect(bodyText(Buffer.from(ascii))).toBe(ascii);
  expect(bodyText(Buffer.from('{"m":"é"}'))).toBe('{"m":"é"}');
  // Not latin1: the same bytes read as latin1 would give two characters.
  expect(Buffer.from('{"m":"é"}').toString('latin1')).not.toBe('{"m":"é"}');
});
