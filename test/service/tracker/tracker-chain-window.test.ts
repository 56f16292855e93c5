// The canonical-chain window: linking new blocks, walking back on a fork, and the hashes a reorganisation displaced.
import { describe, expect, it } from 'vitest';
import { ChainWindow, MAX_WINDOW, type BlockInfo } from '../../../src/service/tracker/tracker-chain-window.js';

const b = (number: number, hash: string, parentHash: string): BlockInfo => ({ number, hash, parentHash, txs: [] });

describe('ChainWindow', () => {
  it('links a straight chain and reports nothing displaced', () => {
    const w = new ChainWindow();
    expect(w.linkOf(b(5, 'h5', 'h4'))).toBe('connected');
    expect([...w.apply([b(5, 'h5', 'h4')], 5)]).toEqual([]);
    expect(w.linkOf(b(6, 'h6', 'h5'))).toBe('connected');
    w.apply([b(6, 'h6', 'h5')], 6);
    expect(w.tip).toBe(6);
    expect(w.isCanonical(5, 'h5')).toBe(true);
    expect(w.isCanonical(4, 'h4')).toBeUndefined();
  });

  it('asks for parents until the fork point and reports the displaced hashes', () => {
    const w = new ChainWindow();
    w.apply([b(1, 'a1', 'a0'), b(2, 'a2', 'a1'), b(3, 'a3', 'a2')], 3);
    expect(w.linkOf(b(3, 'b3', 'b2'))).toBe('fetch-parent');
    expect(w.linkOf(b(2, 'b2', 'a1'))).toBe('connected');
    const displaced = w.apply([b(2, 'b2', 'a1'), b(3, 'b3', 'b2')], 3);
    expect([...displaced].sort()).toEqual(['a2', 'a3']);
    expect(w.isCanonical(2, 'a2')).toBe(false);
  });

  it('a shorter new chain displaces the blocks above its head', () => {
    const w = new ChainWindow();
    w.apply([b(1, 'a1', 'a0'), b(2, 'a2', 'a1'), b(3, 'a3', 'a2')], 3);
    const displaced = w.apply([b(2, 'c2', 'a1')], 2);
    expect([...displaced].sort()).toEqual(['a2', 'a3']);
    expect(w.hashAt(3)).toBeUndefined();
  });

  it('forgets blocks older than the window', () => {
    const w = new ChainWindow();
    w.apply([b(1, 'x1', 'x0')], 1);
    w.apply([b(1 + MAX_WINDOW, 'y', 'z')], 1 + MAX_WINDOW);
    expect(w.hashAt(1)).toBeUndefined();
  });
});
