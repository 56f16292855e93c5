// The renderer's network bookkeeping: a record of another chain never joins the dashboard, which AppInfo counts as
// another network, and how a network is named.
import { describe, expect, it } from 'vitest';
import type { AppInfo } from '../../src/shared/desktop-api.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { networkLabel, watchedNote } from '../../src/renderer/src/lib/network-words.js';
import { isOtherNetwork } from '../../src/renderer/src/store/slices/network-slice.js';
import { onShownChain } from '../../src/renderer/src/store/tx-logic.js';

const rec = (chainId?: number) => ({ transactionHash: '0xa', ...(chainId !== undefined ? { chainId } : {}) }) as TxRecord;
const info = (o: Partial<AppInfo>): AppInfo =>
  ({
    mode: 'embedded',
    chainId: 31337,
    nodeUrl: 'n',
    serviceUrl: 's',
    platform: 'ethereum',
    network: 'local',
    address: null,
    status: {} as AppInfo['status'],
    ...o,
  }) as AppInfo;

describe('onShownChain', () => {
  it.each([
    ['the chain shown', 31337, 31337, true],
    ['another chain', 31338, 31337, false],
    ['a record without a chain (an older core)', undefined, 31337, true],
    ['a dashboard that does not know its chain yet', 31338, null, true],
  ])('%s', (_name, chainId, shown, expected) => expect(onShownChain(rec(chainId), shown)).toBe(expected));
});

describe('isOtherNetwork', () => {
  it.each([
    ['nothing shown yet', null, info({}), true],
    ['the same network', info({}), info({ address: '0xb' }), false],
    ['another network name', info({}), info({ network: 'local-2' }), true],
    ['another chain under the same name', info({}), info({ chainId: 1 }), true],
  ])('%s', (_name, shown, next, expected) => expect(isOtherNetwork(shown, next)).toBe(expected));
});

describe('network words', () => {
  it('names a network with its chain when known', () => {
    expect(networkLabel({ platform: 'ethereum', network: 'local-2', chainId: 31338 })).toBe('ethereum/local-2 · chain 31338');
    expect(networkLabel({ platform: 'ethereum', network: 'sepolia', chainId: null })).toBe('ethereum/sepolia');
  });
  it('says what is still watched on a network not shown', () => {
    expect(watchedNote({ active: false, openNonces: 1 })).toBe('1 open transaction, still watched and settled');
    expect(watchedNote({ active: false, openNonces: 0 })).toBeNull();
    expect(watchedNote({ active: true, openNonces: 3 })).toBeNull();
  });
});
