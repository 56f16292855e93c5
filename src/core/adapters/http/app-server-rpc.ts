// POST /rpc on the localhost server: JSON-RPC 2.0 framing for local tools (single calls and batches, ids echoed, the
// body size bounded) around the core's tool RPC. A missing or wrong token is JSON-RPC error 4100 in a 200, since
// libraries read a JSON-RPC error's code but turn an HTTP error status into a bare network failure.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody } from '../../../lib/http-kit.js';
import type { Requester } from '../../../shared/approvals.js';
import { isTxdeskError } from '../../../shared/errors.js';
import { FORWARDED_METHODS } from '../../services/tool-rpc.js';
import { RPC_CODES, RpcFailure } from '../../services/tool-rpc-wire.js';
import type { InTurn } from '../../services/tx-engine-user-actions.js';
import { checkToken, hasSession, type AppServerAuth } from './app-server-auth.js';

/** Deploy init code and typed data can be large; anything past this is not a tool's request. */
const RPC_BODY_LIMIT = 2 * 1024 * 1024;
const BATCH_LIMIT = 100;

type Id = string | number | null;
type Call = (method: string, params: readonly unknown[], requester: Requester, inTurn?: InTurn) => Promise<unknown>;

const errorReply = (id: Id, e: RpcFailure) => ({
  jsonrpc: '2.0',
  id,
  error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) },
});

function send(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Who is asking, for the approval dialog and standing rules: the app's own page, or a holder of the API token. */
export function requesterOf(req: IncomingMessage, auth: AppServerAuth, port: number): Requester {
  if (hasSession(req.headers, auth, port) && req.headers.authorization === undefined) {
    return {
      kind: 'browser',
      fingerprint: createHash('sha256').update(`browser:${auth.token}`).digest('hex').slice(0, 8),
      label: "the app's own page",
    };
  }
  const fingerprint = createHash('sha256').update(auth.token).digest('hex').slice(0, 8);
  return { kind: 'token', fingerprint, label: `a tool with the API token …${fingerprint}` };
}

async function one(entry: unknown, call: Call, requester: Requester, inTurn?: InTurn): Promise<unknown> {
  const e = entry as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | null;
  const id: Id = e && (typeof e.id === 'string' || typeof e.id === 'number') ? e.id : null;
  if (!e || typeof e !== 'object' || e.jsonrpc !== '2.0' || typeof e.method !== 'string') {
    return errorReply(
      id,
      new RpcFailure(RPC_CODES.invalidRequest, 'A JSON-RPC request is {"jsonrpc":"2.0","id":…,"method":"…","params":[…]}.'),
    );
  }
  if (e.params !== undefined && !Array.isArray(e.params))
    return errorReply(id, new RpcFailure(RPC_CODES.invalidParams, 'params must be an array.'));
  try {
    return { jsonrpc: '2.0', id, result: (await call(e.method, (e.params as unknown[] | undefined) ?? [], requester, inTurn)) ?? null };
  } catch (err) {
    return errorReply(
      id,
      err instanceof RpcFailure ? err : new RpcFailure(RPC_CODES.internal, 'txdesk could not answer this request; see its log.'),
    );
  }
}

/** Handles one POST /rpc (Host and Origin were checked before). */
export async function handleRpc(
  req: IncomingMessage,
  res: ServerResponse,
  o: { call: Call; auth: AppServerAuth; port: number },
): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-length': 0 });
    return void res.end();
  }
  const unauthorized = checkToken('POST', req.headers, o.auth, o.port);
  if (unauthorized) {
    req.resume();
    return send(res, errorReply(null, new RpcFailure(RPC_CODES.unauthorized, `${unauthorized.message}`)));
  }
  let body: unknown;
  try {
    body = await readJsonBody(req, RPC_BODY_LIMIT);
  } catch (e) {
    const too = isTxdeskError(e, 'PAYLOAD_TOO_LARGE');
    return send(
      res,
      errorReply(
        null,
        new RpcFailure(
          too ? RPC_CODES.invalidRequest : RPC_CODES.parse,
          isTxdeskError(e) ? e.message : 'The request body could not be read.',
        ),
      ),
    );
  }
  const requester = requesterOf(req, o.auth, o.port);
  if (!Array.isArray(body)) return send(res, await one(body, o.call, requester));
  if (body.length === 0 || body.length > BATCH_LIMIT) {
    return send(res, errorReply(null, new RpcFailure(RPC_CODES.invalidRequest, `A batch holds 1 to ${BATCH_LIMIT} requests; split it.`)));
  }
  send(res, await runBatch(body, o.call, requester));
}

/** Methods that change nothing in txdesk or on the chain: the node's reads and the ones txdesk answers itself. */
const OWN_READS = new Set([
  'eth_chainId',
  'net_version',
  'web3_clientVersion',
  'eth_accounts',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
]);

/** How an entry of a batch runs beside its neighbours (see runBatch). */
function kindOf(entry: unknown): 'read' | 'send' | 'alone' {
  const method = (entry as { method?: unknown } | null)?.method;
  if (method === 'eth_sendTransaction') return 'send';
  return typeof method === 'string' && (OWN_READS.has(method) || FORWARDED_METHODS.has(method)) ? 'read' : 'alone';
}

/** Turns for the transactions of a batch: each takes its nonce once the one before it took its own or failed. */
function turns(): () => { inTurn: InTurn; passed: () => void } {
  let previous: Promise<void> = Promise.resolve();
  return () => {
    const before = previous;
    let passed!: () => void;
    previous = new Promise<void>((r) => (passed = r));
    const inTurn: InTurn = async (enter) => {
      await before;
      try {
        return enter();
      } finally {
        passed();
      }
    };
    return { inTurn, passed };
  };
}

/**
 * A batch's replies, in its order. Entries next to each other of the same kind run together: reads at once (ethers
 * puts the estimates and lookups of many sends in one batch), and eth_sendTransaction with their checks and broadcasts
 * overlapping but their nonces taken in the batch's order. Anything else (a signature, a method txdesk does not know)
 * runs alone. A group starts once the one before it has ended, so a read after a send sees the send.
 */
async function runBatch(entries: readonly unknown[], call: Call, requester: Requester): Promise<unknown[]> {
  const replies: unknown[] = new Array(entries.length);
  let group: { kind: 'read' | 'send'; running: Promise<void>[]; next: ReturnType<typeof turns> } | null = null;
  for (const [i, entry] of entries.entries()) {
    const kind = kindOf(entry);
    if (group && group.kind !== kind) {
      await Promise.all(group.running);
      group = null;
    }
    const answer = (inTurn?: InTurn) => one(entry, call, requester, inTurn).then((r) => void (replies[i] = r));
    if (kind === 'alone') {
      await answer();
      continue;
    }
    group ??= { kind, running: [], next: turns() };
    if (kind === 'read') group.running.push(answer());
    else {
      // A transaction refused before its turn (a revert, a decline) passes it on when it ends.
      const turn = group.next();
      group.running.push(answer(turn.inTurn).finally(turn.passed));
    }
  }
  if (group) await Promise.all(group.running);
  return replies;
}
