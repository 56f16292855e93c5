// Whether an instance may hold a network's fleet roles (indexer, receipt watcher): not once it has had no usable node of
// that network for NODE_LINK_DOWN_MS, so that an instance whose own link is broken hands the roles to a healthy one.

/**
 * How long an instance may go without a usable node of a network before it steps down from that network's roles. Long
 * enough that a node restart or a failover between its own nodes (a probe round or two) does not move the roles, short
 * enough that a healthy instance takes over well within a minute (docs/deploy.md, "Leaders that step down").
 */
export const NODE_LINK_DOWN_MS = 10_000;

/** `downSince`: when the network last lost its usable node (ms), null while it has one. Pure. */
export function mayHoldRoles(downSince: number | null, nowMs: number, limitMs = NODE_LINK_DOWN_MS): boolean {
  return downSince === null || nowMs - downSince < limitMs;
}
