// One JSON-RPC call over fetch, for the calls the service makes rarely (node probes, the chain id at start-up): the
// errors of lib/json-rpc.ts's jsonRpcCall (RpcError, so node-choice.ts classifies them as before), except that
// back-pressure (HTTP 429, a provider's capacity error) is a NodeBackPressure carrying the node's Retry-After.
import { RpcError } from '../../lib/json-rpc.js';
import { backPressureIn } from './node-budget.js';
import { NodeBackPressure } from './node-throttle.js';

let nextId = 1;

export async function callNode<T = unknown>(
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
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      ...(options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
    });
  } catch (e) {
    throw new RpcError('unreachable', `The node at ${url} could not be reached (${(e as Error).name}).`, method);
  }
  const text = await res.text().catch(() => '');
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: a gateway's page; the status decides below.
  }
  const pushBack = backPressureIn(res.status, res.headers.get('retry-after'), body, Date.now());
  if (pushBack) throw new NodeBackPressure(url, pushBack.retryAfterMs);
  if (res.status >= 500) throw new RpcError('unreachable', `The node at ${url} answered HTTP ${res.status}.`, method);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new RpcError('unreachable', `The node at ${url} sent a response that is not JSON-RPC.`, method);
  const answer = body as { result?: T; error?: { code: number; message: string; data?: unknown } };
  if (answer.error) throw new RpcError(answer.error.code, String(answer.error.message), method, answer.error.data);
  return answer.result as T;
}
