// Which of a network's nodes to read from, and why: pure decisions over the latest probe of each node (no clock, no I/O),
// so node-watch.ts only probes and a table of cases tests every rule. Nodes are numbered from 1 in sentences, as listed.
// A node that pushes back (HTTP 429, a capacity error) is slowed down, not failed: it stays in use with the head it
// last reported, and counts as `rate-limited` only once its back-pressure has lasted the limit (node-budget.ts).
import { RPC_TIMEOUT } from '../../lib/json-rpc.js';
import type { NodeProblem, ServedNetworkState } from '../../shared/node-health.js';
import { BACK_PRESSURE_LIMIT_MS } from './node-budget.js';

// NodeProblem: refused/timeout/error come from a probe; lagging, wrong-chain and rate-limited (back-pressure and no
// answer for BACK_PRESSURE_LIMIT_MS) are decided here. The words live once, in src/shared/node-health.ts.
export { nodeProblems, type NodeProblem } from '../../shared/node-health.js';
export type NetworkState = ServedNetworkState;
/** What one probe can find wrong by itself. */
export type ProbeProblem = Extract<NodeProblem, 'refused' | 'timeout' | 'error'>;

export interface NodeObservation {
  /** The node's URL as people may see it (node-watch.ts redacts it). */
  url: string;
  /** When the latest probe ended (ms); null before the node's first probe has ended. */
  at: number | null;
  /** Its head block; null when the probe failed. */
  head: number | null;
  /** The chain id it reported since it last (re)connected; null while unknown (a failed probe forgets it). */
  chainId: number | null;
  problem: ProbeProblem | null;
  /**
   * Since when (ms) the node has answered nothing but back-pressure; absent or null while it answers. A throttled
   * probe keeps the head and chain id of the node's last answer (its problem is null: pushing back is not failing).
   */
  throttledSince?: number | null;
}

export interface NodeChoice {
  /**
   * Index of the node in use. Null unless `state` is 'serving': when no node can be used, reads must not go to the
   * last one (it is down, or on the wrong chain) and whoever waits on current() learns it.
   */
  inUse: number | null;
  state: NetworkState;
  /** One sentence for /health: which node is in use and why, or why none is. */
  reason: string;
}

export interface NodeChoiceOptions {
  /** A node more than this many blocks behind the best usable node's head is lagging. */
  maxLagBlocks: number;
  /** The chain every node must be on; null while not yet known (then no node can be used). */
  expectedChainId: number | null;
  /** Back-pressure lasting this long (ms, from throttledSince to the probe) makes a node rate-limited; BACK_PRESSURE_LIMIT_MS by default. */
  backPressureLimitMs?: number;
}

export const startingChoice: NodeChoice = { inUse: null, state: 'starting', reason: 'No node has been probed yet.' };

/** Each node's problem now, null for a node that could be used or has not been probed yet. */
export function problemsOf(nodes: readonly NodeObservation[], o: NodeChoiceOptions): (NodeProblem | null)[] {
  const best = bestHead(nodes, o);
  return nodes.map((n) => {
    if (n.at === null) return null;
    if (n.problem) return n.problem;
    if (isRateLimited(n, o)) return 'rate-limited';
    if (isWrongChain(n, o)) return 'wrong-chain';
    // A throttled node's head is as old as its last answer: not a sign that it lags.
    if (best !== null && n.head !== null && !isThrottled(n) && best - n.head > o.maxLagBlocks) return 'lagging';
    return null;
  });
}

/** The choice after the latest probes: stay on a usable current node, else the first usable one, else say why none. */
export function chooseNode(prev: NodeChoice, nodes: readonly NodeObservation[], o: NodeChoiceOptions): NodeChoice {
  const problems = problemsOf(nodes, o);
  const candidates = nodes.flatMap((n, i) => (isUsable(n, o) && problems[i] === null ? [i] : []));
  if (prev.state === 'serving' && prev.inUse !== null && candidates.includes(prev.inUse)) return prev;
  // At start the first usable node waits for every node before it, so the first in the list wins, not the fastest. A
  // node that has only pushed back since the start has not answered yet either (until its back-pressure is failing).
  const starting = prev.state === 'starting';
  const notYet = (n: NodeObservation, i: number) =>
    n.at === null || (starting && n.head === null && isThrottled(n) && problems[i] === null);
  const waitsForEarlier = candidates.length > 0 && nodes.slice(0, candidates[0]).some(notYet);
  if (candidates.length > 0 && !waitsForEarlier) {
    const inUse = candidates[0]!;
    return { inUse, state: 'serving', reason: servingReason(prev, inUse, nodes, problems, o) };
  }
  const waitingFor = nodes.flatMap((n, i) => (notYet(n, i) ? [i] : []));
  if (waitingFor.length > 0) {
    const who = waitingFor.map((i) => `${nodeName(nodes, i)}${nodes[i]!.at === null ? '' : ', which asks to slow down (HTTP 429)'}`);
    return { inUse: null, state: 'starting', reason: `Waiting for the first answer of ${who.join('; ')}.` };
  }
  const answered = nodes.filter((n) => !n.problem);
  const state: NetworkState = answered.length > 0 && answered.every((n) => isWrongChain(n, o)) ? 'wrong-chain' : 'unreachable';
  const why = nodes.map((_, i) => `${nodeName(nodes, i)} ${problemText(i, nodes, problems, o)}`).join('; ');
  return { inUse: null, state, reason: `No node can be used: ${why}.` };
}

/**
 * The chain a network without a configured one adopts: the first chain id reported in list order, waiting for every
 * earlier node's first probe so node 1 is preferred; null until then.
 */
export function adoptedChainId(nodes: readonly NodeObservation[], backPressureLimitMs = BACK_PRESSURE_LIMIT_MS): number | null {
  for (const n of nodes) {
    if (n.at === null) return null;
    if (n.chainId !== null) return n.chainId;
    // Throttled before it ever answered: still node 1's turn, until its back-pressure counts as failing.
    if (isThrottled(n) && !isRateLimited(n, { backPressureLimitMs })) return null;
  }
  return null;
}

/**
 * What a failed probe says about the node: no connection (refused, reset, unknown host, closed socket) is `refused`, no
 * answer in time is `timeout`, anything else (an HTTP 5xx, a JSON-RPC error, a reply that is not JSON-RPC) is `error`.
 * Reads errors by their shape (src/lib/json-rpc.ts's RpcError, the WS transport's RPC_TIMEOUT code, Node's system errors) so
 * this stays pure.
 */
export function classifyProbeError(e: unknown): ProbeProblem {
  if (!(e instanceof Error)) return 'error';
  const { name, message } = e;
  const code = (e as { code?: unknown }).code;
  const causeCode = (e as { cause?: { code?: unknown } }).cause?.code;
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ETIMEDOUT' || code === RPC_TIMEOUT || causeCode === 'ETIMEDOUT')
    return 'timeout';
  if (/\((TimeoutError|AbortError)\)|timed out/i.test(message)) return 'timeout';
  if (code === 'unreachable') return /could not be reached/.test(message) ? 'refused' : 'error';
  if (typeof code === 'string' && connectionCodes.has(code)) return 'refused';
  if (typeof causeCode === 'string' && connectionCodes.has(causeCode)) return 'refused';
  if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|cannot open|connection to .* closed|socket hang up/.test(message)) return 'refused';
  return 'error';
}

const connectionCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/** The URL without userinfo, path or query (hosted nodes carry API keys there), for logs and /health. */
export function redactNodeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(a node URL that cannot be parsed)';
  }
}

/** "node 2 (http://127.0.0.1:8546)": numbered from 1 as in the configured list, so two nodes on one host differ. */
export function nodeName(nodes: readonly NodeObservation[], index: number): string {
  return `node ${index + 1} (${nodes[index]!.url})`;
}

/** What is wrong with node `i`, as the end of a sentence that starts with its name. */
export function problemText(
  i: number,
  nodes: readonly NodeObservation[],
  problems: readonly (NodeProblem | null)[],
  o: NodeChoiceOptions,
): string {
  const n = nodes[i]!;
  switch (problems[i]) {
    case 'refused':
      return 'refused the connection';
    case 'timeout':
      return 'did not answer in time';
    case 'error':
      return 'answered with an error';
    case 'wrong-chain':
      return `is on chain ${n.chainId}, not ${o.expectedChainId} as expected`;
    case 'lagging':
      return `is ${(bestHead(nodes, o) ?? 0) - (n.head ?? 0)} blocks behind the best node (more than ${o.maxLagBlocks})`;
    case 'rate-limited':
      return `has asked to slow down (HTTP 429 or a capacity error) for ${Math.round(((n.at ?? 0) - (n.throttledSince ?? 0)) / 1000)} s without answering`;
    default:
      if (n.at === null) return 'has not answered yet';
      if (isThrottled(n) && n.head === null) return 'asks to slow down (HTTP 429 or a capacity error) and has not answered yet';
      return o.expectedChainId === null ? 'answered, but the expected chain is not known yet' : 'answered without a head block';
  }
}

function servingReason(
  prev: NodeChoice,
  inUse: number,
  nodes: readonly NodeObservation[],
  problems: readonly (NodeProblem | null)[],
  o: NodeChoiceOptions,
): string {
  const using = nodeName(nodes, inUse);
  if (prev.state === 'serving' && prev.inUse !== null && prev.inUse !== inUse) {
    return `Switched from ${nodeName(nodes, prev.inUse)} to ${using} because ${nodeName(nodes, prev.inUse)} ${problemText(prev.inUse, nodes, problems, o)}.`;
  }
  if (inUse === 0) return `Using ${using}, the first in the list.`;
  const skipped = nodes.slice(0, inUse).map((_, i) => `${nodeName(nodes, i)} ${problemText(i, nodes, problems, o)}`);
  return `Using ${using} because ${skipped.join(' and ')}.`;
}

const isThrottled = (n: NodeObservation): boolean => n.throttledSince != null;

/** Back-pressure for the limit or longer, as of the node's latest probe. */
function isRateLimited(n: NodeObservation, o: Pick<NodeChoiceOptions, 'backPressureLimitMs'>): boolean {
  return n.at !== null && n.throttledSince != null && n.at - n.throttledSince >= (o.backPressureLimitMs ?? BACK_PRESSURE_LIMIT_MS);
}

function isWrongChain(n: NodeObservation, o: NodeChoiceOptions): boolean {
  return n.at !== null && !n.problem && n.chainId !== null && o.expectedChainId !== null && n.chainId !== o.expectedChainId;
}

function isUsable(n: NodeObservation, o: NodeChoiceOptions): boolean {
  return (
    n.at !== null && !n.problem && !isRateLimited(n, o) && n.head !== null && o.expectedChainId !== null && n.chainId === o.expectedChainId
  );
}

/** The highest head among nodes that could be used (the right chain, answering); lag is measured from it. */
function bestHead(nodes: readonly NodeObservation[], o: NodeChoiceOptions): number | null {
  const heads = nodes.filter((n) => isUsable(n, o)).map((n) => n.head!);
  return heads.length > 0 ? Math.max(...heads) : null;
}
