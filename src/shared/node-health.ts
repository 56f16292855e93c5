// The words for a served network's health, once: why a node is not used and what state the network is in, as the data
// service decides them (service/network/node-choice.ts), reports them in /health and counts them in /metrics.

/**
 * Why a node is not used. refused/timeout/error come from its probe; lagging, wrong-chain and rate-limited (back-pressure
 * and no answer for the limit) are decided over every node's latest probe.
 */
export type NodeProblem = 'refused' | 'timeout' | 'lagging' | 'wrong-chain' | 'error' | 'rate-limited';
export const nodeProblems: readonly NodeProblem[] = ['refused', 'timeout', 'lagging', 'wrong-chain', 'error', 'rate-limited'];

/** A served network's state as the data service decides it (the app adds `unknown` for a network it cannot ask). */
export type ServedNetworkState = 'starting' | 'serving' | 'unreachable' | 'wrong-chain';
export const servedNetworkStates: readonly ServedNetworkState[] = ['starting', 'serving', 'unreachable', 'wrong-chain'];
