// A fake `txdesk serve` for designing the renderer without a chain: serves out/renderer and answers the contract
// table's routes with made-up records that go pending, get replaced and confirm. Visual iteration only; the e2e tests use the real server.
// Run: npx esbuild test/support/browser/e2e-mock-server.ts --bundle --platform=node --format=esm --outfile=/tmp/txdesk-mock.mjs
//      && RENDERER_DIR=out/renderer node /tmp/txdesk-mock.mjs   (then open the printed URL).
import { createServer, type ServerResponse } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { join, extname } from 'node:path';
import type { ApprovalRequest, ApprovalRule } from '../../../src/shared/approvals.js';
import type { AppSettings, DevchainStatus, KeyInfo } from '../../../src/shared/desktop-api.js';
import type { Token } from '../../../src/shared/listing.js';
import type { TxEvent, TxRecord } from '../../../src/shared/tx-record.js';

const root = process.env.RENDERER_DIR ?? join(process.cwd(), 'out/renderer');
const address = '0x8ba1f109551bd432803012645ac136ddd64dba72';
const clients = new Set<ServerResponse>();
const push = (event: string, data: unknown) => clients.forEach((c) => c.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));

let settings: AppSettings = {
  clientId: 'cid_dev_2f1c9a',
  signedInAs: 'dev@txdesk.local',
  nodeUrl: 'http://127.0.0.1:8545',
  serviceUrl: 'http://127.0.0.1:4000',
  platform: 'ethereum',
  network: 'local',
  policy: {
    pricing: 'seed',
    speed: 'normal',
    txType: 'legacy',
    initialFeeWei: '1000000000',
    bumpPercent: 27,
    maxFeeWei: '50000000000',
    maxReplacements: 5,
    timeoutMs: 10000,
    confirmations: 6,
  },
  localApi: false,
  approvalTimeoutMs: 120000,
  pendingRestart: [],
  nodeUrls: {},
};
const key: KeyInfo = { address, balanceWei: '9999873000000000000000', storage: 'keychain' };
const devchain: DevchainStatus = { blockNumber: 1204, baseFeeWei: '7', congestion: 'high' };
const txs: TxRecord[] = [];
const history = new Map<string, TxEvent[]>();
let nonce = 0;
const hex = (n: number) => `0x${Array.from({ length: 64 }, (_, i) => ((n * 7919 + i * 31) % 16).toString(16)).join('')}`;
const collections = [
  { address: '0x5fbdb2315678afecb367f032d93f642f64180aa3', name: 'Harbor Lights', symbol: 'HBR', totalSupply: 40 },
  { address: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512', name: 'Glass Birds', symbol: 'GBIRD', totalSupply: 25 },
  { address: '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0', name: '', symbol: '', totalSupply: 10 },
];
const tokens: Token[] = Array.from({ length: 23 }, (_, i) => ({
  id: String(i + 1),
  owner: address,
  uri: i % 5 === 4 ? '' : `http://mock/meta/${i}`,
  contract: collections[i % 3]!,
}));

function now() {
  return new Date().toISOString();
}
// Requests from a tool waiting for approval: a token transfer, a sign-in message and an EIP-712 mail.
const tool = { kind: 'token' as const, fingerprint: '1a2b3c4d', label: 'a tool with the API token …1a2b3c4d' };
const later = (ms: number) => new Date(Date.now() + ms).toISOString();
let approvals: ApprovalRequest[] = [
  {
    id: '7d0f6a52-1c2b-4e8a-9f3d-2b1c0a9e8d7f',
    kind: 'transaction',
    requester: tool,
    createdAt: now(),
    expiresAt: later(600_000),
    transaction: {
      to: collections[0]!.address,
      value: '12500000000000000',
      input: `0xa9059cbb${'0'.repeat(24)}${address.slice(2)}${'0'.repeat(63)}1`,
      gasLimit: '51234',
      selector: '0xa9059cbb',
      functionName: 'transfer(address,uint256)',
      feeFromWei: '1000000000',
      feeCapWei: '50000000000',
      maxCostWei: '15061700000000000',
    },
  },
  {
    id: '8e1a7b63-2d3c-4f9b-8a4e-3c2d1b0a9f8e',
    kind: 'message',
    requester: tool,
    createdAt: now(),
    expiresAt: later(600_000),
    message: { text: 'Sign in to example.org\nNonce: 7c1e', hex: '0x' },
  },
  {
    id: '9f2b8c74-3e4d-4a0c-9b5f-4d3e2c1b0a9f',
    kind: 'typed-data',
    requester: tool,
    createdAt: now(),
    expiresAt: later(600_000),
    typedData: {
      primaryType: 'Mail',
      domain: { name: 'Ether Mail', version: '1', chainId: 11155111, verifyingContract: collections[1]!.address },
      message: { from: { name: 'Cow', wallet: address }, to: { name: 'Bob', wallet: collections[2]!.address }, contents: 'Hello, Bob!' },
    },
  },
];
let rules: ApprovalRule[] = [
  {
    id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    requester: tool,
    maxPerDayWei: '50000000000000000',
    spentWei: '3061700000000000',
    createdAt: later(-3_600_000),
  },
];
function event(hash: string, kind: TxEvent['kind'], summary: string) {
  const list = history.get(hash) ?? [];
  list.push({ at: now(), kind, summary, detail: {} });
  history.set(hash, list);
}
function update(r: TxRecord, patch: Partial<TxRecord>) {
  Object.assign(r, patch, { updatedAt: now() });
  push('tx', r);
}
function generate(): TxRecord {
  const n = nonce++;
  const r: TxRecord = {
    transactionHash: hex(n * 10),
    from: address,
    nonce: n,
    gasPrice: '1000000000',
    txType: 'legacy',
    to: address,
    value: '0',
    input: '0x',
    gasLimit: '21000',
    data: {},
    replaces: null,
    replacedBy: null,
    attempt: 0,
    kind: 'generate',
    problem: null,
    createdAt: now(),
    updatedAt: now(),
  };
  txs.push(r);
  event(r.transactionHash, 'signed', 'Signed with nonce ' + n + ' at 1 gwei.');
  event(r.transactionHash, 'broadcast', 'Broadcast to the node.');
  let prev = r;
  const step = (attempt: number) => {
    if (attempt <= n % 3) {
      setTimeout(() => {
        update(prev, { status: 'pending' });
        event(prev.transactionHash, 'pending', 'No receipt after 10 s.');
        const fee = (BigInt(prev.gasPrice) * 127n) / 100n;
        const next: TxRecord = {
          ...prev,
          transactionHash: hex(n * 10 + attempt + 1),
          gasPrice: fee.toString(),
          status: undefined,
          attempt: attempt + 1,
          kind: 'replace',
          replaces: prev.transactionHash,
          createdAt: now(),
          updatedAt: now(),
        };
        delete next.status;
        txs.push(next);
        event(
          prev.transactionHash,
          'replacement-sent',
          `Replaced by ${next.transactionHash.slice(0, 10)}… at ${Number(fee) / 1e9} gwei (+27%).`,
        );
        event(next.transactionHash, 'signed', `Signed as replacement #${attempt + 1}.`);
        update(prev, { replacedBy: next.transactionHash });
        push('tx', next);
        prev = next;
        step(attempt + 1);
      }, 1500);
    } else {
      setTimeout(() => {
        const data = { blockNumber: devchain.blockNumber, gasUsed: 21000, status: 1 };
        update(prev, { status: 'receipt', data });
        event(prev.transactionHash, 'receipt', `Mined in block ${devchain.blockNumber}.`);
        for (const o of txs)
          if (o.nonce === n && o !== prev) {
            update(o, { status: 'replaced' });
            event(o.transactionHash, 'replaced', 'Another transaction with this nonce was mined.');
          }
        setTimeout(() => {
          update(prev, { status: 'confirmation' });
          event(prev.transactionHash, 'confirmation', '6 confirmations.');
        }, 2500);
      }, 1500);
    }
  };
  step(0);
  return r;
}
for (let i = 0; i < 4; i++) generate();
setInterval(() => {
  devchain.blockNumber++;
  push('devchain', devchain);
}, 1000);

const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const svg = (i: number) =>
  `data:image/svg+xml;base64,${Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" ` +
      `height="100" fill="hsl(${i * 47} 60% 45%)"/><circle cx="50" cy="50" r="${20 + (i % 4) * 6}" fill="hsl(${i * 47 + 120} ` +
      `70% 70%)"/></svg>`,
  ).toString('base64')}`;

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const body = await new Promise<string>((r) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => r(b));
  });
  const p = url.pathname;
  const m = req.method;
  if (p === '/api/events') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': hi\n\n');
    clients.add(res);
    req.on('close', () => clients.delete(res));
    return;
  }
  if (p === '/api/app') {
    const toolRpc = { url: `http://${req.headers.host ?? '127.0.0.1'}/rpc`, apiTokenFile: '/home/dev/.config/txdesk/api-token' };
    return json(res, 200, {
      mode: 'embedded',
      chainId: 31337,
      nodeUrl: settings.nodeUrl,
      serviceUrl: settings.serviceUrl,
      platform: 'ethereum',
      network: 'local',
      address,
      toolRpc,
    });
  }
  if (p === '/api/tx' && m === 'GET') return json(res, 200, txs);
  if (p === '/api/tx' && m === 'POST') return json(res, 201, generate());
  if (p.startsWith('/api/tx/')) {
    const r = txs.find((t) => t.transactionHash === p.slice(8));
    return r
      ? json(res, 200, { ...r, history: history.get(r.transactionHash) ?? [] })
      : json(res, 404, { error: { code: 'NOT_FOUND', message: 'No such transaction.' } });
  }
  if (p === '/api/settings' && m === 'GET') return json(res, 200, settings);
  if (p === '/api/settings' && m === 'PATCH') {
    const patch = JSON.parse(body) as Partial<AppSettings>;
    settings = { ...settings, ...patch, policy: { ...settings.policy, ...(patch.policy ?? {}) } };
    return json(res, 200, settings);
  }
  if (p === '/api/approvals') return json(res, 200, approvals);
  const decided = /^\/api\/approvals\/([^/]+)$/.exec(p);
  if (decided && m === 'POST') {
    if (!approvals.some((a) => a.id === decided[1]))
      return json(res, 404, { error: { code: 'NOT_FOUND', message: 'No such request is waiting.' } });
    approvals = approvals.filter((a) => a.id !== decided[1]);
    push('approvals', approvals);
    return json(res, 200, { decided: true });
  }
  if (p === '/api/approval-rules') return json(res, 200, rules);
  const revoked = /^\/api\/approval-rules\/([^/]+)\/revoke$/.exec(p);
  if (revoked && m === 'POST') {
    rules = rules.filter((r) => r.id !== revoked[1]);
    return json(res, 200, { revoked: true });
  }
  if (p === '/api/key') return json(res, 200, key);
  if (p === '/api/key/generate' || p === '/api/key/import') return json(res, 200, key);
  if (p === '/api/devchain') return json(res, 200, devchain);
  if (p === '/api/devchain/congestion') {
    devchain.congestion = (JSON.parse(body) as { level: DevchainStatus['congestion'] }).level;
    return json(res, 200, devchain);
  }
  if (p === '/api/token-metadata') {
    const { uris } = JSON.parse(body) as { uris: string[] };
    return json(
      res,
      200,
      Object.fromEntries(uris.map((u) => [u, { name: `Token ${u.split('/').pop()}`, image: svg(Number(u.split('/').pop())) }])),
    );
  }
  const tm = /^\/nft\/v1\/accounts\/[^/]+\/tokens$/.exec(p);
  if (tm) {
    const page = Number(url.searchParams.get('page') ?? 0);
    const size = Number(url.searchParams.get('size') ?? 15);
    const filter = url.searchParams.get('contractAddresses')?.split(',') ?? [];
    const all = tokens.filter((t) => filter.length === 0 || filter.includes(t.contract.address));
    const data = all.slice(page * size, page * size + size);
    const mk = (n: number) => `http://${req.headers.host}${p}?page=${n}&size=${size}`;
    return json(res, 200, {
      data,
      pagination: {
        totalCount: all.length,
        prevUrl: page > 0 ? mk(page - 1) : '',
        nextUrl: (page + 1) * size < all.length ? mk(page + 1) : '',
      },
    });
  }
  const file = join(root, p === '/' ? 'index.html' : p);
  if (file.startsWith(root) && existsSync(file)) {
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    return res.end(readFileSync(file));
  }
  json(res, 404, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const a = server.address();
  if (a && typeof a === 'object') console.log(`http://127.0.0.1:${a.port}/`);
});
