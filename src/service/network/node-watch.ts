// Probes every node of one network on a timer and follows node-choice.ts's decision: which node reads and receipt
// watching use now, what /health and /metrics say about each node, and one log line per switch or wrong chain. Probes
// count against each node's request budget (node-throttle.ts) and honour its pause: a node that asked for quiet is not
// probed until the pause ends, and is reported as throttled meanwhile, not as failing; a paced node is probed less
// often, so that probes take at most a quarter of its budget.
import { RpcError } from '../../lib/json-rpc.js';
import { createWsTransport, type WsTransport } from '../../lib/json-rpc-ws.js';
import type { Logger } from '../../lib/log.js';
import { BACK_PRESSURE_LIMIT_MS, backPressureIn, probeGapMs } from './node-budget.js';
import { callNode } from './node-call.js';
import {
  adoptedChainId,
  chooseNode,
  classifyProbeError,
  nodeProblems,
  problemsOf,
  redactNodeUrl,
  startingChoice,
  type NetworkState,
  type NodeChoice,
  type NodeObservation,
  type NodeProblem,
} from './node-choice.js';
import { NodeBackPressure, nodeThrottle, type NodeThrottle } from './node-throttle.js';

export interface NodeWatchOptions {
  urls: string[];
  /** When absent, the first chain id a node reports (in list order, node 1 first) becomes the expected one. */
  expectedChainId?: number;
  /** Pause between the end of one probe of a node and the start of its next; 1000 by default. */
  probeMs?: number;
  /** A probe with no answer after this long counts as a timeout; 3000 by default. */
  timeoutMs?: number;
  /** 5 by default. */
  maxLagBlocks?: number;
  /** Back-pressure this long with no answer makes a node rate-limited; BACK_PRESSURE_LIMIT_MS (60 s) by default. */
  backPressureLimitMs?: number;
  log: Logger;
  /** The network, e.g. "ethereum/local-2", first in every log line. */
  label: string;
}

export interface CurrentNode {
  url: string;
  index: number;
}

export interface NodeWatchReport {
  state: NetworkState;
  chainId: number | null;
  headBlock: number | null;
  inUse: number | null;
  reason: string;
  /** In the configured order; `url` is redacted (no userinfo, path or query, where API keys live). */
  nodes: NodeReport[];
  /** The highest head a node of the expected chain has reported, and when it last did (ms); null before any. */
  lastHead: { block: number; at: number } | null;
}

export interface NodeReport {
  url: string;
  head: number | null;
  problem: NodeProblem | null;
  /** Requests per second the node's budget allows; null while the node has not pushed back (or has recovered). */
  requestsPerSecond: number | null;
  /** Since when (ms) the node has answered nothing but back-pressure; null while it answers. */
  throttledSince: number | null;
  /** Back-pressure answers from this node since the process started. */
  backPressure: number;
}

export interface NodeWatch {
  /** The node reads and receipt watching use now; null while no node with the right chain answers. */
  current(): CurrentNode | null;
  /** For /health and /metrics. */
  report(): NodeWatchReport;
  /** report().state without building the report (asked on every listing request). */
  state(): NetworkState;
  /** report().lastHead without building the report (asked on every listing request). */
  lastHead(): { block: number; at: number } | null;
  /** Probes that found a node with each problem, since start (for a Prometheus counter). */
  errorCounts(): Record<NodeProblem, number>;
  /** Resolves once every node has been probed once (or at stop()). */
  firstRound(): Promise<void>;
  /** Resolves with the chain id once a node with the right chain answers; rejects only when stop() comes first. */
  ready(): Promise<number>;
  /** Called after current() (another node, or null) or the network's state changes; returns the unsubscribe. */
  onChange(listener: (current: CurrentNode | null) => void): () => void;
  /** Clears every timer and connection; idempotent. */
  stop(): Promise<void>;
}

/** At most one line a minute per node about its back-pressure: 429s every few seconds are pacing, not news. */
const BACK_PRESSURE_LOG_MS = 60_000;

export function watchNodes(o: NodeWatchOptions): NodeWatch {
  const probeMs = o.probeMs ?? 1000;
  const timeoutMs = o.timeoutMs ?? 3000;
  const maxLagBlocks = o.maxLagBlocks ?? 5;
  const backPressureLimitMs = o.backPressureLimitMs ?? BACK_PRESSURE_LIMIT_MS;
  let expectedChainId = o.expectedChainId ?? null;
  const nodes: NodeObservation[] = o.urls.map((url) => ({
    url: redactNodeUrl(url),
    at: null,
    head: null,
    chainId: null,
    problem: null,
    throttledSince: null,
  }));
  const transports = o.urls.map(nodeCaller);
  const throttles = o.urls.map((url) => nodeThrottle(url));
  const choiceOptions = () => ({ maxLagBlocks, expectedChainId, backPressureLimitMs });
  let lastHead: { block: number; at: number } | null = null;
  /** The back-pressure count last logged per node, and when: a node that pushes back is named at most once a minute. */
  const backPressureLogged = o.urls.map(() => ({ at: -Infinity, refusals: 0 }));
  const timers = new Map<number, NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const listeners = new Set<(current: CurrentNode | null) => void>();
  const counts = Object.fromEntries(nodeProblems.map((p) => [p, 0])) as Record<NodeProblem, number>;
  /** The wrong chain id last logged per node, so a node on the wrong chain is named once per change, not per probe. */
  const loggedWrongChain = new Map<number, number>();
  let choice: NodeChoice = startingChoice;
  let stopped = false;
  let stopping: Promise<void> | undefined;
  const stopSignal = deferred<never>();
  stopSignal.promise.catch(() => {});
  const first = deferred<void>();
  const readyChain = deferred<number>();
  readyChain.promise.catch(() => {}); // nobody need ask for ready(); stop() must not leave an unhandled rejection

  const current = (): CurrentNode | null => (choice.inUse === null ? null : { url: o.urls[choice.inUse]!, index: choice.inUse });

  /** One probe of node `i`; `skipped` when the node's pause left no request to send. */
  async function probe(i: number): Promise<{ observation: NodeObservation; skipped: boolean }> {
    const prev = nodes[i]!;
    const throttle = throttles[i]!;
    // Paused by the node (its Retry-After, met by any request of this process): no probe until the pause ends.
    if (throttle.pausedForMs() > 0) return { observation: throttledObservation(prev, throttle), skipped: true };
    return { observation: await probeNow(i, prev, throttle), skipped: false };
  }

  async function probeNow(i: number, prev: NodeObservation, throttle: NodeThrottle): Promise<NodeObservation> {
    // The chain id is asked with every head, not only after a failure: a node replaced behind the same address (a
    // load balancer, a restarted container) need not fail a single probe, and one more cheap call a second is nothing
    // next to indexing another chain's blocks. Probes do not wait for the budget (they would queue behind a catch-up's
    // reads and time out), but they count against it.
    try {
      const call = (method: string) => {
        throttle.startNow();
        return Promise.race([withTimeout(transports[i]!.call(method, timeoutMs), timeoutMs), stopSignal.promise]);
      };
      const [head, chainId] = await Promise.all([call('eth_blockNumber'), call('eth_chainId')]);
      throttle.record({ kind: 'answered' });
      return { ...prev, at: Date.now(), head: hexNumber(head), chainId: hexNumber(chainId), problem: null, throttledSince: null };
    } catch (e) {
      if (e instanceof NodeBackPressure) {
        throttle.record({ kind: 'refused', retryAfterMs: e.retryAfterMs });
        return throttledObservation(prev, throttle);
      }
      transports[i]!.reset(); // the next probe starts a fresh connection: a stopped node's socket may never answer again
      return { ...prev, at: Date.now(), head: null, chainId: null, problem: classifyProbeError(e), throttledSince: null };
    }
  }

  /** The node asks to slow down: it keeps what it last answered (head, chain), and how long it has pushed back. */
  function throttledObservation(prev: NodeObservation, throttle: NodeThrottle): NodeObservation {
    const at = Date.now();
    // Since its first refusal with no answer after it; a node that answered another request since is throttled from now.
    return { ...prev, at, problem: null, throttledSince: throttle.report().pressedSince ?? at };
  }

  function record(i: number, observation: NodeObservation): void {
    nodes[i] = observation;
    if (expectedChainId === null) expectedChainId = adoptedChainId(nodes, backPressureLimitMs);
    if (
      observation.throttledSince == null &&
      observation.head !== null &&
      observation.chainId === expectedChainId &&
      observation.head >= (lastHead?.block ?? -1)
    ) {
      lastHead = { block: observation.head, at: observation.at ?? Date.now() };
    }
    const prev = choice;
    choice = chooseNode(prev, nodes, choiceOptions());
    const problem = problemsOf(nodes, choiceOptions())[i];
    if (problem) counts[problem]++;
    logBackPressure(i);
    const stoppedByChain = choice.state === 'wrong-chain' && prev.state !== 'wrong-chain';
    const namedWrongChain = logWrongChain(i, stoppedByChain);
    if (choice.state !== prev.state || choice.inUse !== prev.inUse) {
      // A network stopped by the node just named as on the wrong chain gets that one line, not a second.
      if (!(stoppedByChain && namedWrongChain)) logChoice(prev);
      // The state alone counts too: a node that went away (none in use) and came back on another chain changes only
      // the state, and the network must pause its indexer then.
      notify();
    }
    if (choice.state === 'serving' && expectedChainId !== null) readyChain.resolve(expectedChainId);
    if (nodes.every((n) => n.at !== null)) first.resolve();
  }

  function logWrongChain(i: number, networkStops: boolean): boolean {
    const n = nodes[i]!;
    if (n.problem || n.chainId === null || expectedChainId === null) return false;
    if (n.chainId === expectedChainId) {
      loggedWrongChain.delete(i); // fixed: a later change to a wrong chain is news again
      return false;
    }
    if (loggedWrongChain.get(i) === n.chainId) return false;
    loggedWrongChain.set(i, n.chainId);
    const consequence = networkStops ? 'this network is stopped until it is fixed' : 'it is not used until it is fixed';
    o.log.warn(`${o.label}: the node at ${n.url} is on chain ${n.chainId}, not ${expectedChainId} as configured; ${consequence}.`);
    return true;
  }

  function logBackPressure(i: number): void {
    const t = throttles[i]!.report();
    const said = backPressureLogged[i]!;
    const now = Date.now();
    if (t.refusals <= said.refusals || now - said.at < BACK_PRESSURE_LOG_MS) return;
    const times = `${t.refusals - said.refusals}${said.refusals > 0 ? ' more' : ''} time${t.refusals - said.refusals === 1 ? '' : 's'}`;
    const pace = t.requestsPerSecond === null ? 'no longer needs pacing' : `is paced at ${t.requestsPerSecond} requests per second`;
    o.log.info(
      `${o.label}: node ${i + 1} (${nodes[i]!.url}) asked to slow down ${times} (HTTP 429 or a capacity error); it ${pace}, ` +
        `and each refused request is asked again after its pause.`,
    );
    backPressureLogged[i] = { at: now, refusals: t.refusals };
  }

  function logChoice(prev: NodeChoice): void {
    const line = `${o.label}: ${choice.reason}`;
    // Reaching a first node at start is news, not a problem; every other change is.
    if (prev.state === 'starting' && choice.state === 'serving' && choice.inUse === 0) o.log.info(line);
    else o.log.warn(line);
  }

  function notify(): void {
    const now = current();
    for (const listener of [...listeners]) {
      try {
        listener(now);
      } catch (e) {
        o.log.error(`${o.label}: a listener for node changes failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  function loop(i: number): void {
    if (stopped) return;
    const run = probe(i)
      .then(({ observation, skipped }) => {
        if (stopped) return;
        record(i, observation);
        // A probe skipped for the node's pause goes as soon as the pause ends: with reads waiting on a paced node, the
        // next refusal would start another pause before the usual gap is over, and the node would never be probed.
        const throttle = throttles[i]!;
        const paused = throttle.pausedForMs();
        const timer = setTimeout(
          () => loop(i),
          skipped ? paused : Math.max(paused, probeGapMs(probeMs, throttle.report().requestsPerSecond)),
        );
        timer.unref();
        timers.set(i, timer);
      })
      .catch((e: unknown) =>
        o.log.error(`${o.label}: the node watch of node ${i + 1} stopped: ${e instanceof Error ? e.message : String(e)}`),
      );
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  }

  o.urls.forEach((_, i) => loop(i));
  if (o.urls.length === 0) first.resolve();

  return {
    current,
    state: () => choice.state,
    lastHead: () => lastHead,
    report() {
      const problems = problemsOf(nodes, choiceOptions());
      const { state, inUse, reason } = choice;
      const headBlock = inUse === null ? null : nodes[inUse]!.head;
      const each = nodes.map((n, i): NodeReport => {
        const t = throttles[i]!.report();
        return {
          url: n.url,
          head: n.head,
          problem: problems[i] ?? null,
          requestsPerSecond: t.requestsPerSecond,
          throttledSince: n.throttledSince ?? null,
          backPressure: t.refusals,
        };
      });
      return { state, chainId: expectedChainId, headBlock, inUse, reason, nodes: each, lastHead };
    },
    errorCounts: () => ({ ...counts }),
    firstRound: () => first.promise,
    ready: () => readyChain.promise,
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        for (const timer of timers.values()) clearTimeout(timer);
        timers.clear();
        stopSignal.reject(new Error(`${o.label}: the node watch was stopped.`));
        readyChain.reject(new Error(`${o.label}: the node watch was stopped before a node of the right chain answered.`));
        first.resolve();
        await Promise.allSettled([...inFlight]);
        for (const t of transports) t.reset();
        listeners.clear();
      })();
      return stopping;
    },
  };
}

/** One node's JSON-RPC: HTTP per call, or one WebSocket kept open until a probe fails (then a fresh one: a reconnect). */
function nodeCaller(url: string): { call(method: string, timeoutMs: number): Promise<unknown>; reset(): void } {
  let ws: WsTransport | null = null;
  return {
    async call(method, timeoutMs) {
      if (!/^wss?:/i.test(url)) return callNode(url, method, [], { timeoutMs });
      ws ??= createWsTransport(url);
      // The WS transport's own timer is a fallback; the probe's deadline reports the timeout first.
      const reply = (await ws.post({ jsonrpc: '2.0', id: 1, method, params: [] }, timeoutMs + 1000)) as {
        result?: unknown;
        error?: { code: number; message: string };
      };
      const pushBack = backPressureIn(200, null, reply, Date.now());
      if (pushBack) throw new NodeBackPressure(url, pushBack.retryAfterMs);
      if (reply?.error) throw new RpcError(reply.error.code, String(reply.error.message), method);
      return reply?.result;
    },
    reset() {
      ws?.close();
      ws = null;
    },
  };
}

function hexNumber(value: unknown): number {
  if (typeof value !== 'string' || !/^0x[0-9a-f]+$/i.test(value))
    throw new Error(`The node sent ${JSON.stringify(value)} where a hex number belongs.`);
  return Number(BigInt(value));
}

/** `call`, or a TimeoutError (classified as `timeout`) after `ms`. */
function withTimeout<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`No answer within ${ms} ms.`), { name: 'TimeoutError' })), ms);
    timer.unref();
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
