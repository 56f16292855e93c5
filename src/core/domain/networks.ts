// Which networks the app can show and switch to: the data service's list joined with the node URLs the app knows and
// the networks it has open, and the one sentence for a network it cannot switch to. Pure: the lists come in as values.
import type { NetworkInfo, NetworkRef, NetworkState } from '../../shared/desktop-api.js';
import { networkKey } from '../../shared/networks.js';

export const sameNetwork = (a: NetworkRef, b: NetworkRef): boolean => a.platform === b.platform && a.network === b.network;

/** A network as GET /nft/v1/networks of the data service describes it. */
export interface ServedNetwork extends NetworkRef {
  chainId: number | null;
  isDefault: boolean;
  state: NetworkState;
}

/** A network the app knows a node for: the start network, the embedded dev chains, the saved node URLs. */
export interface KnownNetwork extends NetworkRef {
  chainId: number | null;
  nodeUrl: string;
}

/** A network the app has open (its engine runs), with its open nonces. */
export interface OpenedNetwork extends NetworkRef {
  chainId: number;
  openNonces: number;
}

export interface NetworkListInput {
  /** The service's list, default first; null when it could not be asked (down, or a service without the route). */
  served: readonly ServedNetwork[] | null;
  known: readonly KnownNetwork[];
  opened: readonly OpenedNetwork[];
  active: NetworkRef;
}

/**
 * Every network the app can name: the service's, in its order, then those only the app knows (a saved node URL for a
 * network the service does not list, or every known one while the service cannot be asked).
 */
export function networkList(o: NetworkListInput): NetworkInfo[] {
  const find = <T extends NetworkRef>(list: readonly T[], n: NetworkRef) => list.find((x) => sameNetwork(x, n)) ?? null;
  const served = o.served ?? [];
  const extra = [...o.known, ...o.opened].filter((n, i, all) => !find(served, n) && all.findIndex((x) => sameNetwork(x, n)) === i);
  const rows: ServedNetwork[] = [
    ...served,
    ...extra.map((n) => ({ platform: n.platform, network: n.network, chainId: n.chainId, isDefault: false, state: 'unknown' as const })),
  ];
  return rows.map((n) => {
    const known = find(o.known, n);
    const opened = find(o.opened, n);
    const active = sameNetwork(n, o.active);
    const listedByService = o.served === null || find(served, n) !== null;
    return {
      platform: n.platform,
      network: n.network,
      chainId: n.chainId ?? opened?.chainId ?? known?.chainId ?? null,
      isDefault: n.isDefault,
      state: n.state,
      active,
      nodeUrl: known?.nodeUrl ?? null,
      unavailable: active ? null : unavailableReason(n, { hasNode: known !== null || opened !== null, listedByService }),
      openNonces: opened?.openNonces ?? 0,
    };
  });
}

/** Why the app cannot switch to `n` now, in one sentence that says what to do; null when it can. */
export function unavailableReason(n: ServedNetwork, o: { hasNode: boolean; listedByService: boolean }): string | null {
  const key = networkKey(n);
  if (!o.listedByService)
    return `The data service does not serve ${key}; remove its node URL, or point the app at a service that serves it.`;
  if (n.state === 'wrong-chain')
    return `The data service stopped serving ${key} because its node is on another chain; fix the service's node for it, then switch.`;
  if (!o.hasNode) return `No node URL is set for ${key}: add one under Settings → Networks to switch to it.`;
  return null;
}

/** The refusal of a switch to `target`, or null when the list allows it. */
export function switchRefusal(target: NetworkRef, list: readonly NetworkInfo[]): string | null {
  const row = list.find((n) => sameNetwork(n, target));
  if (!row) {
    const names = list.map((n) => networkKey(n)).join(', ');
    return `The data service does not serve ${networkKey(target)}; switch to one it serves (${names || 'none listed'}).`;
  }
  return row.unavailable;
}

/** The node URL for `n`, if the app knows one: the start network's, an embedded dev chain's, or one saved per network. */
export function nodeUrlFor(
  n: NetworkRef,
  o: { start: KnownNetwork; embedded: readonly KnownNetwork[]; saved: Readonly<Record<string, string>> },
): string | null {
  if (sameNetwork(n, o.start)) return o.start.nodeUrl;
  const dev = o.embedded.find((x) => sameNetwork(x, n));
  if (dev) return dev.nodeUrl;
  return o.saved[networkKey(n)] ?? null;
}

/** The one sentence for a node that is on another chain than the service says the network is. */
export function wrongChainMessage(n: NetworkRef, nodeUrl: string, nodeChainId: number, servedChainId: number): string {
  return (
    `The node at ${nodeUrl} is on chain ${nodeChainId} but ${networkKey(n)} is chain ${servedChainId}: set the node ` +
    `URL of ${networkKey(n)} under Settings → Networks to a node of that chain.`
  );
}
