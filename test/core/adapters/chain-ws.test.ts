// The Chain adapter on a ws:// node (a real anvil): answers, a node that goes away is an `unreachable` RpcError at once
// (never an unhandled socket error that ends the process), and the next call after the node is back reconnects.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createJsonRpcChain } from '../../../src/core/adapters/chain/chain-jsonrpc.js';
import { RpcError } from '../../../src/lib/json-rpc.js';
import { anvilBinaryPath } from '../../../src/devchain/anvil-binary.js';
import { freePort } from '../../support/faults/reliability-procs.js';
import { waitFor } from '../../support/poll.js';

let anvil: ChildProcess | null = null;
const startAnvil = (port: number) => {
  anvil = spawn(anvilBinaryPath(), ['--port', String(port), '--chain-id', '11155111', '--silent'], { stdio: 'ignore' });
};
const stopAnvil = () =>
  new Promise<void>((r) => {
    if (!anvil || anvil.exitCode !== null) return r();
    anvil.once('exit', () => r());
    anvil.kill('SIGKILL');
  });

afterAll(stopAnvil);

/** The chain id once the restarted node answers (a refusal until then). */
const chainIdOnceBack = (chain: { chainId(): Promise<number> }) =>
  waitFor('the chain id from the restarted node', () => chain.chainId().catch(() => undefined), { timeoutMs: 15_000, everyMs: 200 });

describe('Chain over ws://', () => {
  it('answers, fails fast as unreachable when the node dies, and reconnects when it is back', async () => {
    const port = await freePort();
    const chain = createJsonRpcChain(`ws://127.0.0.1:${port}`, { timeoutMs: 3_000 });
    try {
      // Not there yet: refused, reported as unreachable rather than thrown from a socket event.
      const refused = await chain.chainId().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RpcError);
      expect((refused as RpcError).code).toBe('unreachable');
      expect((refused as RpcError).message).toMatch(/^The node at ws:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\)\.$/);

      startAnvil(port);
      expect(await chainIdOnceBack(chain)).toBe(11155111);
      expect(await chain.nonceCount('0x0000000000000000000000000000000000000001', 'latest')).toBe(0);

      await stopAnvil();
      const lost = await chain.latestBlock().catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(RpcError);
      expect((lost as RpcError).code).toBe('unreachable');

      startAnvil(port);
      expect(await chainIdOnceBack(chain)).toBe(11155111);
    } finally {
      await chain.close();
    }
  });
});
