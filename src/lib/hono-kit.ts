// Hono plumbing shared by the data service and the app's localhost server: the node request behind a context, JSON
// answers with the error envelope of docs/api.md, and routes that carry their OpenAPI description, mounted in one step so
// the served routes and the document cannot drift apart.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { ERROR_CODES, TxdeskError } from '../shared/errors.js';
import { envelopeOf, sendError, sendJson } from './http-kit.js';

/** The node request and response behind a Hono context (@hono/node-server passes them as bindings). */
export type NodeEnv = { Bindings: { incoming: IncomingMessage; outgoing: ServerResponse } };
export type RouteHandler = (c: Context<NodeEnv>) => Response | Promise<Response>;

/** A route: its OpenAPI description (path in OpenAPI's `{name}` form, schemas) and the handler that serves it. */
export interface DocumentedRoute {
  doc: RouteConfig;
  handler: RouteHandler;
}

/**
 * Answers with JSON written straight to the node response (with the headers every answer of ours carries). A web
 * Response would be read back through a stream by @hono/node-server unless it replaced the process's global Response
 * with its own class, which we do not let it do (the Electron main process shares those globals).
 */
export function json(c: Context<NodeEnv>, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  sendJson(c.env.outgoing, status, body, headers);
  return RESPONSE_ALREADY_SENT;
}

/** The error envelope (see envelopeOf: anything but a TxdeskError is logged and answered with a 500). */
export function errorResponse(e: unknown, c: Context<NodeEnv>, logError: (message: string) => void): Response {
  sendError(c.env.outgoing, e, logError);
  return RESPONSE_ALREADY_SENT;
}

/**
 * The node request listener of a Hono app. A request the adapter cannot turn into a web Request (a backslash in the
 * path, a target that is not a path) gets the 400 envelope instead of its bare 400.
 */
export function nodeListener(app: Pick<Hono<NodeEnv>, 'fetch'>, logError: (message: string) => void): RequestListener {
  return getRequestListener(app.fetch, {
    overrideGlobalObjects: false,
    errorHandler: (e) => {
      const { status, body, headers } = envelopeOf(
        e instanceof Error && e.name === 'RequestError'
          ? new TxdeskError('BAD_REQUEST', 'The request URL could not be parsed; check its encoding.')
          : e,
        logError,
      );
      return new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
      });
    },
  });
}

/** `/api/tx/:hash` -> `/api/tx/{hash}`. */
export const openApiPath = (path: string) => path.replace(/:([a-zA-Z]+)/g, '{$1}');
/** `/api/tx/{hash}` -> `/api/tx/:hash`. */
const honoPath = (path: string) => path.replace(/\{([a-zA-Z]+)\}/g, ':$1');

/**
 * Serves each route at its path and registers its description in the app's OpenAPI registry. Arguments are checked by
 * the handlers (their order of checks is part of the contract: 401 before 429 before 400), so the description does not
 * validate. Returns whether a path is served for some other method, for the 405 of `notFound`.
 */
export function mountRoutes(app: OpenAPIHono<NodeEnv>, routes: readonly DocumentedRoute[]): (method: string, pathname: string) => boolean {
  const patterns: { method: string; path: RegExp }[] = [];
  for (const { doc, handler } of routes) {
    const method = doc.method.toUpperCase();
    app.on(method, honoPath(doc.path), handler);
    app.openAPIRegistry.registerPath(doc);
    patterns.push({ method, path: new RegExp(`^${doc.path.replace(/\{[a-zA-Z]+\}/g, '[^/]+')}$`) });
  }
  return (method, pathname) => {
    const m = method === 'HEAD' ? 'GET' : method;
    return patterns.some((p) => p.method !== m && p.path.test(pathname));
  };
}

/** The error envelope in the OpenAPI document (one component, `Error`). */
const errorSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string().meta({ description: 'One sentence saying what is wrong and what to do.' }),
      fields: z
        .array(z.object({ path: z.string(), problem: z.string().optional(), sentence: z.string() }))
        .optional()
        .meta({ description: 'For a refused request: each field it got wrong (its path, what is wrong, the sentence).' }),
    }),
  })
  .meta({ id: 'Error' });

/** An error answer in a route's description. */
export const errorReply = (description: string) => ({ description, content: { 'application/json': { schema: errorSchema } } });

/** A JSON answer in a route's description. */
export const jsonReply = (description: string, schema: z.ZodType) => ({ description, content: { 'application/json': { schema } } });
