// The network list and switch decisions (src/core/domain/networks.ts) as tables: what the service serves joined with
// the nodes the app knows and the networks it has open, and the sentence for each network it cannot switch to.
import { describe, expect, it } from 'vitest';
import {
  networkList,
  nodeUrlFor,
  switchRefusal,
  unavailableReason,
  type KnownNetwork,
  type ServedNetwork,
} from '../../../src/core/domain/networks.js';

const local: ServedNetwork = { platform: 'ethereum', network: 'local', chainId: 31337, isDefault: true, state: 'serving' };
const local2: ServedNetwork = { platform: 'ethereum', network: 'local-2', chainId: 31338, isDefault: false, state: 'serving' };
const sepolia: ServedNetwork = { platform: 'ethereum', network: 'sepolia', chainId: 11155111, isDefault: false, state: 'starting' };
const node = (n: ServedNetwork, nodeUrl = `http://${n.network}:8545`): KnownNetwork => ({
  platform: n.platform,
  network: n.network,
  chainId: n.chainId,
  nodeUrl,
});

describe('networkList', () => {
  it("keeps the service's order, marks the active one and says why a network without a node cannot be chosen", () => {
    const rows = networkList({
      served: [local, local2, sepolia],
      known: [node(local), node(local2)],
      opened: [{ ...local, chainId: 31337, openNonces: 2 }],
      active: local2,
    });
    expect(rows.map((r) => [r.network, r.active, r.nodeUrl, r.openNonces, r.unavailable])).toEqual([
      ['local', false, 'http://local:8545', 2, null],
      ['local-2', true, 'http://local-2:8545', 0, null],
      ['sepolia', false, null, 0, 'No node URL is set for ethereum/sepolia: add one under Settings → Networks to switch to it.'],
    ]);
    expect(rows[2]).toMatchObject({ chainId: 11155111, state: 'starting', isDefault: false });
  });

  it('lists the networks the app knows when the service cannot be asked, once each, state unknown', () => {
    const rows = networkList({
      served: null,
      known: [node(local), node(local), node(local2)],
      opened: [{ ...local, chainId: 31337, openNonces: 0 }],
      active: local,
    });
    expect(rows.map((r) => [r.network, r.state, r.unavailable])).toEqual([
      ['local', 'unknown', null],
      ['local-2', 'unknown', null],
    ]);
  });

  it('lists a saved node of a network the service does not serve, and refuses it', () => {
    const holesky: ServedNetwork = { platform: 'ethereum', network: 'holesky', chainId: null, isDefault: false, state: 'unknown' };
    const rows = networkList({ served: [local], known: [node(local), node(holesky)], opened: [], active: local });
    expect(rows.map((r) => r.network)).toEqual(['local', 'holesky']);
    expect(rows[1]!.unavailable).toMatch(/^The data service does not serve ethereum\/holesky; remove its node URL/);
  });
});

describe('unavailableReason and switchRefusal', () => {
  it.each([
    ['served, with a node', local2, { hasNode: true, listedByService: true }, null],
    ['no node', local2, { hasNode: false, listedByService: true }, /^No node URL is set for ethereum\/local-2/],
    [
      'wrong chain',
      { ...local2, state: 'wrong-chain' as const },
      { hasNode: true, listedByService: true },
      /stopped serving ethereum\/local-2 because its node is on another chain/,
    ],
    ['not served', local2, { hasNode: true, listedByService: false }, /does not serve ethereum\/local-2/],
  ])('%s', (_name, n, o, expected) => {
    const r = unavailableReason(n, o);
    if (expected === null) expect(r).toBeNull();
    else expect(r).toMatch(expected);
  });

  it('refuses a network nobody lists, naming those that are', () => {
    const rows = networkList({ served: [local, local2], known: [node(local), node(local2)], opened: [], active: local });
    expect(switchRefusal({ platform: 'ethereum', network: 'mainnet' }, rows)).toBe(
      'The data service does not serve ethereum/mainnet; switch to one it serves (ethereum/local, ethereum/local-2).',
    );
    expect(switchRefusal(local2, rows)).toBeNull();
  });
});

describe('nodeUrlFor', () => {
  const o = {
    start: node(local, 'http://start'),
    embedded: [node(local2, 'http://dev-2')],
    saved: { 'ethereum/sepolia': 'https://rpc.sepolia', 'ethereum/local': 'http://ignored' },
  };
  it.each([
    ['the start network: its own node, never a saved one', local, 'http://start'],
    ['an embedded dev chain', local2, 'http://dev-2'],
    ['a saved node', sepolia, 'https://rpc.sepolia'],
    ['none known', { platform: 'ethereum', network: 'holesky' }, null],
  ])('%s', (_name, n, expected) => expect(nodeUrlFor(n, o)).toBe(expected));
});
