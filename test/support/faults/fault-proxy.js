// Fault injection between the app and what it talks to, on real loopback sockets: a TCP proxy that can go down and
// come back on the same port (a node or data service restart, a dead link) or blackhole its traffic (a dead route, a
// hung provider: connections stay open and nothing comes back), and on top of it for JSON-RPC a refusal of the next
// eth_sendRawTransaction calls with a node's own words ("txpool is full"), a hosted provider's back-pressure (a share
// of requests answered HTTP 429 with Retry-After, or with an "exceeded its capacity" error), and a provider's limits on
// eth_getLogs ranges and answer sizes.
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import { prng } from '../prng.js';

/**
 * A TCP proxy to `target` (http(s)://host:port); `url` is the same URL pointing at the proxy. Blackholed, every byte
 * either way is held in the proxy, as packets are on a dead route; `up()` delivers what was held and forwards again, as
 * TCP's retransmissions would once the route is back.
 */
export async function startTcpProxy(target, listenPort = 0) {
  const t = new URL(target);
  /** Each accepted connection: its sockets, and while blackholed what each side sent and since when the client waits. */
  const links = new Set();
  let server = null;
  let port = listenPort;
  let blackholed = false;
  /** The longest a client waited on the blackhole with bytes held before it gave up (closed the connection). */
  let longestHeldMs = 0;
  const forward = (link) => {
    const { client } = link;
    if (!link.upstream) {
      const upstream = connect(Number(t.port), t.hostname);
      upstream.on('error', () => undefined);
      // Blackholed, the node's end of the connection is held too: the client learns of it only once the route is back.
      upstream.on('close', () => (link.held ? (link.held.upstreamClosed = true) : client.destroy()));
      client.on('close', () => upstream.destroy());
      link.upstream = upstream;
    }
    client.pipe(link.upstream).pipe(client);
  };
  const hold = (link) => {
    const { client, upstream } = link;
    client.unpipe();
    upstream?.unpipe();
    link.held = { fromClient: [], fromUpstream: [], since: null, upstreamClosed: false };
    link.onClient = (chunk) => {
      link.held.fromClient.push(chunk);
      link.held.since ??= Date.now();
    };
    link.onUpstream = (chunk) => link.held.fromUpstream.push(chunk);
    client.on('data', link.onClient).resume();
    upstream?.on('data', link.onUpstream).resume();
  };
  const release = (link) => {
    const { client, held } = link;
    client.off('data', link.onClient);
    link.upstream?.off('data', link.onUpstream);
    link.held = null;
    if (held.upstreamClosed) {
      for (const chunk of held.fromUpstream) client.write(chunk);
      return void client.end();
    }
    forward(link);
    for (const chunk of held.fromClient) link.upstream.write(chunk);
    for (const chunk of held.fromUpstream) client.write(chunk);
  };
  const listen = () =>
    new Promise((resolve, reject) => {
      const s = createServer((client) => {
        const link = { client, upstream: null, held: null };
        links.add(link);
        client.on('close', () => {
          links.delete(link);
          if (link.held?.since != null) longestHeldMs = Math.max(longestHeldMs, Date.now() - link.held.since);
        });
        client.on('error', () => undefined);
        if (blackholed) hold(link);
        else forward(link);
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
    blackholed = false;
    for (const { client, upstream } of links) {
      client.destroy();
      upstream?.destroy();
    }
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
    async blackhole() {
      if (!blackholed) for (const link of links) hold(link);
      blackholed = true;
      if (!server) await listen();
    },
    async up() {
      if (blackholed) {
        blackholed = false;
        for (const link of links) release(link);
      }
      if (!server) await listen();
    },
    longestHeldMs: () => longestHeldMs,
    close: down,
  };
}

/** A JSON-RPC proxy to `nodeUrl` that can refuse sends, push back, limit log ranges and go down (behind a TCP proxy for the down/up part). */
export async function startRpcFaults(nodeUrl) {
  const refusals = [];
  let refused = 0;
  /** { share, retryAfterS, as, random } while back-pressure is on. */
  let pushBack = null;
  let pushedBack = 0;
  let requests = 0;
  /** The widest eth_getLogs range answered; wider ones get a provider's range refusal. */
  let maxLogBlocks = Infinity;
  /** The most logs one eth_getLogs answer may hold; more get "query returned more than N results" instead. */
  let maxLogResults = Infinity;
  let logRefusals = 0;
  const answer = (res, status, headers, body) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const forward = (body) =>
    fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
  const logSpan = (call) => {
    const p = call.params?.[0];
    return call.method === 'eth_getLogs' && p?.fromBlock && p?.toBlock ? Number(p.toBlock) - Number(p.fromBlock) + 1 : 0;
  };
  const http = createHttpServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests++;
      const body = Buffer.concat(chunks).toString();
      let parsed;
      try {
        parsed = JSON.parse(body);
      } catch {
        // Not JSON-RPC (a WebSocket upgrade for newHeads, say): this proxy speaks HTTP only.
        res.statusCode = 400;
        return void res.end();
      }
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      if (pushBack && pushBack.random() < pushBack.share) {
        pushedBack++;
        const error = { code: 429, message: 'Your app has exceeded its compute units per second capacity. Please retry after a moment.' };
        // Like Alchemy: HTTP 429 with Retry-After, or HTTP 200 with the same words as the JSON-RPC error (no header).
        if (pushBack.as === 'rpc-error')
          return answer(
            res,
            200,
            {},
            Array.isArray(parsed) ? calls.map((c) => ({ jsonrpc: '2.0', id: c.id, error })) : { jsonrpc: '2.0', id: parsed.id, error },
          );
        return answer(
          res,
          429,
          { 'retry-after': String(pushBack.retryAfterS) },
          { jsonrpc: '2.0', id: Array.isArray(parsed) ? null : parsed.id, error },
        );
      }
      const refusal = !Array.isArray(parsed) && parsed.method === 'eth_sendRawTransaction' ? refusals.shift() : undefined;
      if (refusal !== undefined) {
        refused++;
        return answer(res, 200, {}, { jsonrpc: '2.0', id: parsed.id, error: { code: -32003, message: refusal } });
      }
      const tooWide = calls.map((c) => logSpan(c) > maxLogBlocks);
      if (tooWide.some(Boolean)) {
        // A provider's range refusal (-32005), per call; the other calls of a batch are answered one by one.
        logRefusals += tooWide.filter(Boolean).length;
        Promise.all(
          calls.map((c, i) =>
            tooWide[i]
              ? { jsonrpc: '2.0', id: c.id, error: { code: -32005, message: `query exceeds max block range ${maxLogBlocks}` } }
              : forward(JSON.stringify(c)).then((r) => JSON.parse(r.text)),
          ),
        )
          .then((answers) => answer(res, 200, {}, Array.isArray(parsed) ? answers : answers[0]))
          .catch(() => res.destroy());
        return;
      }
      if (maxLogResults !== Infinity && calls.some((c) => c.method === 'eth_getLogs')) {
        // Read, then refused when the answer is too big: a provider's results limit (geth's and Infura's words).
        Promise.all(calls.map((c) => forward(JSON.stringify(c)).then((r) => JSON.parse(r.text))))
          .then((answers) => {
            const out = answers.map((a, i) => {
              if (calls[i].method !== 'eth_getLogs' || !Array.isArray(a.result) || a.result.length <= maxLogResults) return a;
              logRefusals++;
              return {
                jsonrpc: '2.0',
                id: calls[i].id,
                error: { code: -32005, message: `query returned more than ${maxLogResults} results` },
              };
            });
            answer(res, 200, {}, Array.isArray(parsed) ? out : out[0]);
          })
          .catch(() => res.destroy());
        return;
      }
      forward(body)
        .then((r) => answer(res, r.status, {}, r.text))
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
    pushBack(o) {
      pushBack = o ? { share: o.share, retryAfterS: o.retryAfterS ?? 1, as: o.as ?? 'http-429', random: prng(o.seed ?? 1) } : null;
    },
    pushedBack: () => pushedBack,
    requests: () => requests,
    limitLogRange(blocks) {
      maxLogBlocks = blocks ?? Infinity;
    },
    limitLogResults(count) {
      maxLogResults = count ?? Infinity;
    },
    logRangeRefusals: () => logRefusals,
    down: () => tcp.down(),
    blackhole: () => tcp.blackhole(),
    up: () => tcp.up(),
    async close() {
      await tcp.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(() => r()));
    },
  };
}
