// A network whose start fails half-way (its store refusing a read at that moment) is started again by itself: the
// failed step is retried, not left for a node change that may never come.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { createShutdown } from '../../../src/lib/shutdown.js';
import type { Logger } from '../../../src/lib/log.js';
import { openBackend } from '../../../src/service/backend.js';
import { startServedNetwork, type ServedNetwork } from '../../../src/service/network/served-network.js';
import { waitFor } from '../../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-served-retry-'));
const shutdown = createShutdown(() => {});
let anvil: RunningAnvil | undefined;
let network: ServedNetwork | undefined;

afterAll(async () => {
  await network?.stop();
  await shutdown.run();
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('starts the network after its store refused the reads of its chain identity at start', async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  const lines: string[] = [];
  const log: Logger = { info: () => {}, warn: (m) => void lines.push(m), error: (m) => void lines.push(m), child: () => log };
  const backend = await openBackend({ dataDir: dir, log }, shutdown);
  const stores = await backend.openNetwork('ethereum/local', true);
  // The real SQLite identity store, with refusals injected in front of it, as a database restarting would give.
  // Three: the listing's check of the stored stamp before the first probe (it keeps the index unserved until a node
  // answers), then the start reads it once when the first node answers and once more as startServedNetwork resolves.
  let refusals = 3;
  const identity = {
    read: () => (refusals-- > 0 ? Promise.reject(new Error('the database is not answering')) : stores.identity.read()),
    write: stores.identity.write,
  };
  network = await startServedNetwork({
    config: { platform: 'ethereum', network: 'local', nodeUrls: [anvil.url], indexerLag: 0 },
    isDefault: true,
    stores: { ...stores, identity },
    isClientId: () => true,
    probeMs: 100,
    log,
  });
  expect(network.state()).toBe('starting');
  expect(lines).toContain('ethereum/local: the database is not answering; trying again in 2 s');
  await waitFor('the network started on the second try', () => network!.state() === 'serving', { timeoutMs: 20_000 });
  await network.caughtUp();
  expect(network.roles()).toEqual(['indexer-leader', 'watcher-leader']);
});
