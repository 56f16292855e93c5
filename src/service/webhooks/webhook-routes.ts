// The webhook API (docs/webhooks.md): /tracker/v1/webhooks and its members, for the account whose API secret or session
// token is in the Authorization header (never the clientId alone); bodies checked by webhook-schemas.ts, from which
// the OpenAPI document is generated.
import { z } from 'zod';
import { errorReply, json, jsonReply, type DocumentedRoute, type NodeEnv } from '../../lib/hono-kit.js';
import { readJsonBody } from '../../lib/http-kit.js';
import type { RateLimiter } from '../../lib/http-rate-limit.js';
import { parseBody } from '../../lib/http-validation.js';
import { TxdeskError } from '../../shared/errors.js';
import { onlyClientId, readQuery } from '../listing/listing-params.js';
import type { Context } from 'hono';
import type { Webhooks } from './webhook-service.js';
import {
  attemptReply,
  createWebhookSchema,
  replaySchema,
  updateWebhookSchema,
  webhookReply,
  webhookWithSecret,
} from './webhook-schemas.js';

const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
const clientIdQuery = z.object({
  clientId: z
    .string()
    .optional()
    .meta({
      description:
        'Not needed: the credential names the account. Accepted so URLs written before the credential keep working; when ' +
        "given it must be the credential's account's clientId (403 otherwise).",
    }),
});
/** Either credential of the account; the clientId alone is never enough. */
const credential: Record<string, string[]>[] = [{ apiSecret: [] }, { bearerAuth: [] }];
const idParams = z.object({ id: z.string() });
const unauthorized = errorReply(
  "No credential, or one that is not valid: send the account's API secret (or a session token) as `Authorization: Bearer …`.",
);
const otherAccount = errorReply("The clientId in the query is not the credential's account's.");
const throttled = errorReply('Too many requests for this clientId; the Retry-After header says when to retry.');
const notFound = errorReply('No such webhook for this clientId.');
const invalid = errorReply('A field is invalid, or the URL may not be reached; the message says which and why.');

export interface WebhookRouteDeps {
  webhooks: Webhooks;
  /** The account of the request's `Authorization` header (accounts' authorizeManagement); a 401 without one. */
  authorize(authorization: string | undefined): Promise<{ clientId: string }>;
  /** Per clientId, as the listing's requests (429 with Retry-After). */
  limiter: RateLimiter;
  /** Per clientId, for `test`: each one makes the service send a request to a URL of the client's choosing. */
  testLimiter: RateLimiter;
  now?: () => number;
}

export function webhookRoutes(deps: WebhookRouteDeps): DocumentedRoute[] {
  const { webhooks } = deps;
  const now = deps.now ?? Date.now;
  /**
   * The clientId of the account the credential belongs to, within its rate limit, and nothing in the query but that
   * clientId. The credential is checked first, so a request without one is refused before it counts against the
   * clientId's limit (which the listing shares).
   */
  async function clientOf(c: Context<NodeEnv>, limiter: RateLimiter = deps.limiter): Promise<string> {
    const { clientId } = await deps.authorize(c.req.header('authorization'));
    const query = readQuery(new URL(c.req.url).search);
    const named = query.clientId;
    if (Array.isArray(named))
      throw new TxdeskError('INVALID_PARAMETER', "The query parameter 'clientId' was given more than once; give it once, or leave it out.");
    if (named !== undefined && named !== clientId) {
      throw new TxdeskError(
        'FORBIDDEN',
        "The clientId in the query is not this credential's account's: leave clientId out (the credential names the " +
          'account), or send the API secret of the account it belongs to.',
      );
    }
    limiter.take(clientId, now());
    onlyClientId(query);
    return clientId;
  }
  const idOf = (c: Context<NodeEnv>) => c.req.param('id') ?? '';

  return [
    {
      doc: {
        method: 'post',
        path: '/tracker/v1/webhooks',
        operationId: 'createWebhook',
        summary: 'Create a webhook: tracker messages and/or address activity POSTed to a URL, signed',
        security: credential,
        request: { query: clientIdQuery, body: body(createWebhookSchema) },
        responses: {
          201: jsonReply('The webhook, with its secret (shown this once).', webhookWithSecret),
          400: invalid,
          401: unauthorized,
          429: throttled,
          403: errorReply("The account has as many webhooks as it may, or the clientId in the query is not the credential's account's."),
          404: errorReply('The network is not served here.'),
        },
      },
      async handler(c) {
        const clientId = await clientOf(c);
        const input = parseBody(
          createWebhookSchema,
          await readJsonBody(c.env.incoming),
          'url and, optionally, platform, network, trackerMessages and addresses',
        );
        return json(c, 201, await webhooks.create(clientId, input));
      },
    },
    {
      doc: {
        method: 'get',
        path: '/tracker/v1/webhooks',
        operationId: 'listWebhooks',
        summary: "The clientId's webhooks, on every network",
        security: credential,
        request: { query: clientIdQuery },
        responses: {
          200: jsonReply('Every webhook of the clientId (secrets are never shown again).', z.object({ data: z.array(webhookReply) })),
          401: unauthorized,
          403: otherAccount,
          429: throttled,
        },
      },
      handler: async (c) => json(c, 200, { data: await webhooks.list(await clientOf(c)) }),
    },
    {
      doc: {
        method: 'get',
        path: '/tracker/v1/webhooks/{id}',
        operationId: 'getWebhook',
        summary: 'One webhook, with its state and waiting deliveries',
        security: credential,
        request: { query: clientIdQuery, params: idParams },
        responses: { 200: jsonReply('The webhook.', webhookReply), 401: unauthorized, 403: otherAccount, 429: throttled, 404: notFound },
      },
      handler: async (c) => json(c, 200, await webhooks.get(await clientOf(c), idOf(c))),
    },
    {
      doc: {
        method: 'patch',
        path: '/tracker/v1/webhooks/{id}',
        operationId: 'updateWebhook',
        summary: 'Change URL, what is delivered or state; rotate the secret',
        security: credential,
        request: { query: clientIdQuery, params: idParams, body: body(updateWebhookSchema) },
        responses: {
          200: jsonReply('The webhook (with `secret` when rotated).', webhookReply.extend({ secret: z.string().optional() })),
          400: invalid,
          401: unauthorized,
          403: otherAccount,
          429: throttled,
          404: notFound,
        },
      },
      async handler(c) {
        const clientId = await clientOf(c);
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
        security: credential,
        request: { query: clientIdQuery, params: idParams },
        responses: {
          200: jsonReply('Deleted.', z.object({ deleted: z.literal(true) })),
          401: unauthorized,
          403: otherAccount,
          429: throttled,
          404: notFound,
        },
      },
      async handler(c) {
        await webhooks.remove(await clientOf(c), idOf(c));
        return json(c, 200, { deleted: true });
      },
    },
    {
      doc: {
        method: 'post',
        path: '/tracker/v1/webhooks/{id}/test',
        operationId: 'testWebhook',
        summary: 'Send a signed `test` message now and report the answer',
        security: credential,
        request: { query: clientIdQuery, params: idParams },
        responses: {
          200: jsonReply('What the receiver answered (ok: a 2xx).', attemptReply),
          401: unauthorized,
          403: otherAccount,
          429: throttled,
          404: notFound,
        },
      },
      handler: async (c) => json(c, 200, await webhooks.test(await clientOf(c, deps.testLimiter), idOf(c))),
    },
    {
      doc: {
        method: 'post',
        path: '/tracker/v1/webhooks/{id}/replay',
        operationId: 'replayWebhook',
        summary: 'Send sent messages again: a time range, or from a message id on',
        description: 'Replayed deliveries keep their deliveryId and carry `Txdesk-Replay: 1`. Sent deliveries are kept for 7 days.',
        security: credential,
        request: { query: clientIdQuery, params: idParams, body: body(replaySchema) },
        responses: {
          200: jsonReply('How many deliveries will be sent again.', z.object({ replayed: z.int() })),
          400: invalid,
          401: unauthorized,
          403: otherAccount,
          429: throttled,
          404: notFound,
        },
      },
      async handler(c) {
        const clientId = await clientOf(c);
        const input = parseBody(replaySchema, await readJsonBody(c.env.incoming), 'from (and to) or fromMessageId');
        return json(c, 200, await webhooks.replay(clientId, idOf(c), input));
      },
    },
  ];
}
