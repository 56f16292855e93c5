// GET /metrics through the real service app on a loopback server, read back with a real Prometheus text parser: each
// network's numbers and labels, lag and state following the source, and request metrics per route template only.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type DocumentedRoute } from '../../../src/lib/hono-kit.js';
import { silentLogger } from '../../../src/lib/log.js';
import { createServiceApp } from '../../../src/service/http/service-app.js';
import { createServiceMetrics, type MetricsSource, type NetworkMetricsSnapshot } from '../../../src/service/http/service-metrics.js';
import { closeServer, createServiceServer, listen, type ServiceServer } from '../../../src/service/http/service-server.js';
import { waitFor } from '../../support/poll.js';

const mainnet: NetworkMetricsSnapshot = {
  platform: 'ethereum',
  network: 'mainnet',
  chainId: 1,
  state: 'serving',
  headBlock: 120,
  indexedBlock: 100,
  indexLagBlocks: 20,
  indexedBehindBlocks: 20,
  receiptsDelivered: 7,
  webhookDeliveries: { sent: 11, failed: 2 },
  outboxDepth: 3,
  nodeErrors: { refused: 0, timeout: 2, lagging: 0, 'wrong-chain': 0, error: 1, 'rate-limited': 0 },
  nodeInUse: { index: 1, url: 'https://node-b.example/v3/***' },
  // Node 1 pushed back (HTTP 429) and is paced at 4.5 requests per second; node 2 never did.
  nodeBudgets: [
    { index: 0, url: 'https://node-a.example', requestsPerSecond: 4.5, backPressure: 9 },
    { index: 1, url: 'https://node-b.example/v3/***', requestsPerSecond: null, backPressure: 0 },
  ],
  roles: ['indexer-leader', 'watcher-leader'],
};
// A network this instance serves but does not index, whose node is down.
const sepolia: NetworkMetricsSnapshot = {
  platform: 'ethereum',
  network: 'sepolia',
  chainId: null,
  state: 'unreachable',
  headBlock: null,
  indexedBlock: null,
  indexLagBlocks: null,
  // Not indexed here, but the listing answers from the shared index, 30 blocks behind the last head seen.
  indexedBehindBlocks: 30,
  receiptsDelivered: 0,
  webhookDeliveries: { sent: 0, failed: 0 },
  outboxDepth: null,
  nodeErrors: { refused: 4, timeout: 0, lagging: 0, 'wrong-chain': 0, error: 0, 'rate-limited': 2 },
  nodeInUse: null,
  nodeBudgets: [{ index: 0, url: 'https://sepolia.example', requestsPerSecond: 1, backPressure: 130 }],
  roles: [],
};

const tokensTemplate = '/nft/v1/{platform}/{network}/accounts/{address}/tokens';
const address = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
// A route shaped like the listing's, so a path with an address in it is timed.
const tokensRoute: DocumentedRoute = {
  doc: { method: 'get', path: tokensTemplate, responses: { 200: { description: 'Tokens.' } } },
  handler: (c) => json(c, 200, { tokens: [] }),
};

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];
type Labels = Record<string, string>;

/** The family `name`, its samples gathered from every block of that name (untyped series can come in several). */
const family = (families: Family[], name: string): Family => {
  const blocks = families.filter((x) => x.name === name);
  if (!blocks[0]) throw new Error(`no family ${name} in the scrape`);
  return { ...blocks[0], metrics: blocks.flatMap((b) => b.metrics) };
};
const matches = (have: Labels | undefined, want: Labels) => Object.entries(want).every(([k, v]) => have?.[k] === v);
/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
const sampleValue = (families: Family[], name: string, labels: Labels = {}) => {
  const hits = family(families, name).metrics.filter((m) => matches(m.labels, labels));
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return hits[0] ? Number(hits[0].value) : undefined;
};
const net = (network: string) => ({ platform: 'ethereum', network });

describe('GET /metrics', () => {
  const snapshots = [{ ...mainnet }, { ...sepolia }];
  const source: MetricsSource = { store: 'postgres', networks: () => snapshots };
  const metrics = createServiceMetrics(source);
  let service: ServiceServer;
  let base: string;

  beforeAll(async () => {
    const health = {
      chainId: 1,
      platform: 'ethereum',
      network: 'mainnet',
      confirmations: 0,
      status: () => ({ indexedBlock: 100, headBlock: 120 }),
    };
    const app = createServiceApp(health, [metrics.route, tokensRoute], () => base, silentLogger, { observe: metrics.observe });
    service = createServiceServer(app.listener);
    await listen(service.server, 0, '127.0.0.1');
    base = service.url();
  });
  afterAll(() => closeServer(service.server));

  const scrape = async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    return { text, families: parsePrometheusTextFormat(text) };
  };

  it('gives each network its state, blocks, outbox, node and counters', async () => {
    const { families } = await scrape();
    const rows: [string, Labels, number | undefined][] = [
      ['txdesk_network_up', net('mainnet'), 1],
      ['txdesk_network_up', net('sepolia'), 0],
      ['txdesk_network_state', { ...net('mainnet'), state: 'serving' }, 1],
      ['txdesk_network_state', { ...net('sepolia'), state: 'serving' }, 0],
      ['txdesk_network_state', { ...net('sepolia'), state: 'unreachable' }, 1],
      ['txdesk_network_chain_id', net('mainnet'), 1],
      ['txdesk_network_chain_id', net('sepolia'), undefined],
      ['txdesk_head_block', net('mainnet'), 120],
      ['txdesk_head_block', net('sepolia'), undefined],
      ['txdesk_indexed_block', net('mainnet'), 100],
      ['txdesk_index_lag_blocks', net('mainnet'), 20],
      // Not indexed here: no sample, rather than a 0 that reads as "caught up".
      ['txdesk_index_lag_blocks', net('sepolia'), undefined],
      ['txdesk_outbox_depth', net('mainnet'), 3],
      ['txdesk_outbox_depth', net('sepolia'), undefined],
      ['txdesk_node_in_use', { ...net('mainnet'), index: '1', url: 'https://node-b.example/v3/***' }, 1],
      ['txdesk_node_in_use', net('sepolia'), undefined],
      ['txdesk_receipts_delivered_total', net('mainnet'), 7],
      ['txdesk_receipts_delivered_total', net('sepolia'), 0],
      ['txdesk_webhook_deliveries_total', { ...net('mainnet'), outcome: 'sent' }, 11],
      ['txdesk_webhook_deliveries_total', { ...net('mainnet'), outcome: 'failed' }, 2],
      ['txdesk_webhook_deliveries_total', { ...net('sepolia'), outcome: 'sent' }, 0],
      ['txdesk_node_errors_total', { ...net('mainnet'), kind: 'timeout' }, 2],
      ['txdesk_node_errors_total', { ...net('mainnet'), kind: 'error' }, 1],
      ['txdesk_node_errors_total', { ...net('sepolia'), kind: 'refused' }, 4],
      ['txdesk_node_errors_total', { ...net('sepolia'), kind: 'lagging' }, 0],
      ['txdesk_node_errors_total', { ...net('sepolia'), kind: 'rate-limited' }, 2],
      ['txdesk_indexed_behind_blocks', net('mainnet'), 20],
      ['txdesk_indexed_behind_blocks', net('sepolia'), 30],
      ['txdesk_node_request_budget', { ...net('mainnet'), index: '0', url: 'https://node-a.example' }, 4.5],
      // Not limited: no sample, rather than a 0 that reads as "no requests allowed".
      ['txdesk_node_request_budget', { ...net('mainnet'), index: '1' }, undefined],
      ['txdesk_node_request_budget', { ...net('sepolia'), index: '0' }, 1],
      ['txdesk_node_back_pressure_total', { ...net('mainnet'), index: '0' }, 9],
      ['txdesk_node_back_pressure_total', { ...net('mainnet'), index: '1' }, 0],
      ['txdesk_node_back_pressure_total', { ...net('sepolia'), index: '0' }, 130],
      ['txdesk_instance_role', { ...net('mainnet'), role: 'indexer-leader' }, 1],
      ['txdesk_instance_role', { ...net('mainnet'), role: 'watcher-leader' }, 1],
      ['txdesk_instance_role', { ...net('sepolia'), role: 'indexer-leader' }, 0],
      ['txdesk_instance_info', { store: 'postgres' }, 1],
    ];
    expect(rows.map(([name, labels]) => [name, labels, sampleValue(families, name, labels)])).toEqual(rows);
    expect(family(families, 'txdesk_receipts_delivered_total').type).toBe('COUNTER');
    expect(family(families, 'txdesk_node_errors_total').type).toBe('COUNTER');
    expect(family(families, 'txdesk_node_back_pressure_total').type).toBe('COUNTER');
    expect(family(families, 'txdesk_index_lag_blocks').type).toBe('GAUGE');
  });

  it('follows the source: lag grows while the node runs ahead, and a stopped node shows as down', async () => {
    // The chain moves on, the indexer does not.
    snapshots[0] = { ...mainnet, headBlock: 150, indexLagBlocks: 50 };
    expect(sampleValue((await scrape()).families, 'txdesk_index_lag_blocks', net('mainnet'))).toBe(50);

    // The node stops: the head stays where it was, the state and the error counts say why.
    snapshots[0] = {
      ...mainnet,
      state: 'unreachable',
      headBlock: 150,
      indexLagBlocks: 50,
      nodeErrors: { ...mainnet.nodeErrors, refused: 3 },
    };
    let { families } = await scrape();
    expect(sampleValue(families, 'txdesk_network_up', net('mainnet'))).toBe(0);
    expect(sampleValue(families, 'txdesk_network_state', { ...net('mainnet'), state: 'unreachable' })).toBe(1);
    expect(sampleValue(families, 'txdesk_node_errors_total', { ...net('mainnet'), kind: 'refused' })).toBe(3);

    // Back, and indexing catches up; a network that went away leaves no stale samples.
    snapshots[0] = { ...mainnet, headBlock: 151, indexedBlock: 151, indexLagBlocks: 0, nodeErrors: { ...mainnet.nodeErrors, refused: 3 } };
    snapshots.pop();
    ({ families } = await scrape());
    expect(sampleValue(families, 'txdesk_index_lag_blocks', net('mainnet'))).toBe(0);
    expect(sampleValue(families, 'txdesk_network_up', net('mainnet'))).toBe(1);
    expect(sampleValue(families, 'txdesk_network_up', net('sepolia'))).toBeUndefined();
    expect(sampleValue(families, 'txdesk_node_errors_total', { ...net('sepolia'), kind: 'refused' })).toBeUndefined();
  });

  it('counts and times requests by route template, never by raw path', async () => {
    for (let i = 0; i < 2; i++) expect((await fetch(`${base}/nft/v1/ethereum/mainnet/accounts/${address}/tokens`)).status).toBe(200);
    expect((await fetch(`${base}/tracker/ethereum/mainnet`)).status).toBe(426);
    expect((await fetch(`${base}/no/such/${address}`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);

    const requests = (route: string, status: string) => ['http_requests_total', { method: 'GET', route, status }] as const;
    // Each request is recorded once its answer is sent; the scrape after it may be a moment quicker.
    const { text, families } = await waitFor('the 404 in http_requests_total', async () => {
      const s = await scrape();
      return sampleValue(s.families, ...requests('unmatched', '404')) === 1 ? s : undefined;
    });

    expect(sampleValue(families, ...requests(tokensTemplate, '200'))).toBe(2);
    expect(sampleValue(families, ...requests('/tracker/{platform}/{network}', '426'))).toBe(1);
    expect(sampleValue(families, 'http_requests_total', { method: 'POST', route: 'unmatched', status: '405' })).toBe(1);
    expect(sampleValue(families, ...requests('/metrics', '200'))).toBeGreaterThanOrEqual(3);
    expect(text.toLowerCase()).not.toContain(address.toLowerCase());

    // This parser folds a labelled histogram into one sample (dropping its labels); without the TYPE line it reads
    // the _bucket, _sum and _count lines as untyped series, labels kept.
    const untyped = parsePrometheusTextFormat(text.replace(/^# TYPE http_request_duration_seconds histogram$/m, ''));
    const timed = { method: 'GET', route: tokensTemplate };
    expect(family(families, 'http_request_duration_seconds').type).toBe('HISTOGRAM');
    expect(sampleValue(untyped, 'http_request_duration_seconds_count', timed)).toBe(2);
    expect(sampleValue(untyped, 'http_request_duration_seconds_bucket', { ...timed, le: '+Inf' })).toBe(2);
    expect(sampleValue(untyped, 'http_request_duration_seconds_sum', timed)).toBeGreaterThan(0);
    const routes = new Set(family(untyped, 'http_request_duration_seconds_count').metrics.map((m) => m.labels?.route));
    expect([...routes].sort()).toEqual(['/metrics', '/tracker/{platform}/{network}', tokensTemplate, 'unmatched'].sort());
  });

  it('keeps each service to its own registry (two in one process do not clash)', () => {
    expect(() => createServiceMetrics(source)).not.toThrow();
  });
});
