// No anvil outlives its parent: a child process starts the dev chain (real module), is killed with SIGKILL, and its anvil must go too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { startAnvil } from '../../src/devchain/devchain.js';
import { buildDevchainForChild, isAlive, repoRoot, rpc } from '../support/chain/devchain-helpers.js';
import { waitFor } from '../support/poll.js';

describe('anvil lifetime', () => {
  let build: ReturnType<typeof buildDevchainForChild>;
  const children: ChildProcess[] = [];
  const leftovers: number[] = [];

  beforeAll(() => {
    build = buildDevchainForChild();
  });
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    build?.dispose();
  });

  it('kills anvil when the process that started the dev chain is killed with SIGKILL', async () => {
    const child = spawn(process.execPath, [join(repoRoot, 'test', 'support', 'chain', 'devchain-child.mjs'), build.entryJs, 'high'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the fixture exited early (${code})`)));
    });
    const ready = JSON.parse(line) as { nodeUrl: string; anvilPid: number; chainId: number };
    leftovers.push(ready.anvilPid);
    expect(ready.chainId).toBe(31337);
    expect(isAlive(ready.anvilPid)).toBe(true);
    expect(await rpc<string>(ready.nodeUrl, 'eth_chainId')).toBe('0x7a69');

    child.kill('SIGKILL');
    await waitFor('anvil to exit after its parent was killed', () => !isAlive(ready.anvilPid), { timeoutMs: 30_000 });
    await expect(rpc(ready.nodeUrl, 'eth_chainId')).rejects.toThrow();
  });

  it.runIf(process.platform === 'linux')('kills anvil when its watchdog shell itself is killed with SIGKILL', async () => {
    const anvil = await startAnvil({ port: 0 });
    leftovers.push(anvil.pid);
    process.kill(anvil.watchdogPid, 'SIGKILL');
    await waitFor('anvil to exit after its watchdog was killed', () => !isAlive(anvil.pid), { timeoutMs: 30_000 });
    await anvil.stop(); // a no-op by now, and must not throw
  });

  it('stop() ends a bare anvil started with startAnvil', async () => {
    const anvil = await startAnvil({ port: 0 });
    leftovers.push(anvil.pid);
    expect(await rpc<string>(anvil.url, 'eth_chainId')).toBe('0x7a69');
    await anvil.stop();
    expect(isAlive(anvil.pid)).toBe(false);
    expect(isAlive(anvil.watchdogPid)).toBe(false);
  });
});
