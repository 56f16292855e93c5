// The tracker endpoint of a real data service (startService) on a real anvil, spoken to over raw JSON-RPC frames:
// upgrade refusals, malformed frames, the three event types, redelivery, resume, isolation, and a reorg.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  RawTrackerClient,
  sendTransfer,
  startTrackerStack,
  trackerWsUrl,
  type PushFrame,
  type TrackerStack,
} from '../../support/service/tracker-harness.js';
import { waitFor } from '../../support/poll.js';

let stack: TrackerStack;
const open: RawTrackerClient[] = [];

beforeAll(async () => {
  stack = await startTrackerStack({ minAckTimeoutMs: 300 });
});
afterAll(async () => {
  for (const c of open) await c.close().catch(() => {});
  await stack?.close();
});

async function client(clientId: string): Promise<RawTrackerClient> {
  const c = await RawTrackerClient.connect(trackerWsUrl(stack.service.url, clientId));
  open.push(c);
  return c;
}

function upgradeStatus(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => {
      ws.close();
      reject(new Error('upgrade was accepted'));
    });
    ws.once('error', () => {});
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

/** Mines one block by hand (interval mining is off inside `manualMining`). */
async function mine(n = 1): Promise<void> {
  for (let i = 0; i < n; i++) await stack.provider.send('evm_mine', []);
}

async function manualMining<T>(fn: () => Promise<T>): Promise<T> {
  await stack.provider.send('evm_setIntervalMining', [0]);
  try {
    return await fn();
  } finally {
    await stack.provider.send('evm_setIntervalMining', [1]);
  }
}

describe('the upgrade', () => {
  it('refuses an unknown clientId with 401 and a JSON error naming account:describe', async () => {
    const r = await upgradeStatus(trackerWsUrl(stack.service.url, 'not-a-client-id'));
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).error.code).toBe('UNAUTHORIZED');
    expect(JSON.parse(r.body).error.message).toMatch(/account:describe/);
    expect((await upgradeStatus(`${stack.service.url.replace('http', 'ws')}/tracker/ethereum/local`)).status).toBe(401);
  });

  it('answers 404 for a platform/network this service does not serve, and for other paths', async () => {
    const id = await stack.newClientId();
    expect((await upgradeStatus(trackerWsUrl(stack.service.url, id, 'ethereum', 'mainnet'))).status).toBe(404);
    expect((await upgradeStatus(trackerWsUrl(stack.service.url, id, 'bitcoin', 'local'))).status).toBe(404);
    expect((await upgradeStatus(`${stack.service.url.replace('http', 'ws')}/elsewhere?clientId=${id}`)).status).toBe(404);
  });
});

describe('malformed frames', () => {
  it('get JSON-RPC errors and the connection stays open', async () => {
    const c = await client(await stack.newClientId());
    const cases: { send: string; code: number; match?: RegExp }[] = [
      { send: '{not json', code: -32700 },
      { send: '[]', code: -32600 },
      { send: '{"jsonrpc":"1.0","id":7,"method":"ack","params":["x"]}', code: -32600 },
      { send: '{"jsonrpc":"2.0","id":8,"method":"eth_blockNumber","params":[]}', code: -32601 },
      { send: '{"jsonrpc":"2.0","id":9,"method":"track_transaction","params":["0x12"]}', code: -32602, match: /txHash/ },
      {
        send: `{"jsonrpc":"2.0","id":10,"method":"track_transaction","params":["0x${'a'.repeat(64)}",{"confirmation":5000,"timeout":1}]}`,
        code: -32602,
        match: /confirmation/,
      },
      {
        send: `{"jsonrpc":"2.0","id":11,"method":"track_transaction","params":["0x${'a'.repeat(64)}",{"timeout":-1}]}`,
        code: -32602,
        match: /timeout/,
      },
      {
        send: '{"jsonrpc":"2.0","id":12,"method":"tracker_subscribe","params":["12345","transaction",null]}',
        code: -32602,
        match: /subscriptionId/,
      },
      { send: '{"jsonrpc":"2.0","id":13,"method":"tracker_subscribe","params":["s","blocks",null]}', code: -32602, match: /topic/ },
      { send: '{"jsonrpc":"2.0","id":14,"method":"tracker_subscribe","params":["s","transaction",5]}', code: -32602, match: /ackTimeout/ },
      { send: '{"jsonrpc":"2.0","id":15,"method":"ack","params":[42]}', code: -32602, match: /ackId/ },
      {
        send: JSON.stringify({ jsonrpc: '2.0', id: 16, method: 'HEARTBEAT', params: ['x'.repeat(300_000)] }),
        code: -32600,
        match: /limited/,
      },
    ];
    for (const k of cases) {
      const seen = c.frames.length;
      c.sendRaw(k.send);
      const reply = await c.waitFrame((f) => !Array.isArray(f) && f.error !== undefined, `the error for ${k.send.slice(0, 60)}`, seen);
      expect(reply.error.code, k.send.slice(0, 80)).toBe(k.code);
      if (k.match) expect(reply.error.message).toMatch(k.match);
      expect(c.isOpen).toBe(true);
    }
    expect((await c.request('HEARTBEAT', [])).result).toBe(true);
  });

  it('answers batches in one array and stays silent for notifications', async () => {
    const c = await client(await stack.newClientId());
    c.sendRaw('{"jsonrpc":"2.0","method":"HEARTBEAT","params":[]}');
    c.sendRaw('[{"jsonrpc":"2.0","id":1,"method":"HEARTBEAT","params":[]},{"jsonrpc":"2.0","id":2,"method":"nope"}]');
    const reply = await c.waitFrame((f) => Array.isArray(f), 'the batch answer');
    expect(reply).toEqual([
      { jsonrpc: '2.0', id: 1, result: true },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: expect.stringMatching(/nope/) } },
    ]);
    expect(c.frames).toHaveLength(1);
  });
});

describe('events', () => {
  it('reports pending, then receipt and confirmation with the SPEC 3.2 payloads, in order', async () => {
    const c = await client(await stack.newClientId());
    expect((await c.request('tracker_subscribe', ['events', 'transaction', null])).result).toBe('events');
    const w = stack.wallet(1);
    const nonce = await w.getNonce('pending');
    // A nonce gap keeps the second transaction in the pool until the first fills the gap.
    const late = await sendTransfer(w, { nonce: nonce + 1 });
    expect((await c.request('track_transaction', [late.hash, { confirmation: 2, timeout: 300 }])).result).toBe(true);
    const pending = await waitFor('pending', () => c.pushesOf('pending', late.hash)[0]);
    expect(pending.id).toBe('events');
    expect(pending.result.payload.result).toEqual({ transactionHash: late.hash, confirmation: 2, timeout: 300 });
    expect(typeof pending.result.ackId).toBe('string');
    expect(typeof pending.result.messageId).toBe('string');
    expect((await c.request('ack', [pending.result.ackId])).result).toBe(true);
    expect((await c.request('ack', [pending.result.ackId])).result).toBe(true);

    await sendTransfer(w, { nonce });
    const receipt = await waitFor('receipt', () => c.pushesOf('receipt', late.hash)[0]);
    const r = receipt.result.payload.result;
    expect(Object.keys(r).sort()).toEqual(
      [
        'blockHash',
        'blockNumber',
        'contractAddress',
        'cumulativeGasUsed',
        'effectiveGasPrice',
        'from',
        'gasUsed',
        'logs',
        'status',
        'to',
        'transactionHash',
        'transactionIndex',
        'type',
      ].sort(),
    );
    expect(r).toMatchObject({
      transactionHash: late.hash,
      from: w.address.toLowerCase(),
      status: 1,
      gasUsed: 21000,
      contractAddress: null,
      logs: [],
    });
    expect(typeof r.blockNumber).toBe('number');
    expect(typeof r.transactionIndex).toBe('number');
    expect(typeof r.cumulativeGasUsed).toBe('number');
    expect(r.effectiveGasPrice).toMatch(/^[1-9]\d*$/);
    expect(r.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    await c.request('ack', [receipt.result.ackId]);

    const confirmation = await waitFor('confirmation', () => c.pushesOf('confirmation', late.hash)[0]);
    expect(confirmation.result.payload.result).toEqual(r);
    expect(await stack.provider.getBlockNumber()).toBeGreaterThanOrEqual(r.blockNumber + 2);
    await c.request('ack', [confirmation.result.ackId]);
    const types = c.pushes.filter((p) => p.result.payload.result.transactionHash === late.hash).map((p) => p.result.payload.type);
    expect(types).toEqual(['pending', 'receipt', 'confirmation']);
  });

  it('reads both positional forms, including the flattened [timeout, confirmation] of older clients', async () => {
    const c = await client(await stack.newClientId());
    await c.request('tracker_subscribe', ['forms', 'transaction', null]);
    const w = stack.wallet(2);
    const nonce = await w.getNonce('pending');
    const a = await sendTransfer(w, { nonce: nonce + 1 });
    const b = await sendTransfer(w, { nonce: nonce + 2 });
    expect((await c.request('track_transaction', [a.hash, 1500, 3])).result).toBe(true);
    expect((await c.request('track_transaction', [b.hash, 3, 1500])).result).toBe(true);
    const pa = await waitFor('pending a', () => c.pushesOf('pending', a.hash)[0]);
    const pb = await waitFor('pending b', () => c.pushesOf('pending', b.hash)[0]);
    expect(pa.result.payload.result).toMatchObject({ confirmation: 3, timeout: 1500 });
    expect(pb.result.payload.result).toMatchObject({ confirmation: 3, timeout: 1500 });
    for (const p of [pa, pb]) await c.request('ack', [p.result.ackId]);
    await sendTransfer(w, { nonce });
    await c.request('tracker_unsubscribe', ['forms']);
  });
});

describe('the end of tracking', () => {
  it('ends silently once the sender’s nonce is used by another transaction at confirmation depth', async () => {
    const clientId = await stack.newClientId();
    const c = await client(clientId);
    await c.request('tracker_subscribe', ['replaced', 'transaction', null]);
    const w = stack.wallet(0);
    const nonce = await w.getNonce('pending');
    const stuck = await sendTransfer(w, { nonce: nonce + 1, gwei: '2' });
    await c.request('track_transaction', [stuck.hash, { confirmation: 1, timeout: 300 }]);
    const pending = await waitFor('pending', () => c.pushesOf('pending', stuck.hash)[0]);
    await c.request('ack', [pending.result.ackId]);
    // Same nonce, higher fee: the stuck hash leaves the pool for good once the gap is filled and both are mined.
    await sendTransfer(w, { nonce: nonce + 1, gwei: '4' });
    await sendTransfer(w, { nonce });
    const row = () =>
      stack.service
        .db!.prepare('SELECT done_at_ms FROM tracker_tracking WHERE client_id = ? AND tx_hash = ?')
        .get(clientId, stuck.hash) as { done_at_ms: number | null };
    await waitFor('the tracking to end', () => row().done_at_ms !== null);
    expect(c.pushes.filter((p) => p.result.payload.result.transactionHash === stuck.hash).map((p) => p.result.payload.type)).toEqual([
      'pending',
    ]);
  });
});

describe('delivery', () => {
  it('redelivers an un-acked message with the same messageId after ackTimeout, and stops once acked', async () => {
    const c = await client(await stack.newClientId());
    await c.request('tracker_subscribe', ['redeliver', 'transaction', 400]);
    const tx = await sendTransfer(stack.wallet(3));
    await c.request('track_transaction', [tx.hash, { confirmation: 50, timeout: 60_000 }]);
    const copies = await waitFor('two redeliveries', () =>
      c.pushesOf('receipt', tx.hash).length >= 3 ? c.pushesOf('receipt', tx.hash) : null,
    );
    expect(new Set(copies.map((p) => p.result.messageId)).size).toBe(1);
    expect(new Set(copies.map((p) => p.result.ackId)).size).toBe(1);
    await c.request('ack', [copies[0]!.result.ackId]);
    const count = c.pushesOf('receipt', tx.hash).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(c.pushesOf('receipt', tx.hash).length).toBe(count);
  });

  it('resumes on re-subscribe after a reconnect: un-acked messages come again, acked ones do not', async () => {
    const clientId = await stack.newClientId();
    const c1 = await client(clientId);
    await c1.request('tracker_subscribe', ['resume', 'transaction', 60_000]);
    const w = stack.wallet(4);
    const t1 = await sendTransfer(w);
    const t2 = await sendTransfer(w);
    await c1.request('track_transaction', [t1.hash, { confirmation: 100, timeout: 60_000 }]);
    await c1.request('track_transaction', [t2.hash, { confirmation: 100, timeout: 60_000 }]);
    const r1 = await waitFor('receipt 1', () => c1.pushesOf('receipt', t1.hash)[0]);
    const r2 = await waitFor('receipt 2', () => c1.pushesOf('receipt', t2.hash)[0]);
    await c1.request('ack', [r1.result.ackId]);
    await c1.close();

    const c2 = await client(clientId);
    await c2.request('tracker_subscribe', ['resume', 'transaction', 60_000]);
    const again = await waitFor('the un-acked receipt again', () => c2.pushesOf('receipt', t2.hash)[0]);
    expect(again.result.messageId).toBe(r2.result.messageId);
    await new Promise((r) => setTimeout(r, 500));
    expect(c2.pushesOf('receipt', t1.hash)).toHaveLength(0);
    await c2.request('tracker_unsubscribe', ['resume']);
  });

  it('keeps clientIds apart: no shared messages, and acking another client’s ackId changes nothing', async () => {
    const alice = await client(await stack.newClientId());
    const bob = await client(await stack.newClientId());
    await alice.request('tracker_subscribe', ['same-name', 'transaction', 400]);
    await bob.request('tracker_subscribe', ['same-name', 'transaction', 400]);
    const tx = await sendTransfer(stack.wallet(5));
    await alice.request('track_transaction', [tx.hash, { confirmation: 100, timeout: 60_000 }]);
    const first = await waitFor('alice receipt', () => alice.pushesOf('receipt', tx.hash)[0]);
    expect((await bob.request('ack', [first.result.ackId])).result).toBe(true);
    const n = alice.pushesOf('receipt', tx.hash).length;
    await waitFor('a redelivery to alice despite bob’s ack', () => alice.pushesOf('receipt', tx.hash).length > n);
    expect(bob.pushes).toHaveLength(0);
    await alice.request('ack', [first.result.ackId]);
    await alice.request('tracker_unsubscribe', ['same-name']);
  });

  it('fans a message out to every subscription of the client, each with its own ackId', async () => {
    const c = await client(await stack.newClientId());
    await c.request('tracker_subscribe', ['fan-a', 'transaction', null]);
    await c.request('tracker_subscribe', ['fan-b', 'transaction', null]);
    const tx = await sendTransfer(stack.wallet(6));
    await c.request('track_transaction', [tx.hash, { confirmation: 100, timeout: 60_000 }]);
    const a = await waitFor('fan-a', () => c.pushesOf('receipt', tx.hash).find((p) => p.id === 'fan-a'));
    const b = await waitFor('fan-b', () => c.pushesOf('receipt', tx.hash).find((p) => p.id === 'fan-b'));
    expect(a.result.messageId).toBe(b.result.messageId);
    expect(a.result.ackId).not.toBe(b.result.ackId);
    await c.request('tracker_unsubscribe', ['fan-a']);
    await c.request('tracker_unsubscribe', ['fan-b']);
  });
});

describe('reorganisations', () => {
  it('withdraws a receipt whose block was reorganised away and reports the new one; the confirmation names the new block', async () => {
    const c = await client(await stack.newClientId());
    await c.request('tracker_subscribe', ['reorg', 'transaction', null]);
    await manualMining(async () => {
      const tx = await sendTransfer(stack.wallet(7));
      await c.request('track_transaction', [tx.hash, { confirmation: 3, timeout: 60_000 }]);
      await mine();
      const first: PushFrame = await waitFor('the first receipt', () => c.pushesOf('receipt', tx.hash)[0]);
      await c.request('ack', [first.result.ackId]);
      // Replace the block holding the transaction with an empty one: the receipt is gone.
      await stack.provider.send('anvil_reorg', [1, []]);
      expect(await stack.provider.send('eth_getTransactionReceipt', [tx.hash])).toBeNull();
      await mine(2);
      // The withdrawn receipt is announced as a pending with result.reorged (the next receipt waits for its ack).
      const again = await waitFor('the reorged pending', () => c.pushesOf('pending', tx.hash)[0]);
      expect(again.result.payload.result).toMatchObject({ transactionHash: tx.hash, reorged: true });
      await c.request('ack', [again.result.ackId]);
      // Mined again, in another block.
      await stack.provider.send('eth_sendRawTransaction', [tx.raw]);
      await mine();
      const second = await waitFor('the receipt from the new block', () => c.pushesOf('receipt', tx.hash)[1]);
      expect(second.result.payload.result.blockHash).not.toBe(first.result.payload.result.blockHash);
      expect(second.result.messageId).not.toBe(first.result.messageId);
      await c.request('ack', [second.result.ackId]);
      await mine(3);
      const conf = await waitFor('the confirmation', () => c.pushesOf('confirmation', tx.hash)[0]);
      expect(conf.result.payload.result.blockHash).toBe(second.result.payload.result.blockHash);
      expect(c.pushesOf('confirmation', tx.hash)).toHaveLength(1);
      await c.request('ack', [conf.result.ackId]);
    });
  });

  it('follows a chain that went back (evm_revert) and sends no confirmation for the lost block', async () => {
    const c = await client(await stack.newClientId());
    await c.request('tracker_subscribe', ['revert', 'transaction', null]);
    await manualMining(async () => {
      const snapshot = await stack.provider.send('evm_snapshot', []);
      const tx = await sendTransfer(stack.wallet(7));
      await c.request('track_transaction', [tx.hash, { confirmation: 2, timeout: 60_000 }]);
      await mine();
      const first = await waitFor('the first receipt', () => c.pushesOf('receipt', tx.hash)[0]);
      await c.request('ack', [first.result.ackId]);
      await stack.provider.send('evm_revert', [snapshot]);
      await mine(3);
      const again = await waitFor('the reorged pending', () => c.pushesOf('pending', tx.hash)[0]);
      expect(again.result.payload.result).toMatchObject({ transactionHash: tx.hash, reorged: true });
      await c.request('ack', [again.result.ackId]);
      expect(c.pushesOf('confirmation', tx.hash)).toHaveLength(0);
      await stack.provider.send('eth_sendRawTransaction', [tx.raw]).catch(() => {});
      await mine();
      const second = await waitFor('the receipt after the revert', () => c.pushesOf('receipt', tx.hash)[1]);
      expect(second.result.payload.result.blockHash).not.toBe(first.result.payload.result.blockHash);
      await c.request('ack', [second.result.ackId]);
      await mine(2);
      const conf = await waitFor('the confirmation', () => c.pushesOf('confirmation', tx.hash)[0]);
      expect(conf.result.payload.result.blockHash).toBe(second.result.payload.result.blockHash);
      await c.request('ack', [conf.result.ackId]);
    });
  });
});
