// The networks the core has open and the one it shows: one chain session per network (chain-session.ts), opened on
// the first switch to it and kept until the core stops, so a transaction left open on a network keeps being watched
// and settled while another is active. Opening is a port (`open`): this service only decides and remembers.
import { TxdeskError } from '../../shared/errors.js';
import { networkKey } from '../../shared/networks.js';
import { sameNetwork } from '../domain/networks.js';
import type { NetworkRef } from '../../shared/desktop-api.js';

/** What this service needs of a session. */
export interface NetworkSession extends NetworkRef {
  stop(): Promise<void>;
}

export interface NetworkSessions<S extends NetworkSession> {
  active(): S;
  /** Every open session, the first opened first. */
  all(): S[];
  /** Opens `target` if it is not open yet, makes it the active one and returns it; `changed` runs after a real switch. */
  switchTo(target: NetworkRef): Promise<S>;
  /** Stops every session (newest first); later switches are refused. */
  stop(): Promise<void>;
}

export function createNetworkSessions<S extends NetworkSession>(o: {
  first: S;
  open(target: NetworkRef): Promise<S>;
  changed(active: S, previous: S): void;
}): NetworkSessions<S> {
  const open: S[] = [o.first];
  let active = o.first;
  // One opening per network at a time: two quick clicks share it instead of opening two stores on one file.
  const opening = new Map<string, Promise<S>>();
  let stopped = false;

  async function sessionOf(target: NetworkRef): Promise<S> {
    const have = open.find((s) => sameNetwork(s, target));
    if (have) return have;
    const key = networkKey(target);
    let p = opening.get(key);
    if (!p) {
      p = o.open(target).finally(() => opening.delete(key));
      opening.set(key, p);
      const s = await p;
      if (stopped) {
        await s.stop();
        throw stoppedError();
      }
      open.push(s);
      return s;
    }
    return p;
  }

  return {
    active: () => active,
    all: () => [...open],
    async switchTo(target) {
      if (stopped) throw stoppedError();
      const next = await sessionOf(target);
      if (next === active) return next;
      const previous = active;
      active = next;
      o.changed(next, previous);
      return next;
    },
    async stop() {
      stopped = true;
      await Promise.allSettled([...opening.values()]);
      for (const s of open.splice(0).reverse()) await s.stop();
    },
  };
}

const stoppedError = () => new TxdeskError('CONFLICT', 'The app is stopping; start it again to switch networks.');
