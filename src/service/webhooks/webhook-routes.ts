// The webhook API (docs/webhooks.md): /tracker/v1/webhooks and its members, scoped by the `clientId` query parameter
// as the listing is; bodies checked by webhook-schemas.ts, from which the OpenAPI document is generated.
import { z } from 'zod';
import { errorReply, json, jsonReply, type DocumentedRoute, type NodeEnv } from '../../lib/hono-kit.js';
import { readJsonBody } from '../../lib/http-kit.js';
import type { RateLimiter } from '../../lib/http-rate-limit.js';
import { parseBody } from '../../lib/http-validation.js';
import { knownClientId, onlyClientId, readQuery } from '../listing/listing-params.js';
import type { Context } from 'hono';
import type { Webhooks } from './index.js';
import { attemptReply, createWebhookSchema, replaySchema, updateWebhookSchema, webhookReply, webhookWithSecret } from './webhook-schemas.js';

const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
const clientIdQuery = z.object({ clientId: z.string().meta({ description: 'Your clientId (`txdesk account:describe`).' }) });
const idParams = z.object({ id: z.string() });
const unauthorized = errorReply('The clientId is missing or unknown.');
const throttled = errorReply('Too many requests for this clientId; the Retry-After header says when to retry.');
const notFound = errorReply('No such webhook for this clientId.');
const invalid = errorReply('A field is invalid, or the URL may not be reached; the message says which and why.');

export interface WebhookRouteDeps {
  webhooks: Webhooks;
  isClientId(id: string): boolean;
  /** Per clientId, as the listing's requests (429 with Retry-After). */
  limiter: RateLimiter;
  /** Per clientId, for `test`: each one makes the service send a request to a URL of the client's choosing. */
  testLimiter: RateLimiter;
  now?: () => number;
}

export function webhookRoutes(deps: WebhookRouteDeps): DocumentedRoute[] {
  const { webhooks } = deps;
  const now = deps.now ?? Date.now;
  /** The request's clientId, known to the service and within its rate limit, and nothing else in the query. */
  function clientOf(c: Context<NodeEnv>, limiter: RateLimiter = deps.limiter): string {
    const query = readQuery(new URL(c.req.url).search);
    const id = knownClientId(query, deps.isClientId);
    limiter.take(id, now());
    onlyClientId(query);
    return id;
  }
  const idOf = (c: Context<NodeEnv>) => c.req.param('id') ?? '';

  return [
    {
      doc: {
        method: 'post',
        path: '/tracker/v1/webhooks',
        operationId: 'createWebhook',
        summary: 'Create a webhook: tracker messages and/or address activity POSTed to a URL, signed',
        request: { query: clientIdQuery, body: body(createWebhookSchema) },
        responses: {
          201: jsonReply('The webhook, with its secret (shown this once).', webhookWithSecret),
          400: invalid,
          401: unauthorized, 429: throttled,
          403: errorReply('The clientId has as many webhooks as it may.'),
          404: errorReply('The network is not served here.'),
        },
      },
      async handler(c) {
        const clientId = clientOf(c);
        const input = parseBody(createWebhookSchema, await readJsonBody(c.env.incoming), 'url and, optionally, platform, network, trackerMessages and addresses');
        return json(c, 201, await webhooks.create(clientId, input));
      },
    },
    {
      doc: {
        method: 'get',
        path: '/tracker/v1/webhooks',
        operationId: 'listWebhooks',
        summary: "The clientId's webhooks, on every network",
        request: { query: clientIdQuery },
        responses: { 200: jsonReply('Every webhook of the clientId (secrets are never shown again).', z.object({ data: z.array(webhookReply) })), 401: unauthorized, 429: throttled },
      },
      handler: async (c) => json(c, 200, { data: await webhooks.list(clientOf(c)) }),
    },
    {
      doc: {
        method: 'get',
        path: '/tracker/v1/webhooks/{id}',
        operationId: 'getWebhook',
        summary: 'One webhook, with its state and waiting deliveries',
        request: { query: clientIdQuery, params: idParams },
        responses: { 200: jsonReply('The webhook.', webhookReply), 401: unauthorized, 429: throttled, 404: notFound },
      },
      handler: async (c) => json(c, 200, await webhooks.get(clientOf(c), idOf(c))),
    },
    {
      doc: {
        method: 'patch',
        path: '/tracker/v1/webhooks/{id}',
        operationId: 'updateWebhook',
        summary: 'Change URL, what is delivered or state; rotate the secret',
        request: { query: clientIdQuery, params: idParams, body: body(updateWebhookSchema) },
        responses: { 200: jsonReply('The webhook (with `secret` when rotated).', webhookReply.extend({ secret: z.string().optional() })), 400: invalid, 401: unauthorized, 429: throttled, 404: notFound },
      },
      async handler(c) {
        const clientId = clientOf(c);
        const input = parseBody(updateWebhookSchema, await readJsonBody(c.env.incoming), 'the fields to change');
        return json(c, 200, await webhooks.update(clientId, idOf(c), input));
      },
    },
    {
      doc: {
        method: 'delete',
        path: '/tracker/v1/webhooks/{id}',
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook and what waits for it',
        request: { query: clientIdQuery, params: idParams },
        responses: { 200: jsonReply('Deleted.', z.object({ deleted: z.literal(true) })), 401: unauthorized, 429: throttled, 404: notFound },
      },
      async handler(c) {
        await webhooks.remove(clientOf(c), idOf(c));
        return json(c, 200, { deleted: true });
      },
    },
    {
      doc: {
        method: 'post',
        path: '/tracker/v1/webhooks/{id}/test',
        operationId: 'testWebhook',
        summary: 'Send a signed `test` message now and report the answer',
        request: { query: clientIdQuery, params: idParams },
        responses: { 200: jsonReply('What the receiver answered (ok: a 2xx).', attemptReply), 401: unauthorized, 429: throttled, 404: notFound },
      },
      handler: async (c) => json(c, 200, await webhooks.test(clientOf(c, deps.testLimiter), idOf(c))),
    },
    {
      doc: {
        method: 'post',
        path: '/tracker/v1/webhooks/{id}/replay',
        operationId: 'replayWebhook',
        summary: 'Send sent messages again: a time range, or from a message id on',
        description: 'Replayed deliveries keep their deliveryId and carry `Txdesk-Replay: 1`. Sent deliveries are kept for 7 days.',
        request: { query: clientIdQuery, params: idParams, body: body(replaySchema) },
        responses: { 200: jsonReply('How many deliveries will be sent again.', z.object({ replayed: z.int() })), 400: invalid, 401: unauthorized, 429: throttled, 404: notFound },
      },
      async handler(c) {
        const clientId = clientOf(c);
        const input = parseBody(replaySchema, await readJsonBody(c.env.incoming), 'from (and to) or fromMessageId');
        return json(c, 200, await webhooks.replay(clientId, idOf(c), input));
      },
    },
  ];
}
