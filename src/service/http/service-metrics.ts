// GET /metrics: the data service in the Prometheus text format (prom-client): each network's head, index lag, outbox and
// node, this instance's roles, and HTTP request counts and latencies per route template. docs/deploy.md lists the alerts.
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Counter, Gauge, Registry } from 'prom-client';
import { z } from 'zod';
import type { DocumentedRoute } from '../../lib/hono-kit.js';
import { nodeProblems, servedNetworkStates, type NodeProblem, type ServedNetworkState as NetworkState } from '../../shared/node-health.js';
import { requestMetrics } from './request-latency.js';

export type NetworkRole = 'indexer-leader' | 'watcher-leader';
export const networkRoles: readonly NetworkRole[] = ['indexer-leader', 'watcher-leader'];

/** One network as this instance sees it at the moment of a scrape. */
export interface NetworkMetricsSnapshot {
  platform: string;
  network: string;
  chainId: number | null;
  state: NetworkState;
  headBlock: number | null;
  indexedBlock: number | null;
  /** head - indexed, null when this instance does not index it */
  indexLagBlocks: number | null;
  /** Newest head seen minus the index the listing answers from, on every instance; null while unknown. */
  indexedBehindBlocks: number | null;
  /** Receipt messages delivered to subscribers since the process started (only grows). */
  receiptsDelivered: number;
  /** Webhook tries this instance made since the process started, answered 2xx (sent) or not (failed). */
  webhookDeliveries: { sent: number; failed: number };
  outboxDepth: number | null;
  /** Node failures by kind since the process started (only grow). */
  nodeErrors: Record<NodeProblem, number>;
  /** The node answering for this network; `url` is already redacted. */
  nodeInUse: { index: number; url: string } | null;
  /** Every node of the network (redacted url), with its request budget (null: not limited) and back-pressure answers so far. */
  nodeBudgets: { index: number; url: string; requestsPerSecond: number | null; backPressure: number }[];
  /** What THIS instance leads for this network. */
  roles: NetworkRole[];
}

export interface MetricsSource {
  /** Called once per scrape; keep it cheap (in-memory numbers, no I/O). */
  networks(): NetworkMetricsSnapshot[];
  store: 'sqlite' | 'postgres';
}

export interface ServiceMetrics {
  /** GET /metrics. */
  route: DocumentedRoute;
  /** Records one answered request. `route` is the route TEMPLATE (`/tracker/{platform}/{network}`) or `unmatched`, never the raw path. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** Seconds; from a cached read (5 ms) to a slow listing page behind a busy database (10 s). */
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of one service. Its own Registry, not prom-client's global one: two services in one process (the tests
 * run several) would otherwise register the same names twice. Network values are read from `source` when Prometheus
 * scrapes (collect callbacks), never on a timer.
 */
export function createServiceMetrics(source: MetricsSource): ServiceMetrics {
  const registry = new Registry();
  const at = (s: NetworkMetricsSnapshot) => ({ platform: s.platform, network: s.network });

  // One snapshot per scrape: the registry runs every collect callback in the same tick, so head, indexed block and lag
  // come from the same moment (lag is then head - indexed on every scrape) and the source is asked once, not per metric.
  let snapshot: NetworkMetricsSnapshot[] | undefined;
  const networks = () => {
    if (!snapshot) {
      snapshot = source.networks();
      queueMicrotask(() => (snapshot = undefined));
    }
    return snapshot;
  };

  /**
   * A gauge set from the snapshot on each scrape. reset() first, so a network (or a node, or a role) that went away
   * drops out instead of repeating its last value forever. A null value means unknown: no sample rather than a 0 that
   * would read as block 0 or an empty outbox.
   */
  const networkGauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    samples: (s: NetworkMetricsSnapshot) => [Record<L, string>, number | null][],
  ) =>
    new Gauge<L | 'platform' | 'network'>({
      name,
      help,
      labelNames: ['platform', 'network', ...labelNames],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of networks()) for (const [labels, value] of samples(s)) if (value !== null) this.set({ ...at(s), ...labels }, value);
      },
    });

  /**
   * The source's own totals exposed as counters. A counter, not a gauge named *_total: the number only grows, so
   * counter is its Prometheus type and rate()/increase() are the right queries (and treat a drop, a restarted process,
   * as a reset). prom-client's Counter has no set(), so each scrape resets and increments by the source's total: the
   * sample is then exactly the source's number, and never a delta we kept that could drift from it.
   */
  const networkCounter = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    samples: (s: NetworkMetricsSnapshot) => [Record<L, string>, number][],
  ) =>
    new Counter<L | 'platform' | 'network'>({
      name,
      help,
      labelNames: ['platform', 'network', ...labelNames],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of networks()) for (const [labels, value] of samples(s)) this.inc({ ...at(s), ...labels }, value);
      },
    });

  const none = {} as Record<never, string>;
  networkGauge('txdesk_network_up', '1 while the network is serving, else 0.', [], (s) => [[none, s.state === 'serving' ? 1 : 0]]);
  networkGauge('txdesk_network_state', "The network's state: 1 on the current one, 0 on the others.", ['state'], (s) =>
    servedNetworkStates.map((state) => [{ state }, s.state === state ? 1 : 0]),
  );
  networkGauge('txdesk_network_chain_id', 'The chain id the node reports (absent until known).', [], (s) => [[none, s.chainId]]);
  networkGauge('txdesk_head_block', "The node's head block.", [], (s) => [[none, s.headBlock]]);
  networkGauge('txdesk_indexed_block', 'The last block indexed (absent on an instance that does not index the network).', [], (s) => [
    [none, s.indexedBlock],
  ]);
  networkGauge(
    'txdesk_index_lag_blocks',
    'Head block minus indexed block (absent on an instance that does not index the network).',
    [],
    (s) => [[none, s.indexLagBlocks]],
  );
  networkGauge(
    'txdesk_indexed_behind_blocks',
    'Newest head seen minus the index the listing answers from (every instance; grows while the node is away).',
    [],
    (s) => [[none, s.indexedBehindBlocks]],
  );
  networkGauge(
    'txdesk_node_request_budget',
    'Requests per second allowed to a node after its back-pressure (absent while not limited).',
    ['index', 'url'],
    (s) => s.nodeBudgets.map((n) => [{ index: String(n.index), url: n.url }, n.requestsPerSecond]),
  );
  networkGauge('txdesk_outbox_depth', 'Un-acked receipt deliveries of every subscription, as last counted.', [], (s) => [
    [none, s.outboxDepth],
  ]);
  networkGauge('txdesk_node_in_use', 'The node answering for the network (1; url redacted).', ['index', 'url'], (s) =>
    s.nodeInUse ? [[{ index: String(s.nodeInUse.index), url: s.nodeInUse.url }, 1]] : [],
  );
  // Both roles on every network, 0 where this instance does not lead: summed over the fleet, a network nobody leads
  // reads 0 (an alert can fire) instead of having no series at all (an alert on a missing series never fires).
  networkGauge('txdesk_instance_role', 'Whether this instance leads the role for the network (1) or not (0).', ['role'], (s) =>
    networkRoles.map((role) => [{ role }, s.roles.includes(role) ? 1 : 0]),
  );
  networkCounter('txdesk_receipts_delivered_total', 'Receipt messages delivered to subscribers.', [], (s) => [[none, s.receiptsDelivered]]);
  networkCounter(
    'txdesk_webhook_deliveries_total',
    'Webhook tries by this instance: sent (2xx) or failed (retried later).',
    ['outcome'],
    (s) => [
      [{ outcome: 'sent' }, s.webhookDeliveries.sent],
      [{ outcome: 'failed' }, s.webhookDeliveries.failed],
    ],
  );
  networkCounter('txdesk_node_errors_total', 'Node failures by kind.', ['kind'], (s) =>
    nodeProblems.map((kind) => [{ kind }, s.nodeErrors[kind] ?? 0]),
  );
  networkCounter(
    'txdesk_node_back_pressure_total',
    'Back-pressure answers (HTTP 429, capacity errors) from each node: slowed down for, not failures.',
    ['index', 'url'],
    (s) => s.nodeBudgets.map((n) => [{ index: String(n.index), url: n.url }, n.backPressure]),
  );

  new Gauge({ name: 'txdesk_instance_info', help: "This instance's store (1).", labelNames: ['store'], registers: [registry] }).set(
    { store: source.store },
    1,
  );

  const requests = requestMetrics(registry, latencyBuckets);

  return {
    route: {
      doc: {
        method: 'get',
        path: '/metrics',
        operationId: 'metrics',
        summary: 'Prometheus metrics: networks, roles, HTTP requests (docs/deploy.md)',
        responses: {
          200: {
            description: 'The Prometheus text format, version 0.0.4.',
            content: { 'text/plain; version=0.0.4': { schema: z.string() } },
          },
        },
      },
      handler: async (c) => {
        const text = await registry.metrics();
        c.env.outgoing.writeHead(200, {
          'content-type': registry.contentType,
          'content-length': Buffer.byteLength(text),
          'cache-control': 'no-store',
        });
        c.env.outgoing.end(text);
        return RESPONSE_ALREADY_SENT;
      },
    },
    observe: (method, route, status, seconds) => requests.record(method, route, status, seconds),
  };
}
