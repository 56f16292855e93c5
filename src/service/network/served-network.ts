// One network the service serves: its nodes (with failover, node-watch.ts), its indexer and receipt watcher (on a
// fleet each led by one instance, per network), its tracker endpoint and its listing. Indexer and watcher start once
// a node of the right chain answers, and move to the next node when the watch switches. The listing answers from the
// index whenever it holds something of this network's chain, node or no node, and says how far behind it may be. On a
// fleet, an instance with no usable node of the network for a while steps down from its roles (node-link.ts).
import type { Logger } from '../../lib/log.js';
import { TxdeskError } from '../../shared/errors.js';
import type { NetworkStores } from '../backend.js';
import { startLeaderIndexer, startLocalIndexer, type IndexerRole } from '../db/indexer-leadership.js';
import { defaultConfirmations } from '../http/service-node.js';
import { startIndexer, type TruncatedRanges } from '../indexer/indexer.js';
import { attachTracker, type AttachedTracker } from '../tracker/tracker-attach.js';
import type { TrackerRoute } from '../tracker/tracker-ws-router.js';
import { identityProblem, type NetworkIdentity } from './network-identity.js';
import { networkKey, type NetworkConfig } from './network-config.js';
import type { NetworkState, NodeProblem } from './node-choice.js';
import { watchNodes, type NodeWatch } from './node-watch.js';
import { mayHoldRoles } from './node-link.js';

export type NetworkRole = 'indexer-leader' | 'watcher-leader';

/** What /health, GET /nft/v1/networks and /metrics say about a network. */
export interface NetworkReport {
  platform: string;
  network: string;
  default: boolean;
  chainId: number | null;
  state: NetworkState;
  /** Why the network is in its state, and which node it uses (one sentence). */
  reason: string;
  headBlock: number | null;
  indexedBlock: number | null;
  /** Blocks between the head and the indexed tip; null on an instance that does not index this network. */
  indexLagBlocks: number | null;
  indexerLag: number | null;
  roles: NetworkRole[];
  /**
   * Blocks between the highest head seen from a node of this chain and the index the listing answers from (on every
   * instance, followers included); a lower bound while no node answers. Null while either is unknown.
   */
  indexedBehindBlocks: number | null;
  /** When a node of this chain last reported that head (ISO 8601); null before any did. */
  headSeenAt: string | null;
  node: { inUse: number | null; nodes: NodeHealth[] };
  outboxDepth: number | null;
}

/** One node on /health: its head and problem, and its request budget (node-budget.ts). */
export interface NodeHealth {
  url: string;
  head: number | null;
  problem: NodeProblem | null;
  /** Requests per second the service allows itself; null while the node has not pushed back (or has recovered). */
  requestsPerSecond: number | null;
  /** Since when the node has answered nothing but back-pressure (ISO 8601); null while it answers. */
  throttledSince: string | null;
  /** Back-pressure answers (HTTP 429, capacity errors) from this node to this process since it started. */
  backPressure: number;
}

export interface ServedNetworkOptions {
  config: NetworkConfig;
  isDefault: boolean;
  stores: NetworkStores;
  isClientId(id: string): boolean | Promise<boolean>;
  minAckTimeoutMs?: number;
  /** Node probing period and timeout (node-watch.ts defaults unless set; tests shorten them). */
  probeMs?: number;
  probeTimeoutMs?: number;
  /** Told when the tracker stored new deliveries on this instance. */
  onTrackerStored?: () => void;
  /** No usable node this long steps a fleet instance down from the network's roles (node-link.ts's default unless set). */
  stepDownAfterMs?: number;
  log: Logger;
}

export interface ServedNetwork {
  key: string;
  platform: string;
  network: string;
  isDefault: boolean;
  chainId(): number | null;
  /** The node in use (the first configured while none answers). */
  nodeUrl(): string;
  confirmations(): number | null;
  state(): NetworkState;
  report(): NetworkReport;
  trackerRoute: TrackerRoute;
  stores: NetworkStores;
  /** Null while the listing can answer; else the 503 a listing request gets (only when nothing is indexed, or a stop). */
  listingRefusal(): TxdeskError | null;
  /** What a listing answer says about the index it was read from: the network's state, the block, how far behind. */
  listingHeaders(): Record<string, string>;
  refreshToken(contract: string, id: bigint): Promise<boolean>;
  /** Resolves when the indexer has reached the head (minus its lag) once. */
  caughtUp(): Promise<void>;
  indexerStatus(): { indexedBlock: number; headBlock: number };
  truncatedRanges(): TruncatedRanges | [];
  roles(): NetworkRole[];
  errorCounts(): Record<NodeProblem, number>;
  receiptsDelivered(): number;
  stop(): Promise<void>;
}

const OUTBOX_COUNT_MS = 2_000;
/** Wait before trying a failed start or node move again. */
const RETRY_MS = 2_000;

/** A read of the store that may fail (a database restarting): undefined then, so the caller keeps what it knew. */
async function readQuietly<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}

/** Whether a store's chain stamp lets its index be served for `config` before a node confirms the chain. */
function storeFits(stamp: NetworkIdentity | null | undefined, config: NetworkConfig): boolean {
  if (stamp === undefined) return false;
  // No stamp: a store from before the stamp existed, or an empty one (then nothing is indexed anyway).
  if (stamp === null) return true;
  return (
    stamp.platform === config.platform &&
    stamp.network === config.network &&
    (config.chainId === undefined || stamp.chainId === config.chainId)
  );
}

/** Resolves after the first probe round: with the network serving if a node of its chain answered, else waiting for one. */
export async function startServedNetwork(o: ServedNetworkOptions): Promise<ServedNetwork> {
  const { config, stores } = o;
  const key = networkKey(config);
  const log = o.log.child(key);
  const watch: NodeWatch = watchNodes({
    urls: config.nodeUrls,
    ...(config.chainId !== undefined ? { expectedChainId: config.chainId } : {}),
    ...(o.probeMs !== undefined ? { probeMs: o.probeMs } : {}),
    ...(o.probeTimeoutMs !== undefined ? { timeoutMs: o.probeTimeoutMs } : {}),
    label: key,
    log,
  });
  let running: { indexer: IndexerRole; tracker: AttachedTracker; confirmations: number; chainId: number } | null = null;
  let stopReason: string | null = null;
  let stopped = false;
  let stopping: Promise<void> | undefined;
  let nodeInUse: string | null = null;
  let paused = false;
  let outboxDepth: number | null = null;
  // Start, failover restarts and stop run one at a time.
  let queue: Promise<void> = Promise.resolve();
  let retryTimer: NodeJS.Timeout | null = null;
  const nodeUrl = () => watch.current()?.url ?? nodeInUse ?? config.nodeUrls[0]!;
  // What the store holds, for a listing that answers while no indexer runs here (no node yet, or a fleet follower):
  // whether its stamp fits this network (read once, here; a started network has checked it itself) and its tip.
  let storedFits = storeFits(await readQuietly(() => stores.identity.read()), config);
  let storedTip: number | null = (await readQuietly(() => stores.index.tip())) ?? null;
  // Since when no node of the network can be used here (null while one can): a fleet instance then steps down.
  let linkDownSince: number | null = null;
  const shared = stores.shared ? { ...stores.shared, mayLead: () => mayHoldRoles(linkDownSince, Date.now(), o.stepDownAfterMs) } : null;
  let whenRunning: () => void = () => {};
  const runningOnce = new Promise<void>((resolve) => (whenRunning = resolve));

  async function begin(chainId: number): Promise<void> {
    if (stopped || running || stopReason) return;
    const problem = identityProblem(
      await stores.identity.read(),
      { platform: config.platform, network: config.network, chainId },
      stores.where,
    );
    if (problem) {
      stopReason = problem.public;
      log.error(problem.log);
      return;
    }
    await stores.identity.write({ platform: config.platform, network: config.network, chainId });
    storedFits = true;
    const confirmations = config.indexerLag ?? defaultConfirmations(chainId);
    const url = nodeUrl();
    const runIndexer = () =>
      startIndexer({
        store: stores.index,
        nodeUrl: nodeUrl(),
        confirmations,
        ...(config.startBlock !== undefined ? { startBlock: config.startBlock } : {}),
        log: log.child('indexer'),
      });
    const indexer = shared ? startLeaderIndexer(shared, runIndexer, log.child('indexer')) : await startLocalIndexer(runIndexer);
    let tracker: AttachedTracker;
    try {
      tracker = await attachTracker({
        store: stores.tracker,
        ...(shared ? { shared } : {}),
        nodeUrl,
        label: key,
        isClientId: o.isClientId,
        ...(o.minAckTimeoutMs !== undefined ? { minAckTimeoutMs: o.minAckTimeoutMs } : {}),
        ...(o.onTrackerStored ? { onStored: o.onTrackerStored } : {}),
        log,
      });
    } catch (e) {
      await indexer.stop(); // the next try starts both again
      throw e;
    }
    nodeInUse = url;
    running = { indexer, tracker, confirmations, chainId };
    log.info(`${key} (chain ${chainId}) is served from ${redactedInUse()}, indexing ${confirmations} blocks behind the head`);
    whenRunning();
  }

  /**
   * The node the watch chose is not the one indexer and watcher use: move them (both resume from their stores). No
   * node of the chain at all (a node came back on another chain): the indexer pauses, so nothing of another chain is
   * written, until a node of the right chain answers.
   */
  async function follow(): Promise<void> {
    const next = watch.current();
    if (!running || stopped) return;
    if (!next) {
      if (watch.state() === 'wrong-chain' && !paused) {
        paused = true;
        log.warn(`${key}: no node of chain ${running.chainId} answers; the indexer pauses until one does`);
        await running.indexer.pause();
      }
      return;
    }
    if (next.url === nodeInUse && !paused) return;
    log.warn(`${key}: moving the indexer and the receipt watcher to node ${next.index + 1}`);
    await running.indexer.restart();
    await running.tracker.restartWatcher();
    // Only once both moved: a failed move is tried again (reconcile) instead of being taken for done.
    nodeInUse = next.url;
    paused = false;
  }

  /**
   * Brings indexer and watcher in line with the node the watch chose: starts them, moves them or pauses the indexer.
   * A step that fails (the store or the node refusing at that moment) is tried again in RETRY_MS, so a network never
   * stays unstarted or half-moved with nothing left to wake it.
   */
  function reconcile(): Promise<void> {
    queue = queue.then(async () => {
      if (stopped) return;
      try {
        if (running) await follow();
        else if (watch.current()) await begin(await watch.ready());
      } catch (e) {
        log.error(`${key}: ${e instanceof Error ? e.message : String(e)}; trying again in ${RETRY_MS / 1000} s`);
        retryTimer ??= setTimeout(() => {
          retryTimer = null;
          void reconcile();
        }, RETRY_MS);
        retryTimer.unref();
      }
    });
    return queue;
  }

  const redactedInUse = () => {
    const r = watch.report();
    return r.inUse === null ? 'no node' : `node ${r.inUse + 1} (${r.nodes[r.inUse]?.url ?? '?'})`;
  };

  const offChange = watch.onChange((current) => {
    linkDownSince = current ? null : (linkDownSince ?? Date.now());
    if (current || running) void reconcile();
  });
  await watch.firstRound();
  if (watch.current()) await reconcile();

  const countOutbox = () =>
    Promise.all([
      stores.tracker.outboxDepth().then(
        (n) => void (outboxDepth = n),
        () => void (outboxDepth = null),
      ),
      readQuietly(() => stores.index.tip()).then((tip) => void (tip !== undefined && (storedTip = tip))),
    ]);
  await countOutbox();
  const outboxTimer = setInterval(() => void countOutbox(), OUTBOX_COUNT_MS);
  outboxTimer.unref();

  const state = (): NetworkState => {
    if (stopReason) return 'wrong-chain';
    const s = watch.state();
    return s === 'serving' && !running ? 'starting' : s;
  };
  const roles = (): NetworkRole[] => {
    const out: NetworkRole[] = [];
    if (running?.indexer.isLeader()) out.push('indexer-leader');
    if (running?.tracker.isWatcher()) out.push('watcher-leader');
    return out;
  };
  const reason = (): string => stopReason ?? watch.report().reason;
  /** The reason inside another sentence: no capital, no closing period. */
  const clause = () =>
    reason()
      .replace(/\.$/, '')
      .replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
  const indexerStatus = () => running?.indexer.current()?.status() ?? { indexedBlock: 0, headBlock: 0 };
  /** The last block of the index the listing reads: the indexer's own tip where it runs here, else the store's. */
  const indexedBlock = (): number | null => {
    const live = running?.indexer.current()?.status().indexedBlock;
    return live !== undefined && live >= (config.startBlock ?? 0) ? live : storedTip;
  };
  /** The highest head seen from a node of this chain (the probes', or the indexer's own read). */
  const knownHead = (): number | null => {
    const seen = [watch.lastHead()?.block, running?.indexer.current()?.status().headBlock].filter(
      (h): h is number => typeof h === 'number' && h > 0,
    );
    return seen.length > 0 ? Math.max(...seen) : null;
  };
  const behind = (indexed: number | null): number | null => {
    const head = knownHead();
    return indexed === null || head === null ? null : Math.max(0, head - indexed);
  };

  return {
    key,
    platform: config.platform,
    network: config.network,
    isDefault: o.isDefault,
    stores,
    chainId: () => running?.chainId ?? watch.report().chainId ?? config.chainId ?? null,
    nodeUrl,
    confirmations: () => running?.confirmations ?? config.indexerLag ?? null,
    state,
    report() {
      const r = watch.report();
      const indexing = running?.indexer.current()?.status() ?? null;
      return {
        platform: config.platform,
        network: config.network,
        default: o.isDefault,
        chainId: running?.chainId ?? r.chainId ?? config.chainId ?? null,
        state: state(),
        reason: reason(),
        headBlock: indexing?.headBlock ?? r.headBlock,
        // Below 0 until the head reaches the indexer lag on a young chain: nothing is indexed yet.
        indexedBlock: indexing && indexing.indexedBlock >= 0 ? indexing.indexedBlock : null,
        indexLagBlocks: indexing ? Math.max(0, indexing.headBlock - Math.max(0, indexing.indexedBlock)) : null,
        indexerLag: running?.confirmations ?? config.indexerLag ?? null,
        roles: roles(),
        indexedBehindBlocks: behind(indexedBlock()),
        headSeenAt: r.lastHead ? new Date(r.lastHead.at).toISOString() : null,
        node: {
          inUse: r.inUse,
          nodes: r.nodes.map((n) => ({
            url: n.url,
            head: n.head,
            problem: n.problem,
            requestsPerSecond: n.requestsPerSecond,
            throttledSince: n.throttledSince === null ? null : new Date(n.throttledSince).toISOString(),
            backPressure: n.backPressure,
          })),
        },
        outboxDepth,
      };
    },
    trackerRoute: {
      handler: () => running?.tracker.upgrade ?? null,
      waitingReason: clause,
    },
    listingRefusal() {
      const s = state();
      if (s === 'serving') return null;
      // The node is away, throttled past the limit or not yet confirmed: what is indexed is still this chain's.
      if (!stopReason && (running !== null || storedFits) && indexedBlock() !== null) return null;
      const then = stopReason
        ? 'it stays stopped until the service restarts with that fixed'
        : 'its listing answers again once its node does';
      const what = s === 'starting' ? 'is starting' : s === 'wrong-chain' ? 'is stopped' : 'is unreachable';
      return new TxdeskError(
        'UPSTREAM_UNAVAILABLE',
        `The network ${key} ${what} (${clause()}); ${then}. Other networks are served as usual.`,
        503,
      );
    },
    listingHeaders() {
      const indexed = indexedBlock();
      const lag = behind(indexed);
      return {
        'Txdesk-Network-State': state(),
        ...(indexed !== null ? { 'Txdesk-Indexed-Block': String(indexed) } : {}),
        ...(lag !== null ? { 'Txdesk-Indexed-Behind': String(lag) } : {}),
      };
    },
    refreshToken(contract, id) {
      const indexer = running?.indexer.current();
      if (!indexer)
        throw new TxdeskError(
          'UPSTREAM_UNAVAILABLE',
          `This instance does not index ${key} (another one holds its indexer role); send the refresh to the indexing instance, or retry later.`,
        );
      return indexer.refreshToken(contract, id);
    },
    caughtUp: async () => {
      await runningOnce;
      await running!.indexer.caughtUp();
    },
    indexerStatus,
    truncatedRanges: () => running?.indexer.current()?.truncatedRanges() ?? [],
    roles,
    errorCounts: () => watch.errorCounts(),
    receiptsDelivered: () => running?.tracker.delivered() ?? 0,
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        offChange();
        if (retryTimer) clearTimeout(retryTimer);
        clearInterval(outboxTimer);
        await watch.stop();
        await queue;
        const r = running;
        running = null;
        if (r) {
          await r.tracker.stop();
          await r.indexer.stop();
        }
      })()),
  };
}
