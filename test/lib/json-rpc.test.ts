// Reading a node's JSON-RPC answers (src/lib/json-rpc.ts): one call's result or the node's own error (code, message,
// data), every way of not answering as `unreachable`, a batch's outcomes lined up with its calls whatever their order
// in the answer, a call the node left out failing alone, and a node that does not take batches named as such; and the
// one call over fetch against a loopback server.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchRefused, jsonRpcCall, readRpcAnswer, readRpcBatchAnswer, RpcError } from '../../src/lib/json-rpc.js';

const url = 'http://node.test';
const thrown = (f: () => unknown): unknown => {
  try {
    f();
    return null;
  } catch (e) {
    return e;
  }
};

describe('an answer to one call', () => {
  it("is the result, or the node's own error with its code, message and data", () => {
    expect(readRpcAnswer(url, 'eth_blockNumber', 200, '{"jsonrpc":"2.0","id":1,"result":"0x10"}')).toBe('0x10');
    const e = thrown(() =>
      readRpcAnswer(
        url,
        'eth_call',
        200,
        '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: no","data":"0x08c379a0"}}',
      ),
    ) as RpcError;
    expect(e).toBeInstanceOf(RpcError);
    expect({ code: e.code, message: e.message, method: e.method, data: e.data }).toEqual({
      code: 3,
      message: 'execution reverted: no',
      method: 'eth_call',
      data: '0x08c379a0',
    });
    // A node's refusal in an HTTP 4xx is still its own error.
    expect(
      (thrown(() => readRpcAnswer(url, 'eth_sendRawTransaction', 400, '{"error":{"code":-32000,"message":"nonce too low"}}')) as RpcError)
        .code,
    ).toBe(-32000);
  });

  it.each([
    [503, '', /^The node at http:\/\/node\.test answered HTTP 503\.$/],
    [429, '{"error":{"code":-32005,"message":"slow down"}}', /answered HTTP 429\.$/],
    [200, '<html>proxy error</html>', /sent a response that is not JSON-RPC\.$/],
    [200, '[{"id":1,"result":"0x1"}]', /sent a response that is not JSON-RPC\.$/],
  ])('is unreachable for HTTP %i with %j', (status, text, message) => {
    const e = thrown(() => readRpcAnswer(url, 'eth_chainId', status, text)) as RpcError;
    expect(e).toBeInstanceOf(RpcError);
    expect(e.code).toBe('unreachable');
    expect(e.message).toMatch(message);
  });
});

describe('an answer to a batch', () => {
  const calls = [
    { method: 'eth_getBalance', params: ['0xa'] },
    { method: 'eth_call', params: [{}] },
    { method: 'eth_getTransactionCount', params: ['0xa', 'pending'] },
  ];

  it('lines up with the calls by id, results and errors alike', () => {
    const text = JSON.stringify([
      { id: 12, result: '0x7' },
      { id: 10, result: '0xde0b6b3a7640000' },
      { id: 11, error: { code: 3, message: 'execution reverted' } },
    ]);
    const out = readRpcBatchAnswer(url, calls, 10, 200, text);
    expect(out[0]).toBe('0xde0b6b3a7640000');
    expect(out[1]).toBeInstanceOf(RpcError);
    expect({ code: (out[1] as RpcError).code, method: (out[1] as RpcError).method }).toEqual({ code: 3, method: 'eth_call' });
    expect(out[2]).toBe('0x7');
  });

  it('fails a call the node left out, and only that one; ids of other batches are ignored', () => {
    const out = readRpcBatchAnswer(
      url,
      calls,
      10,
      200,
      JSON.stringify([
        { id: 10, result: '0x1' },
        { id: 12, result: '0x2' },
        { id: 99, result: 'other' },
      ]),
    );
    expect(out[0]).toBe('0x1');
    expect(out[2]).toBe('0x2');
    expect(out[1]).toBeInstanceOf(RpcError);
    expect((out[1] as RpcError).code).toBe('unreachable');
    expect((out[1] as RpcError).message).toBe('The node at http://node.test left eth_call out of its answer to a batch.');
  });

  it('is BatchRefused when the node answers with anything but a batch, unreachable on HTTP 5xx', () => {
    const refusal = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}';
    expect(thrown(() => readRpcBatchAnswer(url, calls, 10, 400, refusal))).toBeInstanceOf(BatchRefused);
    expect(thrown(() => readRpcBatchAnswer(url, calls, 10, 200, 'not json'))).toBeInstanceOf(BatchRefused);
    const down = thrown(() => readRpcBatchAnswer(url, calls, 10, 502, '')) as RpcError;
    expect(down).toBeInstanceOf(RpcError);
    expect(down.code).toBe('unreachable');
  });
});

describe('one call over fetch', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const r = JSON.parse(body) as { id: number; method: string };
        if (r.method === 'silent') return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: r.method }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('answers, and names why nothing answered: a timeout, a refused connection', async () => {
    expect(await jsonRpcCall(base, 'eth_chainId', [])).toBe('eth_chainId');
    const late = (await jsonRpcCall(base, 'silent', [], { timeoutMs: 100 }).catch((e: unknown) => e)) as RpcError;
    expect([late.code, late.message]).toEqual(['unreachable', `The node at ${base} could not be reached (TimeoutError).`]);
    const away = (await jsonRpcCall('http://127.0.0.1:1', 'eth_chainId', []).catch((e: unknown) => e)) as RpcError;
    expect(away.code).toBe('unreachable');
    expect(away.message).toMatch(/could not be reached/);
  });
});
