// The service's own endpoints: /health, /openapi.json, and a hint for plain HTTP requests to the tracker's WebSocket.
import { z } from 'zod';
import { errorReply, json, jsonReply, type DocumentedRoute } from '../../lib/hono-kit.js';
import { TxdeskError } from '../../shared/errors.js';
import { networkHealth } from '../network/network-routes.js';

export interface HealthSource {
  chainId: number;
  platform: string;
  network: string;
  confirmations: number;
  /** Indexer position, roles, outbox depth, and anything else the instance reports. */
  status(): { indexedBlock: number; headBlock: number } & Record<string, unknown>;
}

const healthReply = z
  .object({
    status: z.literal('ok'),
    chainId: z.int().meta({ description: "The default network's (0 until its node has answered)." }),
    platform: z.string(),
    network: z.string(),
    indexerLag: z.int().meta({ description: 'Blocks the indexer stays behind the chain head (`txdesk service --indexer-lag`).' }),
    confirmations: z.int().meta({ description: 'Old name of indexerLag.' }),
    indexedBlock: z.int(),
    headBlock: z.int(),
    truncatedRanges: z.object({ count: z.int(), cap: z.int(), latest: z.array(z.object({}).loose()) }).meta({
      description: 'EIP-2309 ConsecutiveTransfer events naming more tokens than the cap: only the first `cap` tokens are indexed.',
    }),
    roles: z
      .array(z.enum(['indexer-leader', 'watcher-leader', 'follower']))
      .meta({ description: 'What this instance does in a fleet; both leaders when it runs alone.' }),
    store: z.enum(['sqlite', 'postgres']),
    indexLagBlocks: z
      .int()
      .nullable()
      .meta({ description: "Blocks between the node's head and the indexed tip; null on an instance that does not index." }),
    outboxDepth: z.int().nullable().meta({ description: 'Un-acked deliveries of every subscription, as last counted (every 2 s).' }),
    networks: z
      .array(networkHealth)
      .meta({ description: 'Every network served, the default first (the fields above describe the default).' }),
  })
  .meta({ id: 'Health' });

/** `document` writes the OpenAPI document of the whole service (the app that mounts these routes knows it). */
export function serviceRoutes(health: HealthSource, document: () => object): DocumentedRoute[] {
  return [
    {
      doc: {
        method: 'get',
        path: '/health',
        operationId: 'health',
        summary: 'Liveness, roles and indexer progress',
        responses: { 200: jsonReply('The service is up.', healthReply) },
      },
      handler: (c) =>
        json(c, 200, {
          status: 'ok',
          chainId: health.chainId,
          platform: health.platform,
          network: health.network,
          indexerLag: health.confirmations,
          confirmations: health.confirmations,
          ...health.status(),
        }),
    },
    {
      doc: {
        method: 'get',
        path: '/openapi.json',
        operationId: 'openApi',
        summary: 'This document',
        responses: { 200: jsonReply('OpenAPI 3.1 document.', z.object({}).loose()) },
      },
      handler: (c) => json(c, 200, document()),
    },
  ];
}

/**
 * A plain GET of a tracker's WebSocket path: mounted after every other route, so that paths under /tracker/ that are
 * routes of their own (the webhook API, /tracker/v1/webhooks) are not taken for a network's tracker.
 */
export function trackerUpgradeHint(): DocumentedRoute {
  return {
    doc: {
      method: 'get',
      path: '/tracker/{platform}/{network}',
      operationId: 'tracker',
      summary: 'The transaction tracker (WebSocket, JSON-RPC 2.0; see docs/api.md)',
      description: 'Connect with a WebSocket client and `?clientId=…`; a plain HTTP request is refused with 426.',
      request: { params: z.object({ platform: z.string(), network: z.string() }) },
      responses: {
        426: errorReply('This endpoint speaks WebSocket; connect with a WebSocket client (for example the txdesk/tracker SDK).'),
      },
    },
    // A WebSocket upgrade never reaches the routes (the tracker handles 'upgrade'); a plain GET here is a client mistake.
    handler: () => {
      throw new TxdeskError(
        'BAD_REQUEST',
        'The tracker speaks WebSocket; connect with a WebSocket client (for example the txdesk/tracker SDK).',
        426,
      );
    },
  };
}
