// One JSON-RPC call over fetch, for the calls the service makes rarely (node probes, the chain id at start-up): the
// errors of lib/json-rpc.ts's jsonRpcCall (RpcError, so node-choice.ts classifies them as before), except that
// back-pressure (HTTP 429, a provider's capacity error) is a NodeBackPressure carrying the node's Retry-After.
import { readRpcAnswer, takeRpcIds, unreachableNode } from '../../lib/json-rpc.js';
import { backPressureIn } from './node-budget.js';
import { NodeBackPressure } from './node-throttle.js';

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
      body: JSON.stringify({ jsonrpc: '2.0', id: takeRpcIds(1), method, params }),
      ...(options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
    });
  } catch (e) {
    throw unreachableNode(url, (e as Error).name, method);
  }
  const text = await res.text().catch(() => '');
  const pushBack = backPressureIn(res.status, res.headers.get('retry-after'), parsedOrNull(text), Date.now());
  if (pushBack) throw new NodeBackPressure(url, pushBack.retryAfterMs);
  return readRpcAnswer<T>(url, method, res.status, text);
}

/** The body as JSON, or null for a gateway's page: back-pressure is read from the status when the body says nothing. */
function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
