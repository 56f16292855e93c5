// GET /nft/v1/networks: the networks this service serves, with chain id, head, indexed block and state (nodes only as
// scheme://host:port: paths and user parts of node URLs can carry API keys). Open to anyone, like /health.
import { z } from 'zod';
import { json, jsonReply, type DocumentedRoute } from '../../lib/hono-kit.js';
import type { NetworkReport } from './served-network.js';

export const NETWORK_STATES = ['starting', 'serving', 'unreachable', 'wrong-chain'] as const;

export const networkSummary = z
  .object({
    platform: z.string(),
    network: z.string(),
    chainId: z.int().nullable().meta({ description: 'Null until a node of the network has answered (unless configured).' }),
    default: z.boolean().meta({ description: 'The network of the paths without /{platform}/{network} (the first configured).' }),
    state: z.enum(NETWORK_STATES).meta({
      description:
        'serving; starting (no node answered yet); unreachable (no node answers, or only with back-pressure for 60 s); wrong-chain (stopped: see reason).',
    }),
    reason: z.string().meta({ description: 'Why, in one sentence, and which node is in use.' }),
    headBlock: z.int().nullable(),
    indexedBlock: z.int().nullable().meta({
      description: 'Null on an instance that does not index this network, and on the one that does until its first step is written.',
    }),
    indexLagBlocks: z.int().nullable(),
    indexedBehindBlocks: z
      .int()
      .nullable()
      .meta({
        description:
          "Blocks between the newest head seen from the network's nodes and the index the listing answers from (every " +
          "instance); a lower bound while no node answers. The listing's Txdesk-Indexed-Behind header.",
      }),
    headSeenAt: z.string().nullable().meta({ description: 'When a node last reported that head (ISO 8601); null before any did.' }),
  })
  .meta({ id: 'NetworkSummary' });

/** A network on /health: its summary, and which node serves it and what this instance does for it. */
export const networkHealth = networkSummary
  .extend({
    indexerLag: z.int().nullable().meta({ description: 'Blocks the indexer stays behind the head.' }),
    roles: z.array(z.enum(['indexer-leader', 'watcher-leader'])).meta({ description: 'What this instance leads for this network.' }),
    node: z.object({
      inUse: z.int().nullable().meta({ description: 'Index of the node in use in the configured list; null while none answers.' }),
      nodes: z.array(
        z.object({
          url: z.string().meta({ description: 'Scheme, host and port only.' }),
          head: z.int().nullable(),
          problem: z.string().nullable().meta({ description: 'refused, timeout, error, lagging, wrong-chain, rate-limited, or null.' }),
          requestsPerSecond: z
            .number()
            .nullable()
            .meta({ description: "The request budget after the node's back-pressure (HTTP 429); null while it is not limited." }),
          throttledSince: z
            .string()
            .nullable()
            .meta({ description: 'Since when the node has answered nothing but back-pressure (ISO 8601); null while it answers.' }),
          backPressure: z
            .int()
            .meta({ description: 'Back-pressure answers (HTTP 429, capacity errors) from this node to this instance since it started.' }),
        }),
      ),
    }),
    outboxDepth: z.int().nullable(),
  })
  .meta({ id: 'NetworkHealth' });

export const summarize = (r: NetworkReport): z.infer<typeof networkSummary> => ({
  platform: r.platform,
  network: r.network,
  chainId: r.chainId,
  default: r.default,
  state: r.state,
  reason: r.reason,
  headBlock: r.headBlock,
  indexedBlock: r.indexedBlock,
  indexLagBlocks: r.indexLagBlocks,
  indexedBehindBlocks: r.indexedBehindBlocks,
  headSeenAt: r.headSeenAt,
});

export function networkRoutes(reports: () => NetworkReport[]): DocumentedRoute[] {
  return [
    {
      doc: {
        method: 'get',
        path: '/nft/v1/networks',
        operationId: 'networks',
        summary: 'The networks this service serves',
        description: 'The default network first. No clientId needed.',
        responses: { 200: jsonReply('Every network served.', z.object({ data: z.array(networkSummary) })) },
      },
      handler: (c) => json(c, 200, { data: reports().map(summarize) }),
    },
  ];
}
