// One JSON-RPC call to an Ethereum node over HTTP, and the one error it fails with: the node's own error (its code and
// message, unchanged, since callers classify refusals by them) or `unreachable` (no answer, HTTP 5xx/429, not JSON-RPC).

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

let nextId = 1;

export async function jsonRpcCall<T = unknown>(url: string, method: string, params: unknown[], options: { timeoutMs?: number } = {}): Promise<T> {
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
  if (res.status >= 500 || res.status === 429) throw new RpcError('unreachable', `The node at ${url} answered HTTP ${res.status}.`, method);
  const body = (await res.json().catch(() => null)) as { result?: T; error?: { code: number; message: string; data?: unknown } } | null;
  if (!body || typeof body !== 'object') throw new RpcError('unreachable', `The node at ${url} sent a response that is not JSON-RPC.`, method);
  if (body.error) throw new RpcError(body.error.code, String(body.error.message), method, body.error.data);
  return body.result as T;
}
