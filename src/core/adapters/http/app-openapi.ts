// Each route of the app's localhost API as an OpenAPI route with its zod schemas, from the contract table: the server
// registers them in its OpenAPIHono app, which writes GET /api/openapi.json, so the document cannot drift from the
// routes it serves.
import type { RouteConfig } from '@hono/zod-openapi';
import { z } from 'zod';
import { errorReply, openApiPath } from '../../../lib/hono-kit.js';
import {
  desktopMethods,
  eventMethods,
  splitRoute,
  type ArgPlace,
  type CallMethod,
  type CallSpec,
  type extraRoutes,
} from '../../../shared/desktop-api.js';
import { desktopArgs, tokenImageUrlSchema, tokenQuerySchema } from '../../../shared/desktop-schemas.js';

const errorResponse = errorReply('Refused: the message says what to do.');
const anyJson = (description: string) => ({ description, content: { 'application/json': { schema: z.any() } } });

/** The listing query as it travels in a query string: contract addresses comma-separated. */
const tokenQueryParams = tokenQuerySchema.extend({
  page: z.coerce.number().int().min(0).optional(),
  size: z.coerce.number().int().min(1).max(200).optional(),
  contractAddresses: z.string().optional().describe('contract addresses, comma-separated'),
});

export const appOpenApiInfo = {
  title: 'txdesk app (localhost API)',
  version: '1',
  description:
    'The desktop contract over HTTP (docs/desktop.md). Every request, reads too, needs the bearer token from <data dir>/api-token.',
};

function callRoute(method: CallMethod): RouteConfig {
  const spec: CallSpec = desktopMethods[method];
  const { method: verb, path } = splitRoute(spec.route);
  const places = spec.args as readonly ArgPlace[];
  const items = (desktopArgs[method] as unknown as { def: { items: z.ZodType[] } }).def.items;
  const params: Record<string, z.ZodType> = {};
  const bodyFields: Record<string, z.ZodType> = {};
  let body: z.ZodType | null = null;
  let query: typeof tokenQueryParams | null = null;
  places.forEach((place, i) => {
    if (place.startsWith('path:')) params[place.slice(5)] = items[i]!;
    else if (place === 'query') query = tokenQueryParams;
    else if (place.startsWith('body.')) bodyFields[place.slice(5)] = items[i]!;
    else body = items[i]!;
  });
  if (Object.keys(bodyFields).length) body = z.object(bodyFields).strict();
  return {
    method: verb.toLowerCase() as RouteConfig['method'],
    path: openApiPath(path),
    operationId: method,
    request: {
      ...(Object.keys(params).length ? { params: z.object(params) } : {}),
      ...(query ? { query } : {}),
      ...(body ? { body: { required: !places.includes('body?'), content: { 'application/json': { schema: body } } } } : {}),
    },
    responses: { [spec.status ?? 200]: anyJson('Done.'), default: errorResponse },
  };
}

const extraRouteDocs: Record<keyof typeof extraRoutes, Omit<RouteConfig, 'method' | 'path'>> = {
  events: {
    operationId: 'events',
    // Derived from the table, so an event added there is listed here.
    description:
      `Server-sent events, one per pushed value of the desktop ` +
      `API: ${eventMethods.map((m) => `\`event: ${desktopMethods[m].event}\` (${m})`).join(', ')}.`,
    responses: {
      200: { description: 'The event stream.', content: { 'text/event-stream': { schema: z.string() } } },
      default: errorResponse,
    },
  },
  tokenImage: {
    operationId: 'tokenImage',
    request: { query: z.object({ url: tokenImageUrlSchema }) },
    responses: {
      200: { description: 'The image, fetched by the core.', content: { 'image/*': { schema: z.string() } } },
      default: errorResponse,
    },
  },
  openApi: { operationId: 'openApi', responses: { 200: anyJson('This document.') } },
  rpc: {
    operationId: 'rpc',
    description:
      'Ethereum JSON-RPC 2.0 (one request or a batch) for ethers, viem and scripts: eth_sendTransaction through the engine, ' +
      'personal_sign, eth_signTypedData_v4, eth_accounts, eth_chainId, and the usual reads forwarded to the node. Errors ' +
      'are JSON-RPC errors in a 200: 4100 without the token, 4001 declined, 4200 unsupported, -32602 bad params, 3 would ' +
      'revert.',
    request: { body: { required: true, content: { 'application/json': { schema: z.any() } } } },
    responses: { 200: anyJson('The JSON-RPC response (or the array of them for a batch).') },
  },
};

/** The OpenAPI route of one entry of the app's route list. */
export function appRouteDoc(name: string, route: string): RouteConfig {
  if (name in extraRouteDocs) {
    const { method, path } = splitRoute(route);
    return {
      method: method.toLowerCase() as RouteConfig['method'],
      path: openApiPath(path),
      ...extraRouteDocs[name as keyof typeof extraRoutes],
    };
  }
  return callRoute(name as CallMethod);
}
