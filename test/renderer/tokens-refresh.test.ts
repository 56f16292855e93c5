// The token slice's refresh action over a fake DesktopApi: pending while the service is asked, then the page and the
// token's metadata are loaded again; a refusal stays on the token as its one sentence.
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../../src/renderer/src/store/index.js';
import type { DesktopApi } from '../../src/shared/desktop-api.js';
import type { TokenPage } from '../../src/shared/listing.js';

const owner = '0x' + 'a'.repeat(40);
const contract = '0x' + '1'.repeat(40);
const page = (uri: string): TokenPage => ({
  data: [
    { id: '7', owner, uri, balance: '3', contract: { address: contract, name: 'G', symbol: 'G', totalSupply: 1, standard: 'ERC1155' } },
  ],
  pagination: { totalCount: 1, prevUrl: '', nextUrl: '' },
});

function fakeApi(refresh: () => Promise<void>) {
  let uri = 'ipfs://old';
  const api = {
    listTokens: vi.fn(async () => page(uri)),
    resolveTokenMetadata: vi.fn(async (uris: string[]) => Object.fromEntries(uris.map((u) => [u, { name: u }]))),
    refreshToken: vi.fn(async () => {
      await refresh();
      uri = 'ipfs://new';
    }),
  };
  // Everything else of the DesktopApi is unused here.
  return new Proxy(api, { get: (t, k) => (k in t ? t[k as keyof typeof t] : vi.fn(async () => undefined)) }) as unknown as DesktopApi &
    typeof api;
}

describe('token refresh in the store', () => {
  it('marks the token pending, asks the core, then reloads the page with the new uri', async () => {
    const api = fakeApi(async () => {});
    const store = createAppStore(api);
    store.setState({ tokenControls: { ...store.getState().tokenControls, owner } });
    await store.getState().loadTokens();
    expect(store.getState().tokenPage?.data[0]?.uri).toBe('ipfs://old');
    const running = store.getState().refreshToken(contract, '7');
    expect(store.getState().tokenRefresh[`${contract}:7`]).toEqual({ state: 'pending' });
    await running;
    expect(api.refreshToken).toHaveBeenCalledWith(contract, '7');
    expect(store.getState().tokenRefresh[`${contract}:7`]).toBeUndefined();
    expect(store.getState().tokenPage?.data[0]?.uri).toBe('ipfs://new');
    expect(api.listTokens).toHaveBeenCalledTimes(2);
  });

  it('keeps the refusal sentence on the token', async () => {
    const api = fakeApi(async () =>
      Promise.reject({ code: 'RATE_LIMITED', message: 'Too many token refreshes for this clientId; try again in 2 s.' }),
    );
    const store = createAppStore(api);
    store.setState({ tokenControls: { ...store.getState().tokenControls, owner } });
    await store.getState().refreshToken(contract, '7');
    expect(store.getState().tokenRefresh[`${contract}:7`]).toEqual({
      state: 'error',
      message: 'Too many token refreshes for this clientId; try again in 2 s.',
    });
  });
});
