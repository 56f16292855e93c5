// The window opens before the core is up: calls made meanwhile wait for it, and subscriptions attach when it is ready.
import { describe, expect, it } from 'vitest';
import { deferredApi } from '../../src/main/deferred-api.js';
import type { DesktopApi } from '../../src/shared/desktop-api.js';
import type { TxRecord } from '../../src/shared/tx-record.js';

describe('deferredApi', () => {
  it('queues calls and subscriptions until the core has started', async () => {
    let resolve!: (api: DesktopApi) => void;
    const api = deferredApi(new Promise((r) => (resolve = r)));
    const listeners: ((r: TxRecord) => void)[] = [];
    const seen: string[] = [];
    const off = api.onTransactionChanged((r) => seen.push(r.transactionHash));
    const pending = api.listTransactions();
    resolve({
      listTransactions: async () => [{ transactionHash: '0x1' } as TxRecord],
      onTransactionChanged: (l: (r: TxRecord) => void) => {
        listeners.push(l);
        return () => listeners.splice(listeners.indexOf(l), 1);
      },
    } as unknown as DesktopApi);
    expect(await pending).toEqual([{ transactionHash: '0x1' }]);
    listeners.forEach((l) => l({ transactionHash: '0x2' } as TxRecord));
    expect(seen).toEqual(['0x2']);
    off();
    expect(listeners).toHaveLength(0);
  });

  it('rejects calls when the core fails to start', async () => {
    const api = deferredApi(Promise.reject(new Error('no chain')));
    await expect(api.getAppInfo()).rejects.toThrow('no chain');
    expect(() => api.onDevchainStatus(() => {})()).not.toThrow();
  });
});
