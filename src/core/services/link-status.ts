// The live state of the two links the core depends on (the data service's tracker and the Ethereum node): one
// AppStatus, pushed to onAppStatus on every change and logged once per change of state (lost, retrying, back), never
// once per retry.
import type { Logger } from '../../lib/log.js';
import type { AppStatus, LinkStatus } from '../../shared/desktop-api.js';

export type Link = keyof AppStatus;

const labels: Record<Link, string> = { tracker: 'tracker', node: 'Ethereum node' };

export interface LinkStatusBoard {
  get(): AppStatus;
  /** Records a state; the same state with another reason updates the reason quietly (no log line). */
  set(link: Link, state: LinkStatus['state'], reason?: string | null): void;
}

export function createLinkStatus(o: {
  log: Logger;
  emit(status: AppStatus): void;
  now?: () => Date;
  initial?: Partial<Record<Link, LinkStatus['state']>>;
}): LinkStatusBoard {
  const now = o.now ?? (() => new Date());
  const at = now().toISOString();
  const status: AppStatus = {
    tracker: { state: o.initial?.tracker ?? 'connecting', reason: null, since: at },
    node: { state: o.initial?.node ?? 'connected', reason: null, since: at },
  };
  // Whether the link was ever connected: the first connection is "connected", a later one "back".
  const everConnected: Record<Link, boolean> = { tracker: status.tracker.state === 'connected', node: status.node.state === 'connected' };

  return {
    get: () => ({ tracker: { ...status.tracker }, node: { ...status.node } }),
    set(link, state, reason = null) {
      const cur = status[link];
      const why = state === 'connected' ? null : reason;
      if (cur.state === state && cur.reason === why) return;
      const changed = cur.state !== state;
      const t = now();
      if (changed) o.log[state === 'unreachable' ? 'warn' : 'info'](line(link, cur, state, why, t, everConnected[link]));
      if (state === 'connected') everConnected[link] = true;
      status[link] = { state, reason: why, since: changed ? t.toISOString() : cur.since };
      o.emit({ tracker: { ...status.tracker }, node: { ...status.node } });
    },
  };
}

function line(link: Link, from: LinkStatus, to: LinkStatus['state'], reason: string | null, t: Date, wasConnected: boolean): string {
  const name = labels[link];
  const why = reason ? `: ${reason}` : '';
  if (to === 'connected') {
    const after = Math.round((t.getTime() - Date.parse(from.since)) / 1000);
    return wasConnected ? `${name} back after ${after} s` : `${name} connected`;
  }
  if (to === 'unreachable') return from.state === 'connected' ? `${name} lost${why}` : `${name} unreachable${why}`;
  return `${name} connecting${why}`;
}
