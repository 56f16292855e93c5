// The open networks and the active one (src/core/services/network-sessions.ts) with sessions as plain objects: one
// opening per network however many switches ask, a switch back reuses the open session, the network left stays open
// (its transactions keep settling) until the core stops, and nothing opens after stop.
import { describe, expect, it, vi } from 'vitest';
import { createNetworkSessions, type NetworkSession } from '../../../src/core/services/network-sessions.js';

const session = (network: string): NetworkSession & { stopped: boolean } => {
  const s = { platform: 'ethereum', network, stopped: false, stop: async () => void (s.stopped = true) };
  return s;
};

describe('network sessions', () => {
  it('opens a network once, keeps the one left open, and reuses it on the way back', async () => {
    const first = session('local');
    const opened: string[] = [];
    const changed = vi.fn();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = createNetworkSessions({
      first,
      open: async (t) => {
        opened.push(t.network);
        await gate;
        return session(t.network);
      },
      changed: (next, prev) => changed(next.network, prev.network),
    });
    const [a, b] = [s.switchTo({ platform: 'ethereum', network: 'local-2' }), s.switchTo({ platform: 'ethereum', network: 'local-2' })];
    release();
    expect(await a).toBe(await b);
    expect(opened).toEqual(['local-2']);
    expect(s.active().network).toBe('local-2');
    expect(s.all().map((x) => x.network)).toEqual(['local', 'local-2']);
    expect(first.stopped).toBe(false);

    expect(await s.switchTo({ platform: 'ethereum', network: 'local' })).toBe(first);
    expect(opened).toEqual(['local-2']);
    expect(changed.mock.calls).toEqual([
      ['local-2', 'local'],
      ['local', 'local-2'],
    ]);
  });

  it('stays on the active network when opening another fails', async () => {
    const s = createNetworkSessions({
      first: session('local'),
      open: async () => Promise.reject(new Error('node down')),
      changed: () => undefined,
    });
    await expect(s.switchTo({ platform: 'ethereum', network: 'local-2' })).rejects.toThrow('node down');
    expect(s.active().network).toBe('local');
    expect(s.all()).toHaveLength(1);
  });

  it('stops every open session, and refuses switches afterwards', async () => {
    const first = session('local');
    const second = session('local-2');
    const s = createNetworkSessions({ first, open: async () => second, changed: () => undefined });
    await s.switchTo(second);
    await s.stop();
    expect([first.stopped, second.stopped]).toEqual([true, true]);
    await expect(s.switchTo(first)).rejects.toThrow(/stopping/);
  });
});
