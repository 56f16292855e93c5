// What the benches that load a chain with transfers share: plain JSON-RPC calls, transfers signed ahead (no node round
// trip per signature) and broadcast in batches, percentiles, and a process's CPU time.
import { readFileSync } from 'node:fs';
import { Transaction, Wallet } from 'ethers';

/** `--name <number>` from argv, else `fallback`. */
export const numberArg = (args, name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The p-th percentile (nearest rank); NaN for no values. */
export const pct = (xs, p) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** One JSON-RPC call; `headers` are added to the request (a bearer token, say). */
export async function rpc(url, method, params, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** `calls` as [method, params] pairs, in one JSON-RPC batch; the replies as the node sent them. */
export async function rpcBatch(url, calls) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((c, i) => ({ jsonrpc: '2.0', id: i, method: c[0], params: c[1] }))),
  });
  return res.json();
}

/** Signs `count` 1-wei transfers round-robin over the senders' keys, continuing from `nonces` (advanced in place). */
export function signTransfers(keys, nonces, count, chainId = 31337n) {
  const signers = keys.map((k) => new Wallet(k).signingKey);
  const out = [];
  for (let i = 0; i < count; i++) {
    const s = i % keys.length;
    const tx = Transaction.from({
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
      nonce: nonces[s]++,
      gasLimit: 21_000n,
      maxFeePerGas: 200_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      chainId,
      type: 2,
    });
    tx.signature = signers[s].sign(tx.unsignedHash);
    out.push({ raw: tx.serialized, hash: tx.hash.toLowerCase() });
  }
  return out;
}

/** Sends signed transactions in batches of 500; the first refusal throws. */
export async function broadcast(url, txs) {
  for (let i = 0; i < txs.length; i += 500) {
    const replies = await rpcBatch(
      url,
      txs.slice(i, i + 500).map((t) => ['eth_sendRawTransaction', [t.raw]]),
    );
    const failed = replies.find((r) => r.error);
    if (failed) throw new Error(`eth_sendRawTransaction: ${failed.error.message}`);
  }
}

/** CPU ms a process has used so far (Linux /proc, USER_HZ 100; null elsewhere). */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}
