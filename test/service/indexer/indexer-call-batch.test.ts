// The indexer's packed eth_calls and fast string decoding give exactly the answers of the slow paths they replace:
// ethers' ABI decoder for strings, and one plain eth_call per request on a real anvil.
import { spawnSync } from 'node:child_process';
import { AbiCoder, ContractFactory, Interface, JsonRpcProvider, NonceManager, Wallet, type InterfaceAbi } from 'ethers';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevchain, type Devchain } from '../../../src/devchain/devchain.js';
import {
  chunkCalls,
  decodeCallBatch,
  encodeCallBatch,
  scanCallBatchAnswer,
  type CallRequest,
} from '../../../src/service/indexer/indexer-call-batch.js';
import { decodeAbiString, readContractMeta } from '../../../src/service/indexer/indexer-metadata.js';
import { compileSolidity } from '../../../scripts/solc-compile.js';
import { createChainReader, type ChainReader } from '../../../src/service/indexer/indexer-rpc.js';

const coder = AbiCoder.defaultAbiCoder();

/** What ethers makes of `data` as an ABI string: the string, or null when it refuses. */
function ethersDecode(data: string): string | null {
  try {
    return String(coder.decode(['string'], data)[0]);
  } catch {
    return null;
  }
}

describe('decodeAbiString', () => {
  it('decodes every ABI-encoded string exactly as ethers does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const data = coder.encode(['string'], [s]);
        expect(decodeAbiString(data)).toBe(ethersDecode(data));
      }),
      { numRuns: 1000 },
    );
  });

  it('never accepts what ethers refuses, and never disagrees with it, on corrupted encodings', () => {
    const encoded = fc.string({ maxLength: 80 }).map((s) => Buffer.from(coder.encode(['string'], [s]).slice(2), 'hex'));
    const corrupted = fc.tuple(encoded, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat({ max: 40 })).map(([b, at, byte, cut]) => {
      const copy = Buffer.from(b);
      copy[at % copy.length] = byte;
      return '0x' + copy.subarray(0, Math.max(0, copy.length - cut)).toString('hex');
    });
    fc.assert(
      fc.property(
        fc.oneof(
          corrupted,
          fc.uint8Array({ maxLength: 200 }).map((u) => '0x' + Buffer.from(u).toString('hex')),
        ),
        (data) => {
          const fast = decodeAbiString(data);
          // null means "let ethers decide"; anything else must be ethers' own answer.
          if (fast !== null) expect(fast).toBe(ethersDecode(data));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('chunkCalls', () => {
  const call = (dataBytes: number): CallRequest => ({ to: '0x' + '11'.repeat(20), data: '0x' + 'ab'.repeat(dataBytes) });
  const rows: [string, CallRequest[], number, [number, number][]][] = [
    ['no calls', [], 100, []],
    ['one call larger than a chunk still gets a chunk', [call(500)], 100, [[0, 1]]],
    ['calls that fit together', [call(10), call(10), call(10)], 100, [[0, 3]]],
    [
      'a split exactly at the limit (22 + 28 bytes each)',
      [call(28), call(28), call(28)],
      100,
      [
        [0, 2],
        [2, 3],
      ],
    ],
    [
      'one call a chunk when each fills it',
      [call(78), call(78)],
      100,
      [
        [0, 1],
        [1, 2],
      ],
    ],
  ];
  it.each(rows)('%s', (_what, calls, max, expected) => {
    expect(chunkCalls(calls, max)).toEqual(expected);
  });
});

describe('scanCallBatchAnswer', () => {
  const head = '0x08c379a0' + AbiCoder.defaultAbiCoder().encode(['string'], ['txdesk-call-batch-v2']).slice(2);
  const entry = fc.record({ failed: fc.boolean(), data: fc.uint8Array({ maxLength: 70 }) });
  const batch = (entries: { failed: boolean; data: Uint8Array }[]) =>
    head +
    entries
      .map((e) => (e.failed ? '8' : '0') + e.data.length.toString(16).padStart(63, '0') + Buffer.from(e.data).toString('hex'))
      .join('');
  /** The JSON path of indexer-rpc.ts: the revert data, else the result, decoded from a string. */
  const jsonPath = (text: string, count: number) => {
    const a = JSON.parse(text) as { result?: unknown; error?: { data?: unknown } };
    const data = typeof a.error?.data === 'string' ? a.error.data : a.result;
    return typeof data === 'string' ? decodeCallBatch(data, count) : null;
  };

  it('reads what the JSON path reads, from the revert data or the result, and leaves the bytes as they were (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 8 }),
        fc.boolean(),
        fc.constantFrom(undefined, 1),
        fc.string({ maxLength: 8 }),
        (entries, reverted, space, note) => {
          const data = batch(entries);
          const answer = reverted
            ? { jsonrpc: '2.0', id: 1, error: { code: 3, message: `execution reverted: ${note}`, data } }
            : { jsonrpc: '2.0', id: 1, result: data };
          const text = JSON.stringify(answer, null, space);
          const bytes = Buffer.from(text);
          const scanned = scanCallBatchAnswer(bytes, entries.length);
          // An escape in the message (a quote, a backslash) is left to JSON.parse; anything else is read here.
          if (text.includes('\\')) expect(scanned === null || scanned.length === entries.length).toBe(true);
          else expect(scanned).toEqual(jsonPath(text, entries.length));
          expect(scanned ?? jsonPath(text, entries.length)).toEqual(
            entries.map((e) => (e.failed ? undefined : '0x' + Buffer.from(e.data).toString('hex'))),
          );
          expect(bytes.toString()).toBe(text);
        },
      ),
    );
  });

  it.each([
    ['an answer without the batch head', JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x' + '00'.repeat(64) })],
    ['a batch answer (an array)', JSON.stringify([{ jsonrpc: '2.0', id: 1, result: '0x' }])],
    ['an error without data', JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'out of gas' } })],
    ['an HTML page', '<html>502 Bad Gateway</html>'],
    ['a cut answer', JSON.stringify({ jsonrpc: '2.0', id: 1, result: batch([{ failed: false, data: new Uint8Array(40) }]) }).slice(0, 300)],
  ])('declines %s', (_, text) => {
    expect(scanCallBatchAnswer(Buffer.from(text), 1)).toBeNull();
  });
});

describe('packed eth_calls on anvil', () => {
  let chain: Devchain;
  let reader: ChainReader;
  beforeAll(async () => {
    chain = await startDevchain({ port: 0, blockTimeSeconds: 1 });
    reader = createChainReader(chain.nodeUrl);
  });
  afterAll(async () => {
    reader?.destroy();
    await chain?.stop();
  });

  /** One plain eth_call; null when it reverts, as ChainReader.calls promises. */
  async function plainCall(r: CallRequest, block: number): Promise<string | null> {
    const res = await fetch(chain.nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [r, '0x' + block.toString(16)] }),
    });
    const body = (await res.json()) as { result?: string; error?: unknown };
    return body.error ? null : body.result!;
  }

  it('answers every request as a plain eth_call would: results, reverts, missing functions and empty accounts', async () => {
    const erc721 = new Interface([
      'function tokenURI(uint256) view returns (string)',
      'function totalSupply() view returns (uint256)',
      'function name() view returns (string)',
    ]);
    const [tiles, pebbles] = [chain.collections.find((c) => c.kind === 'full')!, chain.collections.find((c) => c.kind === 'minimal')!];
    const requests: CallRequest[] = [];
    // Minted ids answer, unminted ids revert; the minimal collection has no tokenURI at all.
    for (let id = 0; id <= 30; id++) requests.push({ to: tiles.address, data: erc721.encodeFunctionData('tokenURI', [id]) });
    for (let id = 0; id <= 5; id++) requests.push({ to: pebbles.address, data: erc721.encodeFunctionData('tokenURI', [id]) });
    requests.push({ to: tiles.address, data: erc721.encodeFunctionData('totalSupply') });
    requests.push({ to: pebbles.address, data: erc721.encodeFunctionData('totalSupply') });
    requests.push({ to: chain.erc20.address, data: erc721.encodeFunctionData('name') });
    requests.push({ to: chain.accounts[7]!.address, data: erc721.encodeFunctionData('name') });
    const block = await reader.blockNumber();

    const packed = await reader.calls(requests, block);
    const plain = await Promise.all(requests.map((r) => plainCall(r, block)));

    expect(packed).toEqual(plain);
    // The cases really are mixed, so the comparison covers each kind of answer.
    expect(plain.filter((p) => p === null).length).toBeGreaterThan(5);
    expect(plain.filter((p) => p !== null && p.length > 2).length).toBeGreaterThan(20);
    expect(plain).toContain('0x');
  });

  it('reads the metadata of a contract whose name and symbol are bytes32 (old tokens), which only ethers decodes', async () => {
    const source = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract OldToken {
  bytes32 public name = "Maker";
  bytes32 public symbol = "MKR";
  function tokenURI(uint256) external pure returns (string memory) { return "ipfs://old"; }
}`;
    const art = compileSolidity({ 'O.sol': source }, { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris' }).contracts['O.sol']!
      .OldToken!;
    const provider = new JsonRpcProvider(chain.nodeUrl, undefined, { staticNetwork: true, pollingInterval: 200 });
    const deployer = new NonceManager(new Wallet(chain.accounts[9]!.privateKey, provider));
    const token = await new ContractFactory(art.abi as InterfaceAbi, art.bytecode, deployer).deploy();
    await token.waitForDeployment();
    const block = await reader.blockNumber();
    const [meta] = await readContractMeta(
      reader,
      [{ address: (await token.getAddress()).toLowerCase(), probeId: 1n, byEvents: 'ERC721' }],
      block,
    );
    expect(meta).toEqual({ name: 'Maker', symbol: 'MKR', totalSupply: null, hasUri: true, standard: 'ERC721' });
    provider.destroy();
  });

  it("gets a CallBatch answer from the node itself (no fallback), with the node's error message kept short", async () => {
    const erc721 = new Interface(['function tokenURI(uint256) view returns (string)']);
    const tiles = chain.collections.find((c) => c.kind === 'full')!;
    const requests = Array.from(
      { length: 200 },
      (_, i): CallRequest => ({ to: tiles.address, data: erc721.encodeFunctionData('tokenURI', [(i % 10) + 1]) }),
    );
    const block = await reader.blockNumber();
    const res = await fetch(chain.nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ data: encodeCallBatch(requests) }, '0x' + block.toString(16)],
      }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const body = JSON.parse(bytes.toString()) as { error: { message: string; data: string } };
    const decoded = decodeCallBatch(body.error.data, requests.length);
    expect(decoded).toEqual(await Promise.all(requests.map((r) => plainCall(r, block))));
    // Read from the answer's bytes, the same (the path the reader takes).
    expect(scanCallBatchAnswer(bytes, requests.length)).toEqual(decoded);
    // The revert reason the node shows is the batch's short head, not the whole answer rendered as text (anvil
    // escaped the old head's answer into a message three times the size of the data).
    expect(body.error.message.length).toBeLessThan(100);
    expect(body.error.message).toContain('txdesk-call-batch-v2');
  });
});

it('the init code embedded in indexer-call-batch.ts is what contracts/indexer/CallBatch.sol compiles to', () => {
  const run = spawnSync(process.execPath, ['scripts/check-call-batch.js'], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
});
