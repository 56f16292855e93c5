// Baseline for the metadata part of catch-up: N tokenURI eth_calls as plain JSON-RPC batches (1,000 calls per batch,
// 4 in flight, the indexer's former transport) against the indexer's ChainReader, which packs them (CallBatch).
import { createChainReader } from '../../dist/service/indexer/indexer-rpc.js';

async function plainBatches(url, requests, block) {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const start = next;
      next += 1000;
      const body = requests
        .slice(start, start + 1000)
        .map((r, j) => ({ jsonrpc: '2.0', id: start + j, method: 'eth_call', params: [r, block] }));
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      JSON.parse(await res.text());
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

/** Calls per second both ways, reading tokenURI of ids 0..n-1 of `address` at `block`. */
export async function measureUriReads(url, address, n, block) {
  const requests = Array.from({ length: n }, (_, i) => ({ to: address, data: '0xc87b56dd' + i.toString(16).padStart(64, '0') }));
  const tag = '0x' + block.toString(16);
  let t = performance.now();
  await plainBatches(url, requests, tag);
  const plain = n / ((performance.now() - t) / 1000);
  const chain = createChainReader(url);
  t = performance.now();
  await chain.calls(requests, block);
  const packed = n / ((performance.now() - t) / 1000);
  chain.destroy();
  return { plain, packed };
}
