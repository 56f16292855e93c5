// "Being sent": a token stays marked, with its transaction's state, until the listing moves it (gone, or a smaller
// balance) or the transaction ends without moving it (nonce replaced or cancelled, call reverted); the store and its
// watcher over a fake core ask the listing once the transaction is in a block, and reload the page then.
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../../src/renderer/src/store/index.js';
import { watchTokenSends } from '../../src/renderer/src/store/token-sends-watch.js';
import {
  awaitingListing,
  endedWithoutMoving,
  listingShowsMoved,
  pageCovers,
  settleTokenSends,
  tokenSendKey,
  tokenSendState,
  type TokenSend,
} from '../../src/renderer/src/store/token-sends.js';
import { recordsToMap } from '../../src/renderer/src/store/tx-logic.js';
import type { DesktopApi } from '../../src/shared/desktop-api.js';
import type { Token, TokenPage } from '../../src/shared/listing.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { rec as baseRecord } from '../support/app/core-records.js';

const me = '0x' + 'a1'.repeat(20);
const bob = '0x' + 'b0'.repeat(20);
const gems = { address: '0x' + 'c0'.repeat(20), name: 'Gems', symbol: 'GEM', totalSupply: 3, standard: 'ERC1155' as const };
const tiles = { address: '0x' + 'd0'.repeat(20), name: 'Tiles', symbol: 'TILE', totalSupply: 3, standard: 'ERC721' as const };

function rec(hash: string, p: Partial<TxRecord> = {}): TxRecord {
  return baseRecord({
    transactionHash: hash,
    from: me,
    nonce: 4,
    txType: 'eip1559',
    to: gems.address,
    input: '0xf242432a',
    gasLimit: '60000',
    createdAt: 't0',
    updatedAt: 't0',
    ...p,
  });
}

const send = (p: Partial<TokenSend> = {}): TokenSend => ({
  contract: gems.address,
  tokenId: '2',
  owner: me,
  to: bob,
  amount: '2',
  heldBefore: '5',
  hash: '0x1',
  label: 'Gems #2',
  ...p,
});
const gem = (balance: string, owner = me): Token => ({ id: '2', owner, uri: 'u', balance, contract: gems });
const whole = { owner: me, covers: () => true };

describe('being sent: pure bookkeeping', () => {
  it("follows its nonce's state in the one vocabulary", () => {
    expect(tokenSendState(send(), {})).toBeNull();
    expect(tokenSendState(send(), recordsToMap([rec('0x1')]))?.name).toBe('waiting');
    expect(tokenSendState(send(), recordsToMap([rec('0x1', { status: 'pending' })]))?.name).toBe('stuck-replacing');
    // A reprice of the same call keeps it "being sent"; the receipt of the replacement is the nonce's.
    const repriced = recordsToMap([
      rec('0x1', { status: 'replaced', replacedBy: '0x2' }),
      rec('0x2', { attempt: 1, kind: 'replace', replaces: '0x1', status: 'receipt', data: { status: 1 } }),
    ]);
    expect(tokenSendState(send(), repriced)?.name).toBe('mined');
    expect(endedWithoutMoving(send(), repriced)).toBeNull();
    expect(awaitingListing({ k: send() }, repriced)).toHaveLength(1);
  });

  it('ends without moving when the nonce is cancelled or replaced elsewhere, or the call reverted', () => {
    const cancelled = recordsToMap([
      rec('0x1', { status: 'replaced' }),
      rec('0x3', { attempt: 1, kind: 'cancel', status: 'confirmation', data: { status: 1 } }),
    ]);
    expect(endedWithoutMoving(send(), cancelled)).toBe('cancelled');
    expect(endedWithoutMoving(send(), recordsToMap([rec('0x1', { status: 'replaced' })]))).toBe('replaced');
    const reverted = recordsToMap([rec('0x1', { status: 'receipt', data: { status: 0 } })]);
    expect(endedWithoutMoving(send(), reverted)).toBe('reverted');
    expect(awaitingListing({ k: send() }, reverted)).toEqual([]);
  });

  it('moves when the listing shows a smaller balance, or leaves the token out where it would show it', () => {
    expect(listingShowsMoved(send(), { ...whole, tokens: [gem('5')] })).toBe(false);
    expect(listingShowsMoved(send(), { ...whole, tokens: [gem('3')] })).toBe(true);
    expect(listingShowsMoved(send(), { ...whole, tokens: [] })).toBe(true);
    // Another page, or a filter without this collection, cannot tell; nor can another owner's listing.
    expect(listingShowsMoved(send(), { owner: me, tokens: [], covers: () => false })).toBeNull();
    expect(listingShowsMoved(send(), { owner: bob, tokens: [gem('2', bob)], covers: () => true })).toBeNull();
    const erc721 = send({ contract: tiles.address, tokenId: '7', amount: '1', heldBefore: '1' });
    expect(listingShowsMoved(erc721, { ...whole, tokens: [{ id: '7', owner: me, uri: 'u', contract: tiles }] })).toBe(false);
    expect(listingShowsMoved(erc721, { ...whole, tokens: [{ id: '8', owner: me, uri: 'u', contract: tiles }] })).toBe(true);
  });

  it('a page covers a collection only when it is the only page and its filter keeps the collection', () => {
    expect(pageCovers({ prevUrl: '', nextUrl: '' }, [])(gems.address)).toBe(true);
    expect(pageCovers({ prevUrl: '', nextUrl: '' }, [gems.address])(gems.address.toUpperCase().replace('0X', '0x'))).toBe(true);
    expect(pageCovers({ prevUrl: '', nextUrl: '' }, [tiles.address])(gems.address)).toBe(false);
    expect(pageCovers({ prevUrl: '', nextUrl: 'http://x?page=1' }, [])(gems.address)).toBe(false);
  });

  it('settles only what ended, and hands back the same object when nothing did', () => {
    const sends = {
      [tokenSendKey(gems.address, '2')]: send(),
      [tokenSendKey(tiles.address, '7')]: send({ contract: tiles.address, tokenId: '7', hash: '0x9', heldBefore: '1' }),
    };
    const txs = recordsToMap([rec('0x1'), rec('0x9', { nonce: 5 })]);
    expect(settleTokenSends(sends, txs, null).sends).toBe(sends);
    const listing = { owner: me, tokens: [gem('3'), { id: '7', owner: me, uri: 'u', contract: tiles }], covers: () => true };
    const r = settleTokenSends(sends, txs, listing);
    expect(Object.keys(r.sends)).toEqual([tokenSendKey(tiles.address, '7')]);
    expect(r.ended.map((e) => [e.send.label, e.outcome])).toEqual([['Gems #2', 'moved']]);
  });
});

describe('being sent: the store and its watcher', () => {
  function fakeCore() {
    let listed: TokenPage = { data: [gem('5')], pagination: { totalCount: 1, prevUrl: '', nextUrl: '' } };
    const api = {
      sendTransaction: vi.fn(async () => rec('0x1')),
      listTokens: vi.fn(async () => listed),
      resolveTokenMetadata: vi.fn(async () => ({})),
      getTransaction: vi.fn(async (h: string) => ({ ...rec(h), history: [] })),
    } as unknown as DesktopApi & { listTokens: ReturnType<typeof vi.fn>; sendTransaction: ReturnType<typeof vi.fn> };
    return {
      api,
      setListing: (tokens: Token[]) => (listed = { data: tokens, pagination: { totalCount: tokens.length, prevUrl: '', nextUrl: '' } }),
    };
  }

  it('marks the token, follows its nonce, asks the listing once it is mined, then clears it and reloads the page', async () => {
    vi.useFakeTimers();
    try {
      const core = fakeCore();
      const store = createAppStore(core.api);
      store.setState({ info: { address: me } as never });
      const stop = watchTokenSends(store, core.api, { firstChecksMs: 100 });
      await store.getState().loadTokens();
      const token = store.getState().tokenPage!.data[0]!;

      const result = await store.getState().sendToken(token, { to: gems.address, value: '0', data: '0xf242432a' }, bob, '2');
      expect('record' in result).toBe(true);
      expect(core.api.sendTransaction).toHaveBeenCalledWith({ to: gems.address, value: '0', data: '0xf242432a' });
      const key = tokenSendKey(gems.address, '2');
      expect(store.getState().tokenSends[key]).toMatchObject({ owner: me, to: bob, amount: '2', heldBefore: '5', hash: '0x1' });
      expect(store.getState().selectedHash).toBe('0x1');

      // Mined, but the indexer has not seen it yet: still being sent, the listing is asked again and again.
      store.getState().applyTxChange(rec('0x1', { status: 'receipt', data: { status: 1 }, updatedAt: 't1' }));
      const calls = core.api.listTokens.mock.calls.length;
      await vi.advanceTimersByTimeAsync(350);
      expect(core.api.listTokens.mock.calls.length).toBeGreaterThan(calls);
      expect(core.api.listTokens).toHaveBeenLastCalledWith(me, {
        page: 0,
        size: 200,
        order_by: 'token_id',
        order_direction: 'asc',
        contractAddresses: [gems.address],
      });
      expect(store.getState().tokenSends[key]).toBeDefined();

      // The listing moves it: cleared, a notice, and the page on screen is read again.
      core.setListing([gem('3')]);
      await vi.advanceTimersByTimeAsync(150);
      expect(store.getState().tokenSends).toEqual({});
      expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'success', text: 'Gems #2 was sent: it left this account.' });
      expect(store.getState().tokenPage!.data[0]!.balance).toBe('3');
      const after = core.api.listTokens.mock.calls.length;
      await vi.advanceTimersByTimeAsync(1000);
      expect(core.api.listTokens.mock.calls.length).toBe(after);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('clears the mark when the nonce is cancelled, without asking the listing', async () => {
    const core = fakeCore();
    const store = createAppStore(core.api);
    store.setState({ info: { address: me } as never });
    const stop = watchTokenSends(store, core.api, { firstChecksMs: 10 });
    await store.getState().sendToken(gem('5'), { to: gems.address, value: '0', data: '0xf242432a' }, bob, '1');
    const calls = core.api.listTokens.mock.calls.length;
    // The cancel is signed (still being sent: the nonce is open), then mined, and the original replaced.
    store.getState().applyTxChange(rec('0x3', { attempt: 1, kind: 'cancel', replaces: '0x1', updatedAt: 't1' }));
    expect(Object.keys(store.getState().tokenSends)).toHaveLength(1);
    store.getState().applyTxChange(rec('0x1', { status: 'replaced', replacedBy: '0x3', updatedAt: 't2' }));
    expect(Object.keys(store.getState().tokenSends)).toHaveLength(1);
    store
      .getState()
      .applyTxChange(rec('0x3', { attempt: 1, kind: 'cancel', replaces: '0x1', status: 'receipt', data: { status: 1 }, updatedAt: 't2' }));
    expect(store.getState().tokenSends).toEqual({});
    expect(store.getState().notices.at(-1)?.text).toBe('Gems #2 was not sent: its nonce was cancelled. The token stays here.');
    expect(core.api.listTokens.mock.calls.length).toBe(calls);
    stop();
  });

  it('a refused send marks nothing and hands the refusal back to the form', async () => {
    const core = fakeCore();
    core.api.sendTransaction.mockRejectedValueOnce({
      code: 'WOULD_REVERT',
      message: 'The call would revert: ERC1155: insufficient balance.',
    });
    const store = createAppStore(core.api);
    const r = await store.getState().sendToken(gem('5'), { to: gems.address, value: '0', data: '0x' }, bob, '9');
    expect(r).toEqual({ error: { code: 'WOULD_REVERT', message: 'The call would revert: ERC1155: insufficient balance.' } });
    expect(store.getState().tokenSends).toEqual({});
    expect(store.getState().txs).toEqual({});
  });
});
