// The HTTP face of the accounts (docs/api.md, Accounts): /users/v1/signup, login, me, passwd, logout and api-secret, as
// documented routes.
import type { IncomingMessage } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { z } from 'zod';
import { errorReply, json, jsonReply, type DocumentedRoute } from '../../lib/hono-kit.js';
import { readJsonBody } from '../../lib/http-kit.js';
import type { RateLimiter } from '../../lib/http-rate-limit.js';
import { parseBody } from '../../lib/http-validation.js';
import { apiSecretSchema, loginSchema, logoutSchema, passwdSchema, signupSchema } from './accounts-schemas.js';
import type { Accounts } from './accounts-api.js';

export interface AccountRouteDeps {
  /** Per client IP, on the routes that hash a password: scrypt is deliberately slow, so floods must stop early. */
  limiter: RateLimiter;
  now: () => number;
}

const profileReply = z
  .object({ email: z.string(), name: z.string(), organization: z.string(), clientId: z.string() })
  .meta({ id: 'Profile' });
const sessionReply = profileReply.extend({ jwtToken: z.string() }).meta({ id: 'Session' });
const apiSecretReply = z
  .object({
    apiSecret: z.string().meta({ description: 'Shown this once: send it as `Authorization: Bearer <apiSecret>` to manage webhooks.' }),
    createdAt: z.string(),
  })
  .meta({ id: 'ApiSecret' });
const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
const bearer = [{ bearerAuth: [] }];
const badRequest = errorReply('A field is invalid; the message names it.');
const throttled = errorReply('Too many account requests from this address; the Retry-After header says when to retry.');

export function accountRoutes(accounts: Accounts, deps: AccountRouteDeps): DocumentedRoute[] {
  const throttle = (req: IncomingMessage) => deps.limiter.take(req.socket.remoteAddress ?? 'unknown', deps.now());
  return [
    {
      doc: {
        method: 'post',
        path: '/users/v1/signup',
        operationId: 'signup',
        summary: 'Create an account (only when the service runs with open sign-up)',
        request: { body: body(signupSchema) },
        responses: {
          201: jsonReply('The account, signed in.', sessionReply),
          400: badRequest,
          403: errorReply('Sign-up is closed on this service.'),
          409: errorReply('An account with this e-mail exists.'),
          429: throttled,
        },
      },
      async handler(c) {
        accounts.assertSignupOpen();
        throttle(c.env.incoming);
        const input = parseBody(signupSchema, await readJsonBody(c.env.incoming), 'email, password, name and organization');
        return json(c, 201, await accounts.signup(input));
      },
    },
    {
      doc: {
        method: 'post',
        path: '/users/v1/login',
        operationId: 'login',
        summary: 'Sign in',
        request: { body: body(loginSchema) },
        responses: {
          200: jsonReply('The account and a session token.', sessionReply),
          400: badRequest,
          401: errorReply('Wrong e-mail or password (the answer does not say which).'),
          429: throttled,
        },
      },
      async handler(c) {
        throttle(c.env.incoming);
        return json(c, 200, await accounts.login(parseBody(loginSchema, await readJsonBody(c.env.incoming), 'email and password')));
      },
    },
    {
      doc: {
        method: 'get',
        path: '/users/v1/me',
        operationId: 'me',
        summary: 'The signed-in account',
        security: bearer,
        responses: { 200: jsonReply('The account.', profileReply), 401: errorReply('Missing, invalid, expired or revoked session token.') },
      },
      async handler(c) {
        const { id: _id, ...profile } = await accounts.authenticate(c.req.header('authorization'));
        return json(c, 200, profile);
      },
    },
    {
      doc: {
        method: 'patch',
        path: '/users/v1/passwd',
        operationId: 'passwd',
        summary: 'Change the password; revokes every older session token',
        security: bearer,
        request: { body: body(passwdSchema) },
        responses: {
          200: jsonReply('The account and a new session token.', sessionReply),
          400: badRequest,
          401: errorReply('Missing/invalid token, or the current password is wrong.'),
          429: throttled,
        },
      },
      async handler(c) {
        const authorization = c.req.header('authorization');
        // Authenticate before reading the body, so a caller without a token learns nothing about body rules.
        await accounts.authenticate(authorization);
        throttle(c.env.incoming);
        const input = parseBody(passwdSchema, await readJsonBody(c.env.incoming), 'password and newPassword');
        return json(c, 200, await accounts.changePassword(authorization, input));
      },
    },
    {
      doc: {
        method: 'post',
        path: '/users/v1/logout',
        operationId: 'logout',
        summary: 'Revoke this session token (only this one: other sessions of the account keep working)',
        description:
          'The token in the Authorization header stops working everywhere, also after a restart of the service, with a 401 ' +
          'that says to log in again. A second logout with the same token, or one with an expired or otherwise invalid ' +
          'token, is that 401 too. The body is empty or `{}`.',
        security: bearer,
        request: { body: { required: false, content: { 'application/json': { schema: logoutSchema } } } },
        responses: {
          204: { description: 'The token is revoked.' },
          400: badRequest,
          401: errorReply('Missing, invalid, expired or already revoked session token.'),
        },
      },
      // 204 once this token is revoked. Not throttled: it hashes no password, and each token can be revoked only once (a
      // second logout with it is the 401 of any revoked token), so its rows are bounded by the throttled logins.
      async handler(c) {
        const authorization = c.req.header('authorization');
        await accounts.authenticate(authorization);
        const sent = await readJsonBody(c.env.incoming);
        if (sent !== undefined) parseBody(logoutSchema, sent, 'nothing (or {})');
        await accounts.logout(authorization);
        c.env.outgoing.writeHead(204, { 'cache-control': 'no-store' }).end();
        return RESPONSE_ALREADY_SENT;
      },
    },
    {
      doc: {
        method: 'post',
        path: '/users/v1/api-secret',
        operationId: 'createApiSecret',
        summary: "Make the account's API secret (for programs managing webhooks), or replace it with rotate",
        description:
          'Answers the secret once; only its SHA-256 is kept. An account has at most one: while it has one, this is a 409 ' +
          'unless the body says `{"rotate":true}`, which replaces it (the old one stops working at once). Needs a session ' +
          'token, not the API secret. A password change or logout leaves the API secret as it is.',
        security: bearer,
        request: { body: { required: false, content: { 'application/json': { schema: apiSecretSchema } } } },
        responses: {
          201: jsonReply('The new API secret (shown this once).', apiSecretReply),
          400: badRequest,
          401: errorReply('Missing, invalid, expired or revoked session token.'),
          409: errorReply('The account has an API secret and the body did not say rotate.'),
        },
      },
      async handler(c) {
        const authorization = c.req.header('authorization');
        await accounts.authenticate(authorization);
        const sent = await readJsonBody(c.env.incoming);
        const input = sent === undefined ? {} : parseBody(apiSecretSchema, sent, 'nothing, or {"rotate": true}');
        return json(c, 201, await accounts.issueApiSecret(authorization, input));
      },
    },
    {
      doc: {
        method: 'delete',
        path: '/users/v1/api-secret',
        operationId: 'revokeApiSecret',
        summary: "End the account's API secret: programs using it can no longer manage webhooks",
        security: bearer,
        responses: {
          200: jsonReply('Whether there was one to end.', z.object({ revoked: z.boolean() })),
          401: errorReply('Missing, invalid, expired or revoked session token.'),
        },
      },
      handler: async (c) => json(c, 200, await accounts.revokeApiSecret(c.req.header('authorization'))),
    },
  ];
}
