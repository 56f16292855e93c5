// The webhook receiver of bench/webhooks, run as a worker thread: an HTTP server on 127.0.0.1 that answers 200 as
// soon as a delivery's body is in and tells the bench, in batches, when each delivery arrived (the time its request
// began, on the clock every thread shares: performance.timeOrigin + performance.now()). Its own thread keeps the
// arrival times free of the SDK's work on the bench's main thread, and the SDK's free of the receiver's.
import { createServer } from 'node:http';
import { parentPort } from 'node:worker_threads';

const now = () => performance.timeOrigin + performance.now();
let batch = [];
let flushing = false;
const flush = () => {
  flushing = false;
  parentPort.postMessage({ kind: 'arrivals', list: batch });
  batch = [];
};

const server = createServer((req, res) => {
  const at = now();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
    let d;
    try {
      d = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      d = {};
    }
    batch.push({
      at,
      deliveryId: d.deliveryId ?? null,
      type: d.payload?.type ?? null,
      hash: String(d.payload?.result?.transactionHash ?? '').toLowerCase(),
      blockNumber: d.payload?.result?.blockNumber ?? null,
      attempt: Number(req.headers['txdesk-attempt'] ?? 1),
      signed: typeof req.headers['txdesk-signature'] === 'string',
    });
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ kind: 'listening', port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'stop') server.close(() => process.exit(0));
});
