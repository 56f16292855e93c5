// Minimal JSON-RPC over fetch, for anvil's own methods (anvil_*, evm_*) and readiness checks, without an ethers provider.

let nextId = 1;

export async function rpcCall<T = unknown>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new RpcError(method, body.error.code, body.error.message);
  return body.result as T;
}

export class RpcError extends Error {
  constructor(readonly method: string, readonly code: number, message: string) {
    super(`${method}: ${message}`);
    this.name = 'RpcError';
  }
}
