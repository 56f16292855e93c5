// GET /api/openapi.json: the app's localhost API described from the contract table and its zod schemas (zod's JSON
// Schema output), so the document cannot drift from the routes the server registers.
import { z } from 'zod';
import { appRouteList, desktopMethods, extraRoutes, splitRoute, type ArgPlace, type CallMethod, type CallSpec } from '../../../shared/desktop-api.js';
import { desktopArgs, tokenImageUrlSchema, tokenQuerySchema } from '../../../shared/desktop-schemas.js';

type JsonSchema = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const errorResponse = { description: 'Refused: `{ error: { code, message } }`, the message says what to do.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** `/api/tx/:hash` -> `/api/tx/{hash}`. */
export const openApiPath = (path: string) => path.replace(/:([a-zA-Z]+)/g, '{$1}');

function callOperation(method: CallMethod): JsonSchema {
  const spec: CallSpec = desktopMethods[method];
  const places = spec.args as readonly ArgPlace[];
  const items = (desktopArgs[method] as unknown as { def: { items: z.ZodType[] } }).def.items;
  const parameters: JsonSchema[] = [];
  const bodyFields: Record<string, JsonSchema> = {};
  let body: { schema: JsonSchema; required: boolean } | null = null;
  places.forEach((place, i) => {
    const schema = items[i]!;
    if (place.startsWith('path:')) parameters.push({ name: place.slice(5), in: 'path', required: true, schema: jsonSchema(schema) });
    else if (place === 'query') {
      for (const [name, field] of Object.entries(tokenQuerySchema.shape)) parameters.push({ name, in: 'query', required: false, schema: jsonSchema(field as z.ZodType) });
    } else if (place.startsWith('body.')) bodyFields[place.slice(5)] = jsonSchema(schema);
    else body = { schema: jsonSchema(schema), required: place === 'body' };
  });
  const fields = Object.keys(bodyFields);
  if (fields.length) body = { schema: { type: 'object', properties: bodyFields, required: fields, additionalProperties: false }, required: true };
  const status = String(spec.status ?? 200);
  return {
    operationId: method,
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: { required: (body as { required: boolean }).required, content: { 'application/json': { schema: (body as { schema: JsonSchema }).schema } } } } : {}),
    responses: { [status]: { description: 'Done.', content: { 'application/json': { schema: {} } } }, default: errorResponse },
  };
}

const extraOperations: Record<keyof typeof extraRoutes, JsonSchema> = {
  events: {
    operationId: 'events',
    description: 'Server-sent events: `event: tx` (a transaction record), `event: devchain`, `event: status`.',
    responses: { 200: { description: 'The event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } }, default: errorResponse },
  },
  tokenImage: {
    operationId: 'tokenImage',
    parameters: [{ name: 'url', in: 'query', required: true, schema: jsonSchema(tokenImageUrlSchema) }],
    responses: { 200: { description: 'The image, fetched by the core.', content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } }, default: errorResponse },
  },
  openApi: {
    operationId: 'openApi',
    responses: { 200: { description: 'This document.', content: { 'application/json': { schema: { type: 'object' } } } } },
  },
};

export function buildAppOpenApi(origin: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const { name, route } of appRouteList) {
    const { method, path } = splitRoute(route);
    const operation = name in extraOperations ? extraOperations[name as keyof typeof extraRoutes] : callOperation(name as CallMethod);
    (paths[openApiPath(path)] ??= {})[method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'txdesk app (localhost API)',
      version: '1',
      description: 'The desktop contract over HTTP (docs/desktop.md). Writes need the bearer token from <data dir>/api-token.',
    },
    servers: [{ url: origin }],
    paths,
    components: {
      schemas: {
        Error: { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } }, required: ['error'] },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}
