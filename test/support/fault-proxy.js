// Fault injection between the app and what it talks to, on real loopback sockets: a TCP proxy that can go down and
// come back on the same port (a node or data service restart, a dead link), and on top of it for JSON-RPC a refusal
// of the next eth_sendRawTransaction calls with a node's own words ("txpool is full").
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';

/** A TCP proxy to `target` (http(s)://host:port); `url` is the same URL pointing at the proxy. */
export async function startTcpProxy(target, listenPort = 0) {
  const t = new URL(target);
  const sockets = new Set();
  let server = null;
  let port = listenPort;
  const listen = () =>
    new Promise((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(Number(t.port), t.hostname);
        for (const x of [client, upstream]) {
          sockets.add(x);
          x.on('close', () => sockets.delete(x));
          x.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = s.address().port;
        server = s;
        resolve();
      });
    });
  const down = async () => {
    const s = server;
    server = null;
    for (const x of sockets) x.destroy();
    if (s) await new Promise((r) => s.close(() => r()));
  };
  await listen();
  return {
    get url() {
      return `${t.protocol}//127.0.0.1:${port}${t.pathname === '/' ? '' : t.pathname}`;
    },
    get port() {
      return port;
    },
    down,
    up: () => (server ? Promise.resolve() : listen()),
    close: down,
  };
}

/** A JSON-RPC proxy to `nodeUrl` that can refuse sends and go down (behind a TCP proxy for the down/up part). */
export async function startRpcFaults(nodeUrl) {
  const refusals = [];
  let refused = 0;
  const http = createHttpServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const call = JSON.parse(body);
      const refusal = call.method === 'eth_sendRawTransaction' ? refusals.shift() : undefined;
      if (refusal !== undefined) {
        refused++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32003, message: refusal } }));
        return;
      }
      fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise((r) => http.listen(0, '127.0.0.1', () => r()));
  const tcp = await startTcpProxy(`http://127.0.0.1:${http.address().port}`);
  return {
    url: tcp.url,
    refuseSends(count, message) {
      for (let i = 0; i < count; i++) refusals.push(message);
    },
    refused: () => refused,
    down: () => tcp.down(),
    up: () => tcp.up(),
    async close() {
      await tcp.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(() => r()));
    },
  };
}
