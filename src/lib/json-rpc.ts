// JSON-RPC to an Ethereum node over HTTP: the one error a call fails with (the node's own error, its code and message
// unchanged since callers classify refusals by them, or `unreachable`: no answer, HTTP 5xx/429, not JSON-RPC), how an
// answer to one call or to a batch is read, and one call over fetch for the paths that call rarely (probes, the dev
// chain's set-up). The core's chain adapter sends its calls in batches over kept-alive connections and reads the
// answers with the same functions. No HTTP client is imported here: the core's services import RpcError.

export class RpcError extends Error {
  constructor(
    readonly code: number | 'unreachable',
    message: string,
    readonly method?: string,
    /** The error's `data` as the node sent it (a revert's encoded reason, say), when it sent one. */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** The code of an RpcTimeoutError (json-rpc-ws.ts): no answer in time, told apart by code, not by its words. */
export const RPC_TIMEOUT = 'RPC_TIMEOUT';

/**
 * Whether a node's error to eth_call / eth_estimateGas says the call failed inside the EVM (it reverts, or the contract
 * lacks the function): EIP-1474 code 3, or the wording nodes use without it. The one rule, for the app's checks before
 * signing and for the indexer (whose answer to such a call is "absent").
 */
export function isRevertAnswer(error: { code?: unknown; message?: unknown }): boolean {
  return (
    error.code === 3 ||
    /revert|evmerror|invalid opcode|out of gas|stack underflow|invalid jump|invalidfe/i.test(String(error.message ?? ''))
  );
}

/** A node that answered a batch with something other than an array of answers: it takes calls one at a time. */
export class BatchRefused extends Error {
  constructor(readonly url: string) {
    super(`The node at ${url} does not take JSON-RPC batches.`);
    this.name = 'BatchRefused';
  }
}

export interface RpcCallSpec {
  method: string;
  params: readonly unknown[];
}

type Answer = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

let nextId = 1;

/** Ids for `count` calls, unique in this process. */
export function takeRpcIds(count: number): number {
  const first = nextId;
  nextId += count;
  return first;
}

/** `reason` is why nothing answered: `TimeoutError` for no answer in time, `ECONNREFUSED` and the like otherwise. */
export const unreachableNode = (url: string, reason: string, method?: string) =>
  new RpcError('unreachable', `The node at ${url} could not be reached (${reason}).`, method);

const notJsonRpc = (url: string, method?: string) =>
  new RpcError('unreachable', `The node at ${url} sent a response that is not JSON-RPC.`, method);

/** The parsed body of an HTTP answer; `unreachable` for HTTP 5xx and 429, null for a body that is not JSON. */
function parsedAnswer(url: string, status: number, text: string, method?: string): unknown {
  if (status >= 500 || status === 429) throw new RpcError('unreachable', `The node at ${url} answered HTTP ${status}.`, method);
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const outcomeOf = (a: Answer, method?: string): unknown =>
  a.error ? new RpcError(a.error.code, String(a.error.message), method, a.error.data) : a.result;

/** The result of one call from the node's HTTP answer; throws its RpcError. */
export function readRpcAnswer<T>(url: string, method: string, status: number, text: string): T {
  const answer = parsedAnswer(url, status, text, method);
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) throw notJsonRpc(url, method);
  const out = outcomeOf(answer as Answer, method);
  if (out instanceof RpcError) throw out;
  return out as T;
}

/**
 * The outcomes of a batch (`calls` sent with ids from `firstId` on), lined up with the calls: each its result or its
 * RpcError, a call the node left out `unreachable`. Throws `unreachable` where a single call would have failed that
 * way (HTTP 5xx, 429), and BatchRefused when the node answered, but not with a batch (some hosted nodes refuse them):
 * then none of the calls ran, and they may be sent one at a time.
 */
export function readRpcBatchAnswer(url: string, calls: readonly RpcCallSpec[], firstId: number, status: number, text: string): unknown[] {
  const answer = parsedAnswer(url, status, text);
  if (!Array.isArray(answer)) throw new BatchRefused(url);
  const out: unknown[] = new Array(calls.length);
  const answered = new Set<number>();
  for (const a of answer as Answer[]) {
    const i = typeof a?.id === 'number' ? a.id - firstId : -1;
    if (i < 0 || i >= calls.length) continue;
    out[i] = outcomeOf(a, calls[i]!.method);
    answered.add(i);
  }
  // Errors only for the calls left out: an Error records its stack, which costs more than reading the answer.
  for (const [i, c] of calls.entries()) {
    if (!answered.has(i))
      out[i] = new RpcError('unreachable', `The node at ${url} left ${c.method} out of its answer to a batch.`, c.method);
  }
  return out;
}

/** One call over fetch, for the paths that call rarely; the core's chain adapter does not come this way. */
export async function jsonRpcCall<T = unknown>(
  url: string,
  method: string,
  params: unknown[],
  options: { timeoutMs?: number } = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: takeRpcIds(1), method, params }),
      ...(options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
    });
  } catch (e) {
    throw unreachableNode(url, (e as Error).name, method);
  }
  const text = await res.text().catch(() => '');
  return readRpcAnswer<T>(url, method, res.status, text);
}
