// Security of the data service as separate processes: clientId isolation on the tracker and the accounts API (B never
// sees A's messages nor acks them away), per-clientId and per-IP rate limits (429 + Retry-After), and passwords that
// appear neither in the SQLite files (main, WAL) nor in the logs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorEnvelope, rawRequest } from '../support/faults/reliability-http.js';
import { killAllChildren, spawnService, tempDir, type ChildProc, type ServiceInfo } from '../support/faults/reliability-procs.js';
import { waitFor } from '../support/poll.js';

let dev: ChildProc<ServiceInfo>;
let svc: ChildProc<ServiceInfo>;
const dirs = [tempDir('txdesk-rel-sec-dev-'), tempDir('txdesk-rel-sec-node-')];
let provider: JsonRpcProvider;
const PASSWORD_A = `Rel-pw-A-${Math.random().toString(36).slice(2)}-${Date.now()}`;
const PASSWORD_B = `Rel-pw-B-${Math.random().toString(36).slice(2)}-${Date.now()}`;
const users: Record<'a' | 'b', { email: string; clientId: string; jwtToken: string }> = {} as never;

beforeAll(async () => {
  dev = await spawnService({ mode: 'dev', dataDir: dirs[0]!.path, blockTimeSeconds: 1, rateLimitPerMinute: 30 });
  svc = await spawnService({ mode: 'node', nodeUrl: dev.info.nodeUrl, dataDir: dirs[1]!.path, minAckTimeoutMs: 500 });
  provider = new JsonRpcProvider(dev.info.nodeUrl, undefined, { staticNetwork: true });
  for (const [who, password] of [
    ['a', PASSWORD_A],
    ['b', PASSWORD_B],
  ] as const) {
    const email = `rel-${who}-${Date.now()}@example.com`;
    const up = await rawRequest(svc.info.serviceUrl, {
      method: 'POST',
      path: '/users/v1/signup',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, name: `Reliability ${who}`, organization: 'txdesk' }),
    });
    expect(up.status, up.text).toBe(201);
    const login = await rawRequest(svc.info.serviceUrl, {
      method: 'POST',
      path: '/users/v1/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status, login.text).toBe(200);
    expect(login.text).not.toContain(password);
    users[who] = { email, clientId: login.body.clientId, jwtToken: login.body.jwtToken };
  }
});

afterAll(async () => {
  provider?.destroy();
  await svc?.stop();
  await dev?.stop();
  killAllChildren();
  for (const d of dirs) d.remove();
});

interface Client {
  ws: WebSocket;
  frames: any[];
  nextId: number;
}

function connect(clientId: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${svc.info.serviceUrl.replace(/^http/, 'ws')}/tracker/ethereum/local?clientId=${clientId}`);
    const c: Client = { ws, frames: [], nextId: 1 };
    ws.on('message', (d) => c.frames.push(JSON.parse(String(d))));
    ws.once('open', () => resolve(c));
    ws.once('error', reject);
  });
}

function until<T>(check: () => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
  return waitFor(what, check, { timeoutMs: timeoutMs, everyMs: 50 });
}

async function rpc(c: Client, method: string, params: unknown[]): Promise<any> {
  const id = c.nextId++;
  c.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return until(() => c.frames.find((f) => f.id === id), `the answer to ${method}`);
}

const pushes = (c: Client) => c.frames.filter((f) => typeof f.id === 'string' && f.result?.ackId);

async function sendTx(key: string): Promise<string> {
  const w = new Wallet(key, provider);
  const tx = await w.sendTransaction({
    to: w.address,
    value: 0n,
    gasLimit: 21_000n,
    maxFeePerGas: parseUnits('50', 'gwei'),
    maxPriorityFeePerGas: parseUnits('2', 'gwei'),
  });
  return tx.hash.toLowerCase();
}

describe('clientId isolation', () => {
  it("tracker: B never receives A's messages, even on the same subscriptionId, and acking A's ackIds changes nothing for A", async () => {
    const a = await connect(users.a.clientId);
    const b = await connect(users.b.clientId);
    expect((await rpc(a, 'tracker_subscribe', ['shared-sub', 'transaction', 1000])).result).toBe('shared-sub');
    expect((await rpc(b, 'tracker_subscribe', ['shared-sub', 'transaction', 1000])).result).toBe('shared-sub');
    // B dropping "its" shared-sub must leave A's subscription of the same name untouched.
    expect((await rpc(b, 'tracker_unsubscribe', ['shared-sub'])).result).toBe(true);
    expect((await rpc(b, 'tracker_subscribe', ['b-only', 'transaction', 1000])).result).toBe('b-only');
    const keys = dev.info.accounts!;
    const hashA = await sendTx(keys[0]!.privateKey);
    const hashB = await sendTx(keys[1]!.privateKey);
    expect((await rpc(a, 'track_transaction', [hashA, { confirmation: 2, timeout: 60_000 }])).result).toBe(true);
    expect((await rpc(b, 'track_transaction', [hashB, { confirmation: 2, timeout: 60_000 }])).result).toBe(true);

    // A's first receipt: not acked by A. B tries to ack it (and garbage ackIds); the server must still redeliver it to A.
    const first = await until(() => pushes(a).find((p) => p.result.payload.type === 'receipt'), "A's receipt");
    for (const ackId of [first.result.ackId, first.result.messageId, `${first.result.ackId}x`])
      expect((await rpc(b, 'ack', [ackId])).result).toBe(true);
    const seenAt = a.frames.length;
    const again = await until(
      () => a.frames.slice(seenAt).find((f) => f.result?.messageId === first.result.messageId),
      "redelivery of A's receipt after B acked its ackId",
      30_000,
    );
    expect(again.result.payload.type).toBe('receipt');

    // From here on A acks everything; both wait for their confirmations.
    const acked = new Set<string>();
    const ackAll = async (c: Client) => {
      for (const p of pushes(c)) if (!acked.has(p.result.ackId)) acked.add(p.result.ackId), await rpc(c, 'ack', [p.result.ackId]);
    };
    await until(() => (void ackAll(a), pushes(a).find((p) => p.result.payload.type === 'confirmation')), "A's confirmation");
    await until(() => (void ackAll(b), pushes(b).find((p) => p.result.payload.type === 'confirmation')), "B's confirmation");
    await ackAll(a);
    await ackAll(b);

    const hashesSeen = (c: Client) => new Set(pushes(c).map((p) => p.result.payload.result.transactionHash));
    expect([...hashesSeen(a)]).toEqual([hashA]);
    expect([...hashesSeen(b)]).toEqual([hashB]);
    // Every push to B is addressed to one of B's subscriptions; ackIds never repeat across clients.
    for (const p of pushes(b)) expect(p.id).toBe('b-only');
    for (const p of pushes(a)) expect(p.id).toBe('shared-sub');
    const ackIdsA = new Set(pushes(a).map((p) => p.result.ackId));
    for (const p of pushes(b)) expect(ackIdsA.has(p.result.ackId)).toBe(false);

    // Once A acked, nothing more arrives for A (the outbox is empty), so B's stray acks did not corrupt A's state.
    // A heartbeat round trip and a short pause let acks still in flight land, and copies already on the wire arrive.
    await rpc(a, 'HEARTBEAT', []);
    await ackAll(a);
    await new Promise((r) => setTimeout(r, 500));
    const settledAt = a.frames.length;
    await new Promise((r) => setTimeout(r, 2_500));
    expect(a.frames.slice(settledAt).filter((f) => f.result?.ackId)).toEqual([]);
    a.ws.close();
    b.ws.close();
  });

  it("accounts: each bearer token only ever reads its own profile, and B's token cannot change A's password", async () => {
    const meA = await rawRequest(svc.info.serviceUrl, { path: '/users/v1/me', headers: { authorization: `Bearer ${users.a.jwtToken}` } });
    const meB = await rawRequest(svc.info.serviceUrl, { path: '/users/v1/me', headers: { authorization: `Bearer ${users.b.jwtToken}` } });
    expect(meA.body.clientId).toBe(users.a.clientId);
    expect(meB.body.clientId).toBe(users.b.clientId);
    // B presenting A's current password with B's token changes B's own password at most, never A's.
    const cross = await rawRequest(svc.info.serviceUrl, {
      method: 'PATCH',
      path: '/users/v1/passwd',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${users.b.jwtToken}` },
      body: JSON.stringify({ password: PASSWORD_A, newPassword: 'hijacked-password' }),
    });
    expect(cross.status).toBe(401);
    const loginA = await rawRequest(svc.info.serviceUrl, {
      method: 'POST',
      path: '/users/v1/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: users.a.email, password: PASSWORD_A }),
    });
    expect(loginA.status).toBe(200);
    // A forged token (B's with A's clientId spliced in, or a tampered signature) is a 401.
    const parts = users.b.jwtToken.split('.');
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { sub: string };
    const forged = [
      parts[0],
      Buffer.from(JSON.stringify({ ...claims, sub: String(Number(claims.sub) - 1) })).toString('base64url'),
      parts[2],
    ].join('.');
    for (const t of [forged, `${users.a.jwtToken}x`, users.a.jwtToken.split('.').slice(0, 2).join('.') + '.', 'none']) {
      const r = await rawRequest(svc.info.serviceUrl, { path: '/users/v1/me', headers: { authorization: `Bearer ${t}` } });
      expect(r.status, t.slice(0, 40)).toBe(401);
    }
  });
});

describe('rate limits', () => {
  it('listing: a clientId over its allowance gets 429 with Retry-After; other clientIds and bad ids are unaffected', async () => {
    const owner = dev.info.accounts![0]!.address.toLowerCase();
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof rawRequest>> | undefined;
    for (let i = 0; i < 45; i++) {
      const r = await rawRequest(dev.info.serviceUrl, { path: `/nft/v1/accounts/${owner}/tokens?clientId=${dev.info.clientId}` });
      statuses.push(r.status);
      if (r.status === 429) limited ??= r;
    }
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(25);
    expect(limited, `statuses ${statuses.join(',')}`).toBeDefined();
    expect(isErrorEnvelope(limited!)).toBe(true);
    expect(limited!.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another clientId has its own bucket.
    const other = await rawRequest(dev.info.serviceUrl, {
      method: 'POST',
      path: '/users/v1/signup',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `rel-other-${Date.now()}@example.com`, password: 'another-password', name: 'Other' }),
    });
    expect(other.status).toBe(201);
    const ok = await rawRequest(dev.info.serviceUrl, { path: `/nft/v1/accounts/${owner}/tokens?clientId=${other.body.clientId}` });
    expect(ok.status).toBe(200);
    // Unknown clientIds are turned away with 401 before they can use anyone's allowance.
    const unknown = await rawRequest(dev.info.serviceUrl, { path: `/nft/v1/accounts/${owner}/tokens?clientId=nobody` });
    expect(unknown.status).toBe(401);
  });

  it('accounts: a flood of logins from one address gets 429 with Retry-After before scrypt runs out of CPU', async () => {
    let limited: Awaited<ReturnType<typeof rawRequest>> | undefined;
    for (let i = 0; i < 200 && !limited; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, () =>
          rawRequest(svc.info.serviceUrl, {
            method: 'POST',
            path: '/users/v1/login',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: users.a.email, password: 'wrong-password' }),
          }),
        ),
      );
      for (const r of batch) {
        expect([401, 429]).toContain(r.status);
        if (r.status === 429) limited ??= r;
      }
    }
    expect(limited, 'no 429 after 200 failed logins').toBeDefined();
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(isErrorEnvelope(limited!)).toBe(true);
  });
});

describe('passwords at rest and in logs', () => {
  it('the service database files (main, WAL, SHM) and the process output never hold a password in clear', async () => {
    // The WAL is where fresh writes sit before a checkpoint: read every file of the data dir as bytes.
    const files = readdirSync(dirs[1]!.path).filter((f) => f.startsWith('service.sqlite'));
    expect(files).toContain('service.sqlite');
    for (const f of files) {
      const bytes = readFileSync(join(dirs[1]!.path, f));
      for (const pw of [PASSWORD_A, PASSWORD_B, 'wrong-password', 'hijacked-password', 'another-password']) {
        expect(bytes.includes(Buffer.from(pw, 'utf8')), `${pw} in ${f}`).toBe(false);
        expect(bytes.includes(Buffer.from(pw, 'utf16le')), `${pw} (UTF-16) in ${f}`).toBe(false);
        expect(bytes.includes(Buffer.from(Buffer.from(pw).toString('base64'))), `${pw} (base64) in ${f}`).toBe(false);
      }
    }
    for (const out of [svc.output(), dev.output()]) {
      for (const pw of [PASSWORD_A, PASSWORD_B, 'wrong-password', 'hijacked-password', 'another-password']) expect(out).not.toContain(pw);
    }
  });
});
