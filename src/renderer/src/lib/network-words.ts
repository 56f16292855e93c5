// How the renderer names a network and its state: one wording for the headers and Settings. Pure.
import type { NetworkInfo, NetworkState } from '../../../shared/desktop-api.js';

/** "ethereum/local-2 · chain 31338" (without the chain while it is not known). */
export function networkLabel(n: { platform: string; network: string; chainId: number | null }): string {
  return `${n.platform}/${n.network}${n.chainId !== null ? ` · chain ${n.chainId}` : ''}`;
}

export const stateWords: Record<NetworkState, string> = {
  serving: 'Serving',
  starting: 'Starting',
  unreachable: 'Node down',
  'wrong-chain': 'Wrong chain',
  unknown: 'Not listed',
};

export const stateTone: Record<NetworkState, 'success' | 'warning' | 'danger' | 'muted'> = {
  serving: 'success',
  starting: 'warning',
  unreachable: 'danger',
  'wrong-chain': 'danger',
  unknown: 'muted',
};

/** What a row says under its name: what is still watched on a network not shown. */
export function watchedNote(n: Pick<NetworkInfo, 'active' | 'openNonces'>): string | null {
  if (n.active || n.openNonces === 0) return null;
  return `${n.openNonces} open transaction${n.openNonces === 1 ? '' : 's'}, still watched and settled`;
}
