// The networks of `txdesk service`: the --network flag's form, the configuration file, and the sentences for mistakes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseNetworkFlag, readNetworkConfigFile } from '../../../src/service/network/network-config.js';
import { networkPlace } from '../../../src/service/db/service-database.js';
import { LOCK_CLASS } from '../../../src/service/db/pg-locks.js';

const dir = mkdtempSync(join(tmpdir(), 'txdesk-network-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, body: string) => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};

describe('--network', () => {
  it('reads a platform, a network and one or more node URLs', () => {
    expect(parseNetworkFlag('ethereum/sepolia=https://a.example, wss://b.example/ws')).toEqual({
      platform: 'ethereum',
      network: 'sepolia',
      nodeUrls: ['https://a.example', 'wss://b.example/ws'],
    });
  });

  it('says what the form is when a part is missing or wrong', () => {
    expect(() => parseNetworkFlag('ethereum=https://a.example')).toThrow(
      '--network "ethereum=https://a.example" must look like <platform>/<network>=<node url>[,<node url>...], e.g. ethereum/sepolia=https://rpc.example.',
    );
    expect(() => parseNetworkFlag('ethereum/sepolia')).toThrow(/must look like/);
    expect(() => parseNetworkFlag('ethereum/sepolia=')).toThrow(
      "--network ethereum/sepolia: The part 'nodeUrls' must list at least one node URL.",
    );
    expect(() => parseNetworkFlag('Ethereum/sepolia=http://a')).toThrow(/platform.*lowercase letters, digits or dashes/);
    expect(() => parseNetworkFlag('ethereum/sepolia=ftp://a')).toThrow(
      'The node URL must start with http://, https://, ws:// or wss://; got "ftp://a".',
    );
  });
});

describe('--config', () => {
  it('reads every network with its optional chain id, indexer lag and start block', () => {
    const path = file(
      'ok.json',
      JSON.stringify({
        networks: [
          {
            platform: 'ethereum',
            network: 'mainnet',
            nodeUrls: ['https://a.example', 'https://b.example'],
            chainId: 1,
            indexerLag: 12,
            startBlock: 100,
          },
          { platform: 'ethereum', network: 'sepolia', nodeUrls: ['https://c.example'] },
        ],
      }),
    );
    expect(readNetworkConfigFile(path).map((n) => [n.network, n.nodeUrls.length, n.chainId, n.indexerLag, n.startBlock])).toEqual([
      ['mainnet', 2, 1, 12, 100],
      ['sepolia', 1, undefined, undefined, undefined],
    ]);
  });

  it('names the file and the field of a mistake', () => {
    expect(() => readNetworkConfigFile(join(dir, 'missing.json'))).toThrow(
      `Cannot read the configuration file ${join(dir, 'missing.json')}: it does not exist.`,
    );
    expect(() => readNetworkConfigFile(file('bad.json', '{'))).toThrow(/it is not JSON/);
    const twice = file(
      'twice.json',
      JSON.stringify({
        networks: [
          { platform: 'ethereum', network: 'a', nodeUrls: ['http://x'] },
          { platform: 'ethereum', network: 'a', nodeUrls: ['http://y'] },
        ],
      }),
    );
    expect(() => readNetworkConfigFile(twice)).toThrow(/names a network twice/);
    const extra = file(
      'extra.json',
      JSON.stringify({ networks: [{ platform: 'ethereum', network: 'a', nodeUrls: ['http://x'], chain: 1 }] }),
    );
    expect(() => readNetworkConfigFile(extra)).toThrow(/chain/);
    expect(() => readNetworkConfigFile(file('empty.json', '{"networks":[]}'))).toThrow(/at least one network/);
  });
});

describe('where a network lives in the shared database', () => {
  it("gives each network its own schema, lock class and channel suffix, never the default network's", () => {
    const a = networkPlace('ethereum/local-2');
    const b = networkPlace('ethereum/local');
    expect(a.schema).toMatch(/^net_[0-9a-f]{8}_ethereum_local_2$/);
    expect(a.schema).not.toBe(b.schema);
    expect(a.lockClass).not.toBe(b.lockClass);
    expect([a.lockClass, b.lockClass]).not.toContain(LOCK_CLASS);
    expect(networkPlace('x'.repeat(40) + '/' + 'y'.repeat(40)).schema.length).toBeLessThanOrEqual(63);
    expect(networkPlace('ethereum/local-2')).toEqual(a);
  });
});
