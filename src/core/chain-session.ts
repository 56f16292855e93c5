// One network's chain-bound parts, opened together and stopped together: the node link, this chain's transaction store,
// the tracker subscription on this network, the engine and its nonce watchdog. The key, the settings, the approvals and
// the localhost server are the core's alone; the core holds one session per network it has opened
// (services/network-sessions.ts decides which one is active), so a transaction left open on one network keeps being
// watched and settled while another is shown.
import type { Logger } from '../lib/log.js';
import { createShutdown } from '../lib/shutdown.js';
import type { AppInfo, AppStatus, ReplacementPolicy } from '../shared/desktop-api.js';
import { TxdeskError } from '../shared/errors.js';
import type { TxRecord } from '../shared/tx-record.js';
import { isTrackerError } from '@txdesk/tracker';
import { createJsonRpcChain } from './adapters/chain/chain-jsonrpc.js';
import { openTxStore } from './adapters/sqlite/tx-store-sqlite.js';
import { createSdkTrackerFeed } from './adapters/tracker/tracker-feed-sdk.js';
import type { CoreOptions } from './core-options.js';
import { appSubscriptionId, txStoreFile } from './data-files.js';
import { networkKey } from '../shared/networks.js';
import { wrongChainMessage } from './domain/networks.js';
import type { Chain, Clock, DevchainControl, Signer, TxStore } from './ports.js';
import { createClientFeed } from './services/client-feed.js';
import { createLinkStatus, type LinkStatusBoard } from './services/link-status.js';
import { observeChain, watchNode } from './services/node-link.js';
import { startNonceWatchdog, type NonceWatchdog } from './services/nonce-watchdog.js';
import { createTxEngine, type RecoverySummary, type TxEngine } from './services/tx-engine.js';
import { describeTrackerError, startupTrackerRefusal, type TrackerNet } from './startup-refusals.js';

/** Far longer than any redelivery: the tracker drops a message once it is acked. */
const PROCESSED_ID_TTL_MS = 30 * 24 * 3600 * 1000;

/** Which network to open, and where. */
export interface SessionTarget {
  platform: string;
  network: string;
  nodeUrl: string;
  /** The service's default network (its listing paths have no /{platform}/{network}). */
  isDefault: boolean;
  /** The chain the service says the network is; a node on another chain is refused. Null: not known. */
  chainId: number | null;
  devchain: DevchainControl | null;
  /** The start network's node, already reached and checked by start-up (startup-phases.ts). */
  reached?: { chain: Chain; chainId: number; genesis: string };
  /** The service was found down at start-up: the tracker link starts unreachable, and start-up does not wait for it. */
  serviceDown?: string | null;
  /** Opened by start-up: a tracker refusal is a ConfigError (exit 2), not an answer to a switch. */
  atStartup?: boolean;
}

/** What every session shares: the core's options, the data folder, the service and the key. */
export interface SessionDeps {
  opts: CoreOptions;
  log: Logger;
  dataDir: string;
  embedded: boolean;
  /** The service, with where its settings came from (for the tracker's sentences). */
  service: Pick<TrackerNet, 'serviceUrl' | 'origin'>;
  /** The client ID in use now. */
  clientId(): string;
  signer(): Signer | null;
  policy(): ReplacementPolicy;
  clock: Clock;
  /** Records this session's engine changed, stamped with its chain id. */
  changed(session: ChainSession, records: TxRecord[]): void;
  /** This session's tracker or node link changed. */
  statusChanged(session: ChainSession, status: AppStatus): void;
}

export interface ChainSession {
  platform: string;
  network: string;
  isDefault: boolean;
  /** The network as AppInfo describes it (without the address, the link states and the localhost server's /rpc). */
  info: Omit<AppInfo, 'address' | 'status' | 'toolRpc'>;
  chain: Chain;
  store: TxStore;
  engine: TxEngine;
  devchain: DevchainControl | null;
  /** This network's tracker and node link states. */
  board: LinkStatusBoard;
  recovery: RecoverySummary;
  /** Open nonces of every sender on this chain. */
  openNonces(): number;
  /** Moves the tracker subscription to another client ID and registers every open hash under it. */
  switchClientId(clientId: string): Promise<void>;
  /** A raised fee cap or limit applies at once to nonces skipped under the old one. */
  kickWatchdog(): void;
  stop(): Promise<void>;
}

/** Opens `t`: reaches its node (unless start-up did), opens its store, subscribes, recovers open nonces, starts the watchdog. */
export async function openChainSession(d: SessionDeps, t: SessionTarget, mode: AppInfo['mode']): Promise<ChainSession> {
  // The start network logs as the core always has; a network opened later says which it is.
  const log = t.atStartup ? d.log : d.log.child(networkKey(t));
  // Each part registers its undo here right after it starts; stop() (or a failure half-way) runs them newest first.
  const shutdown = createShutdown((e) => log.warn(`stopping ${networkKey(t)}: ${(e as Error).message}`));
  let session: ChainSession | null = null;
  try {
    const board = createLinkStatus({ log: log.child('link'), emit: (status) => session && d.statusChanged(session, status) });
    // The start network's node was reached (and is closed) by start-up; a node reached here is closed here.
    const raw = t.reached?.chain ?? createJsonRpcChain(t.nodeUrl);
    if (!t.reached) shutdown.add(() => raw.close());
    const { chainId, genesis } = t.reached ?? (await reachNode(raw, t));
    // Every node call tells the node's link state; a refusal is an answer, only "unreachable" is not.
    const chain = observeChain(raw, (ok, why) =>
      board.set(
        'node',
        ok ? 'connected' : 'unreachable',
        ok ? null : `${why} Checking again every 15 s; transactions are stored and sent again when it is back.`,
      ),
    );
    shutdown.add(watchNode(chain));
    const net: TrackerNet = { ...d.service, platform: t.platform, network: t.network };
    if (t.serviceDown)
      board.set(
        'tracker',
        'unreachable',
        `${t.serviceDown}; retrying with backoff up to 5 s apart, meanwhile transactions are still sent and their tracking is queued.`,
      );

    const store = openTxStore(
      txStoreFile(d.dataDir, d.embedded, chainId, genesis),
      d.opts.nativeBinding ? { nativeBinding: d.opts.nativeBinding } : {},
    );
    shutdown.add(() => store.close());
    store.pruneProcessed(new Date(Date.now() - PROCESSED_ID_TTL_MS).toISOString());

    const tracking = openTracking(d, t, { net, board, subscriptionId: appSubscriptionId(d.dataDir, chainId, genesis), log });
    shutdown.add(() => tracking.queue.stop());

    const engine = createTxEngine({
      store,
      chain,
      feed: tracking.feed,
      clock: d.clock,
      log: log.child('tx'),
      chainId,
      signer: d.signer,
      policy: d.policy,
      changed: (recs) => session && d.changed(session, recs),
    });
    // Runs before the store closes (registered after it): in-flight work (a message half-applied, a broadcast) ends first.
    shutdown.add(() => {
      engine.stop();
      return Promise.race([engine.idle(), new Promise<void>((r) => setTimeout(r, 5_000).unref())]);
    });
    // Runs before the engine's wait (registered after it): no new message may start once stopping has begun.
    shutdown.add(() => tracking.feed.stop());

    const recovery = await engine.recover();
    if (recovery.nonces > 0) {
      log.info(
        `recovered ${recovery.nonces} open nonce(s): ${recovery.mined} mined, ${recovery.usedElsewhere} used ` +
          `elsewhere, ${recovery.rebroadcast} sent again, ${recovery.tracked} tracked`,
      );
    }
    await tracking.feed
      .start((m) => engine.handleMessage(m), tracking.onError)
      .catch((e: unknown) => {
        if (t.atStartup) throw startupTrackerRefusal(e, net);
        if (isTrackerError(e, 'UNKNOWN_CLIENT_ID') || isTrackerError(e, 'NOT_FOUND'))
          throw new TxdeskError('CONFLICT', describeTrackerError(e, net, 'starting'));
        throw e;
      });
    const watchdog: NonceWatchdog = startNonceWatchdog(engine, log.child('watchdog'));
    // Runs before engine.idle() (registered after it): no retry starts once stopping has begun; one in flight is awaited.
    shutdown.add(() => watchdog.stop());

    session = {
      platform: t.platform,
      network: t.network,
      isDefault: t.isDefault,
      info: { mode, chainId, nodeUrl: t.nodeUrl, serviceUrl: d.service.serviceUrl, platform: t.platform, network: t.network },
      chain,
      store,
      engine,
      devchain: t.devchain,
      board,
      recovery,
      openNonces: () => store.senders().reduce((n, from) => n + store.openNonces(from).length, 0),
      async switchClientId(clientId) {
        if (shutdown.isStopping) return;
        board.set('tracker', 'connecting', 'Switching the tracker to the new client ID.');
        await tracking.switchTo(clientId, (m) => engine.handleMessage(m), tracking.onError);
        // Hashes were registered under the old client ID: register every open one under the new one.
        await engine.recover();
      },
      kickWatchdog: () => void watchdog.kick(),
      stop: () => shutdown.run(),
    };
    return session;
  } catch (e) {
    await shutdown.run();
    throw e;
  }
}

/** A network's node, reached for the first time: its chain id (checked against the service's) and genesis hash. */
async function reachNode(raw: Chain, t: SessionTarget): Promise<{ chainId: number; genesis: string }> {
  const [chainId, genesis] = await Promise.all([raw.chainId(), raw.genesisHash()]).catch(() => {
    throw new TxdeskError(
      'UPSTREAM_UNAVAILABLE',
      `The Ethereum node of ${networkKey(t)} at ${t.nodeUrl} could not be reached; check that it runs, or set another node URL under Settings → Networks.`,
    );
  });
  if (t.chainId !== null && chainId !== t.chainId) throw new TxdeskError('CONFLICT', wrongChainMessage(t, t.nodeUrl, chainId, t.chainId));
  return { chainId, genesis };
}

/** The tracker subscription of this data folder and chain, behind the client-ID switch and the tracking queue; its link
 * state goes to the session's board. The session starts it once recovery has registered the open hashes. */
function openTracking(
  d: SessionDeps,
  t: SessionTarget,
  o: { net: TrackerNet; board: LinkStatusBoard; subscriptionId: string; log: Logger },
) {
  const { board, net } = o;
  const client = createClientFeed({
    make: (clientId) =>
      createSdkTrackerFeed({
        serviceUrl: net.serviceUrl,
        clientId,
        platform: t.platform,
        network: t.network,
        subscriptionId: o.subscriptionId,
        ackTimeout: d.opts.ackTimeoutMs,
        minAckTimeout: d.opts.minAckTimeoutMs,
        // A service found down at start-up: start-up does not wait for it.
        readyTimeoutMs: t.serviceDown ? 0 : undefined,
        onLink: (state, e) => {
          if (state === 'unreachable') {
            // A plain connection failure says less than the reason already shown (the start-up probe's "Cannot reach
            // the data service at …"); only a refusal (unknown clientId, network not served) says more.
            const refusal = e?.code === 'UNKNOWN_CLIENT_ID' || e?.code === 'NOT_FOUND';
            if (!refusal && board.get().tracker.state === 'unreachable') return;
            return board.set('tracker', 'unreachable', e ? describeTrackerError(e, net) : null);
          }
          board.set('tracker', 'connected');
          client.queue.flush();
        },
      }),
    clientId: d.clientId(),
    isUp: () => board.get().tracker.state === 'connected',
    log: o.log.child('tracker'),
  });
  // Link trouble is logged once per change by the board; while the link is down other errors are expected noise.
  const onError = (e: Error) =>
    board.get().tracker.state === 'connected' ? o.log.warn(`tracker: ${e.message}`) : o.log.debug?.(`tracker: ${e.message}`);
  return { ...client, onError };
}
